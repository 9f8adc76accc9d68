// envfix envs: every Python environment envfix finds (issue 3): the active one (else python3
// on PATH), app folders given with --path, ~/.virtualenvs/*, conda's environments.txt.
#include <CLI/CLI.hpp>

#include "app_target.hpp"
#include "context.hpp"
#include "env_json.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/probe/target.hpp"
#include "help_text.hpp"
#include "output.hpp"

namespace envfix::cli {

namespace {

struct EnvsOptions {
    std::string app;
    std::vector<std::string> paths;
    bool no_home = false;
};

bool is_default(const probe::Environment& e) {
    return e.origin == probe::EnvOrigin::Active || e.origin == probe::EnvOrigin::PathPython;
}

std::string found_cell(const probe::Environment& e) {
    switch (e.origin) {
        case probe::EnvOrigin::Active: return t(msg("envs.found.active"));
        case probe::EnvOrigin::PathPython: return t(msg("envs.found.path"));
        case probe::EnvOrigin::App: return t(msg("envs.found.app", {{"app", e.app.empty() ? "?" : e.app}}));
        case probe::EnvOrigin::Virtualenvs: return "~/.virtualenvs";
        case probe::EnvOrigin::CondaList: return "conda";
        default: return std::string(probe::env_origin_name(e.origin));
    }
}

void run_envs(const EnvsOptions& o, Context& ctx) {
    auto cache = probe::FactsCache::load(probe::FactsCache::default_path());
    probe::DiscoverOptions d;
    d.app = o.app;
    for (const auto& p : o.paths) d.app_paths.emplace_back(p);
    // App folders are read with their app's layout; --app alone looks in the usual places.
    auto catalog = load_app_catalog();
    if (!o.app.empty() && o.paths.empty() && !catalog->find(o.app))
        throw Failure(ExitCode::Usage, "apps.unknown_app", {{"app", o.app}, {"known", str::join(catalog->names(), ", ")}});
    const auto sigs = catalog->signatures();
    d.apps = &sigs;
    if (!o.app.empty() && o.paths.empty())
        for (const auto& f : apps::find_apps(*catalog, {.app = o.app})) d.app_paths.push_back(f.folder);
    d.home = !o.no_home;
    d.facts.cache = &cache;
    auto envs = probe::discover_environments(d);
    if (auto saved = cache.save(); !saved) ctx.reporter->debug(saved.error().message);

    if (ctx.opts.json) {
        Json list = Json::array();
        for (const auto& e : envs) {
            Json j = {{"default", is_default(e)}};
            j.update(environment_json(e));
            list.push_back(std::move(j));
        }
        print_json({{"schema_version", kJsonSchemaVersion}, {"environments", list}});
        return;
    }
    if (envs.empty()) {
        print(msg("envs.none"));
        return;
    }
    Table table({"", t(msg("envs.header.kind")), t(msg("envs.header.python")), t(msg("envs.header.location")),
                 t(msg("envs.header.found")), t(msg("envs.header.status"))});
    bool any_default = false;
    for (const auto& e : envs) {
        any_default |= is_default(e);
        table.add({is_default(e) ? "*" : "", std::string(probe::env_kind_name(e.kind)), python_cell(e), e.root.string(),
                   found_cell(e), status_cell(e)});
    }
    std::string text = table.str();
    text.pop_back();
    print(text);
    for (const auto& e : envs)
        if (e.problem) print("  " + t(e.problem->message));
    if (any_default) print(msg("envs.default_mark"));
}

}  // namespace

void register_envs(CLI::App& app, Context& ctx) {
    auto opts = std::make_shared<EnvsOptions>();
    auto* cmd = app.add_subcommand("envs", help_text("help.envs"));
    cmd->add_option("--path", opts->paths, help_text("help.envs.path"));
    cmd->add_option("--app", opts->app, help_text("help.envs.app"));
    cmd->add_flag("--no-home", opts->no_home, help_text("help.envs.no_home"));
    cmd->callback([opts, &ctx] { run_envs(*opts, ctx); });
}

}  // namespace envfix::cli
