// envfix apply FILE.yaml: brings each environment the spec names to it, idempotently; --check says
// what would change (docs/provisioning.md). This file reads the spec and the index settings;
// apply_run.cpp plans and installs.
#include <CLI/CLI.hpp>

#include "apply_command.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/installer/apply_spec.hpp"
#include "help_text.hpp"
#include "index_options.hpp"

namespace envfix::cli {

namespace {

struct ApplyOptions {
    std::string file;
    bool check = false;
    bool refresh = false;
};

// The spec's index section as if given on the command line: the configuration file and the
// environment fill what it leaves out (index_config.hpp's precedence).
ApplySources spec_sources(const installer::ApplySpec& spec, bool refresh) {
    network::IndexCliOptions cli;
    cli.refresh = refresh;
    cli.index_url = spec.index.index_url;
    cli.extra_index_urls = spec.index.extra_index_urls;
    cli.pytorch_index = spec.index.pytorch_index;
    cli.offline = spec.index.offline;
    cli.cert = spec.index.cert;
    auto config = resolve_index_config(cli);
    std::filesystem::path cache_root = spec.cache_dir ? *spec.cache_dir : fs::cache_dir();
    if (spec.cache_dir) config.cache_dir.set((cache_root / "http").string(), network::ConfigSource::ConfigFile, spec.file.string());
    ApplySources s;
    s.plan = plan::plan_sources(config);
    s.http = config.http_options();
    s.offline = config.offline.value;
    s.download_dir = cache_root / "apply-wheels";
    s.wheels = spec.wheels;
    s.wheels_layout = spec.wheels_layout;
    return s;
}

}  // namespace

void register_apply(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<ApplyOptions>();
    auto* cmd = app.add_subcommand("apply", help_text("help.apply"));
    cmd->add_option("spec", o->file, help_text("help.apply.spec"))->required();
    cmd->add_flag("--check", o->check, help_text("help.apply.check"));
    cmd->add_flag("--refresh", o->refresh, help_text("help.apply.refresh"));
    cmd->callback([o, &ctx] {
        auto text = value_or_throw(fs::read_file(o->file));
        auto base = std::filesystem::absolute(o->file).parent_path();
        auto spec = value_or_throw(installer::parse_apply_spec(text, o->file, base));
        run_apply(ctx, spec, spec_sources(spec, o->refresh), o->check);
    });
}

}  // namespace envfix::cli
