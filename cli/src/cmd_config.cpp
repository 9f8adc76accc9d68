// envfix config show: every effective index, network and cache setting and where it came
// from (issue 4). Credentials in URLs are redacted.
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "envfix/network/url.hpp"
#include "help_text.hpp"
#include "index_options.hpp"
#include "output.hpp"

namespace envfix::cli {

namespace {

using network::ConfigSource;

struct Row {
    std::string key;
    Json value;
    std::string text;
    ConfigSource source;
    std::string origin;
};

template <class T>
Row row(const std::string& key, const network::Setting<T>& s) {
    Row r{key, Json(), "", s.source, s.origin};
    if constexpr (std::is_same_v<T, std::string>) {
        r.text = network::redact_url(s.value);
        r.value = s.value.empty() ? Json(nullptr) : Json(r.text);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
        r.value = Json::array();
        for (const auto& u : s.value) {
            auto red = network::redact_url(u);
            r.value.push_back(red);
            r.text += (r.text.empty() ? "" : " ") + red;
        }
    } else if constexpr (std::is_same_v<T, bool>) {
        r.value = s.value;
        r.text = s.value ? "true" : "false";
    } else {
        r.value = s.value;
        r.text = std::to_string(s.value);
    }
    return r;
}

std::vector<Row> rows_of(const network::IndexConfig& c) {
    return {row("index.url", c.index_url),
            row("index.extra-urls", c.extra_index_urls),
            row("pytorch.index", c.pytorch_index),
            row("pytorch.mirrors", c.pytorch_mirrors),
            row("network.offline", c.offline),
            row("network.cert", c.cert),
            row("network.timeout", c.timeout_s),
            row("network.connect-timeout", c.connect_timeout_s),
            row("network.retries", c.retries),
            row("network.parallel-downloads", c.parallel_downloads),
            row("network.netrc", c.netrc),
            row("network.http-proxy", c.http_proxy),
            row("network.https-proxy", c.https_proxy),
            row("network.all-proxy", c.all_proxy),
            row("network.no-proxy", c.no_proxy),
            row("cache.enabled", c.cache_enabled),
            row("cache.dir", c.cache_dir)};
}

std::string source_text(const Row& r) {
    switch (r.source) {
        case ConfigSource::Default: return t(msg("config.show.default"));
        case ConfigSource::ConfigFile: return t(msg("config.show.config_file", {{"origin", r.origin}}));
        case ConfigSource::Environment: return t(msg("config.show.environment", {{"origin", r.origin}}));
        case ConfigSource::CommandLine: return t(msg("config.show.command_line", {{"origin", r.origin}}));
    }
    return "";
}

void show(Context& ctx, const network::IndexCliOptions& cli) {
    auto cfg = resolve_index_config(cli);
    auto rows = rows_of(cfg);
    if (ctx.opts.json) {
        Json j;
        j["schema_version"] = kJsonSchemaVersion;
        j["config_file"] = {{"path", cfg.config_path.string()}, {"exists", cfg.config_exists}};
        j["settings"] = Json::array();
        for (const auto& r : rows)
            j["settings"].push_back(
                {{"key", r.key}, {"value", r.value}, {"source", std::string(network::config_source_name(r.source))}, {"origin", r.origin}});
        print_json(j);
        return;
    }
    print(msg(cfg.config_exists ? "config.show.file" : "config.show.file_missing", {{"path", cfg.config_path.string()}}));
    print("");
    Table table({t(msg("config.show.setting")), t(msg("config.show.value")), t(msg("config.show.source"))});
    for (const auto& r : rows) table.add({r.key, r.text.empty() ? t(msg("config.show.none")) : r.text, source_text(r)});
    std::string out = table.str();
    if (!out.empty() && out.back() == '\n') out.pop_back();
    print(out);
}

}  // namespace

void register_config(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("config", help_text("help.config"));
    cmd->require_subcommand(1);
    auto* show_cmd = cmd->add_subcommand("show", help_text("help.config.show"));
    auto opts = add_index_options(*show_cmd);
    show_cmd->callback([&ctx, opts] { show(ctx, *opts); });
}

}  // namespace envfix::cli
