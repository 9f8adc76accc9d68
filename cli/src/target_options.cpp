#include "target_options.hpp"

#include <CLI/CLI.hpp>

#include "app_target.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/error.hpp"
#include "envfix/diagnosis/diagnosis.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/probe/target.hpp"
#include "help_text.hpp"

namespace envfix::cli {

void add_target_options(CLI::App& cmd, TargetOptions& opts) {
    const std::string group = help_text("help.group.target");
    cmd.add_option("--python", opts.python, help_text("help.target.python"))->group(group);
    cmd.add_option("--env", opts.env, help_text("help.target.env"))->group(group);
    cmd.add_option("--app", opts.app, help_text("help.target.app"))->group(group);
    cmd.add_option("--path", opts.path, help_text("help.target.path"))->group(group);
    cmd.parse_complete_callback([&opts] {
        std::error_code ec;
        settle_bare_target(opts, std::filesystem::current_path(ec));
    });
}

namespace {

// The app folder at or above `dir` (app_folder.hpp), as --app and --path; nullopt where none.
std::optional<TargetOptions> app_folder_around(const apps::AppCatalog& catalog, const std::filesystem::path& dir) {
    auto found = apps::find_apps(catalog, {.cwd = dir, .usual_places = false});
    if (found.empty()) return std::nullopt;
    return TargetOptions{.app = found.front().profile->app.name, .path = found.front().folder.string()};
}

}  // namespace

void settle_bare_target(TargetOptions& opts, const std::filesystem::path& cwd) {
    if (cwd.empty() || opts.given() || env::get(EnvVar::VirtualEnv) || env::get(EnvVar::CondaPrefix)) return;
    if (auto app = app_folder_around(*load_app_catalog(), cwd)) {
        opts.app = app->app;
        opts.path = app->path;
        opts.from_current_folder = true;
    }
}

std::optional<TargetOptions> app_holding(const TargetOptions& given, const probe::Environment& env) {
    if (!given.app.empty() || !given.path.empty()) return given;
    if (env.root.empty()) return std::nullopt;
    const auto catalog = load_app_catalog();
    auto app = app_folder_around(*catalog, env.root);
    if (!app) return std::nullopt;
    // Only where that app's environment is this one (not a venv that merely lies below it).
    std::error_code ec;
    const auto sigs = catalog->signatures();
    for (const auto& e : probe::app_environments(app->app, app->path, &sigs))
        if (std::filesystem::equivalent(e.root, env.root, ec)) return app;
    return std::nullopt;
}

namespace {

// What an interrupted envfix left half done is finished or undone before anything reads or
// changes the environment. A journal whose lock another envfix holds is that envfix's work in
// progress: left alone.
void recover_pending(const probe::Environment& env, Context& ctx) {
    if (env.root.empty() || !installer::has_pending_transactions(installer::state_dir(env.root))) return;
    auto r = installer::recover(env, false, *ctx.reporter);
    if (!r && r.error().code == ExitCode::Locked) {
        ctx.reporter->debug(r.error().message);
        return;
    }
    if (!r) throw Failure(r.error());
}

probe::Environment resolve_plain(const TargetOptions& opts, Context& ctx, TargetNeed need) {
    const bool app = !opts.app.empty() || !opts.path.empty();
    if (app && opts.python.empty() && opts.env.empty()) return resolve_app(opts, ctx, need).target.env;
    probe::TargetSpec spec;
    if (!opts.python.empty()) spec.python = opts.python;
    if (!opts.env.empty()) spec.env = opts.env;
    if (!opts.app.empty()) spec.app = opts.app;
    if (!opts.path.empty()) spec.app_path = opts.path;
    auto& cache = facts_cache(ctx);
    auto env = value_or_throw(probe::resolve_target(spec, {.facts = {.cache = &cache}, .reporter = ctx.reporter}));
    // A cache that cannot be written (read-only home) only costs the next run a start.
    if (auto saved = cache.save(); !saved) ctx.reporter->debug(saved.error().message);
    if (need == TargetNeed::Interpreter) value_or_throw(probe::require_runnable(env));
    return env;
}

}  // namespace

std::vector<std::string> target_args(const TargetOptions& o, const probe::Environment& env) {
    auto absolute = [](const std::filesystem::path& p) {
        std::error_code ec;
        auto a = std::filesystem::absolute(p, ec);
        return (ec ? p : a).lexically_normal().string();
    };
    if (!o.app.empty() || !o.path.empty()) {
        std::vector<std::string> a;
        if (!o.app.empty()) a.insert(a.end(), {"--app", o.app});
        const std::filesystem::path folder = o.path.empty() ? env.app_path : std::filesystem::path(o.path);
        if (!folder.empty()) a.insert(a.end(), {"--path", absolute(folder)});
        return a;
    }
    if (!o.env.empty() || !env.runnable()) return {"--env", absolute(env.root)};
    return {"--python", absolute(env.interpreter)};
}

std::string target_words(const TargetOptions& opts, const probe::Environment& env) {
    return " " + diagnosis::format_command(target_args(opts, env), env.layout_os == probe::LayoutOs::Windows);
}

probe::FactsCache& facts_cache(Context& ctx) {
    if (!ctx.facts) ctx.facts = std::make_shared<probe::FactsCache>(probe::FactsCache::load(probe::FactsCache::default_path()));
    return *ctx.facts;
}

probe::Environment resolve_target(const TargetOptions& opts, Context& ctx, TargetNeed need, bool recover) {
    auto env = resolve_plain(opts, ctx, need);
    if (!env.interpreter.empty()) ctx.interpreters.push_back(env.interpreter);
    if (recover) recover_pending(env, ctx);
    return env;
}

}  // namespace envfix::cli
