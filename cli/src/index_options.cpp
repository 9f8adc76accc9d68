#include "index_options.hpp"

#include <CLI/CLI.hpp>

#include "envfix/common/error.hpp"
#include "help_text.hpp"

namespace envfix::cli {

std::shared_ptr<network::IndexCliOptions> add_index_options(CLI::App& cmd) {
    auto o = std::make_shared<network::IndexCliOptions>();
    auto* g = cmd.add_option_group(help_text("help.group.index"));
    g->add_option_function<std::string>(
        "--index-url,-i", [o](const std::string& v) { o->index_url = v; }, help_text("help.index.index_url"));
    g->add_option("--extra-index-url", o->extra_index_urls, help_text("help.index.extra_index_url"));
    g->add_option_function<std::string>(
        "--pytorch-index", [o](const std::string& v) { o->pytorch_index = v; }, help_text("help.index.pytorch_index"));
    g->add_flag("--offline", o->offline, help_text("help.index.offline"));
    g->add_flag("--refresh", o->refresh, help_text("help.index.refresh"));
    g->add_option_function<std::string>(
        "--cert", [o](const std::string& v) { o->cert = v; }, help_text("help.index.cert"));
    return o;
}

network::IndexConfig resolve_index_config(const network::IndexCliOptions& cli) { return value_or_throw(network::load_index_config(cli)); }

}  // namespace envfix::cli
