#include "index_options.hpp"

#include <CLI/CLI.hpp>

#include "envfix/common/error.hpp"

namespace envfix::cli {

std::shared_ptr<network::IndexCliOptions> add_index_options(CLI::App& cmd) {
    auto o = std::make_shared<network::IndexCliOptions>();
    auto* g = cmd.add_option_group("Package index");
    g->add_option_function<std::string>(
        "--index-url,-i", [o](const std::string& v) { o->index_url = v; },
        "package index for everything but the framework (default https://pypi.org/simple; PIP_INDEX_URL, UV_INDEX_URL)");
    g->add_option("--extra-index-url", o->extra_index_urls,
                  "more package indexes, searched after --index-url (PIP_EXTRA_INDEX_URL, UV_EXTRA_INDEX_URL)");
    g->add_option_function<std::string>(
        "--pytorch-index", [o](const std::string& v) { o->pytorch_index = v; },
        "root of the PyTorch wheel index, or a mirror name: pytorch, sjtug, nju (ENVFIX_INDEX_URL)");
    g->add_flag("--offline", o->offline, "use only what is cached; never touch the network");
    g->add_flag("--refresh", o->refresh,
                "ask the indexes again for every page, even one still fresh in the cache (a release published minutes ago)");
    g->add_option_function<std::string>(
        "--cert", [o](const std::string& v) { o->cert = v; },
        "CA bundle that verifies the index's TLS certificate (SSL_CERT_FILE, REQUESTS_CA_BUNDLE)");
    return o;
}

network::IndexConfig resolve_index_config(const network::IndexCliOptions& cli) { return value_or_throw(network::load_index_config(cli)); }

}  // namespace envfix::cli
