// envfix envs: every Python environment envfix finds (issue 3): the active one (else python3
// on PATH), app folders given with --path, ~/.virtualenvs/*, conda's environments.txt.
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "env_json.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/probe/target.hpp"
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

std::string python_cell(const probe::PythonFacts& f) {
    if (!f.version.empty()) return f.version;
    if (f.major > 0) return std::to_string(f.major) + "." + std::to_string(f.minor);
    return "?";
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

std::string status_cell(const probe::Environment& e) {
    switch (e.status) {
        case probe::EnvStatus::Ok: return t(msg("envs.status.ok"));
        case probe::EnvStatus::FilesOnly:
            return t(msg("envs.status.files_only", {{"os", std::string(probe::layout_os_name(e.layout_os))}}));
        case probe::EnvStatus::Broken: return t(msg("envs.status.broken"));
    }
    return "";
}

void run_envs(const EnvsOptions& o, Context& ctx) {
    auto cache = probe::FactsCache::load(probe::FactsCache::default_path());
    probe::DiscoverOptions d;
    d.app = o.app;
    for (const auto& p : o.paths) d.app_paths.emplace_back(p);
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
        table.add({is_default(e) ? "*" : "", std::string(probe::env_kind_name(e.kind)), python_cell(e.facts), e.root.string(),
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
    auto* cmd = app.add_subcommand("envs", "list the Python environments envfix finds on this machine");
    cmd->add_option("--path", opts->paths, "an app folder to look into (repeatable)");
    cmd->add_option("--app", opts->app, "the app those folders belong to (comfyui, a1111, ...)");
    cmd->add_flag("--no-home", opts->no_home, "skip ~/.virtualenvs and conda's environment list");
    cmd->callback([opts, &ctx] { run_envs(*opts, ctx); });
}

}  // namespace envfix::cli
