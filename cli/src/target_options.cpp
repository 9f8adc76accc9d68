#include "target_options.hpp"

#include <CLI/CLI.hpp>

#include "envfix/common/error.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/probe/target.hpp"
#include "app_target.hpp"

namespace envfix::cli {

void add_target_options(CLI::App& cmd, TargetOptions& opts) {
    const char* group = "Environment (default: the active venv/conda env, else python3 on PATH)";
    cmd.add_option("--python", opts.python, "a Python interpreter: a path, or a name on PATH (python3.12)")->group(group);
    cmd.add_option("--env", opts.env, "a virtual environment or Python prefix folder")->group(group);
    cmd.add_option("--app", opts.app, "the app whose environment to use (comfyui, a1111, forge, ...; `envfix apps` lists them); "
                   "without --path it is looked for in the current folder and the usual places")->group(group);
    cmd.add_option("--path", opts.path, "the app's folder (ComfyUI_windows_portable, stable-diffusion-webui, ...); alone, the app "
                   "is recognised from its files")->group(group);
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
