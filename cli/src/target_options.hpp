#pragma once
// --python / --env / --app / --path for the commands that work on one environment (doctor,
// check, plan, install, archs): add_target_options() registers them, resolve_target() turns
// them into a probe::Environment (facts cache loaded and saved) or throws Failure with one line
// naming the path (EnvNotFound 23, EnvBroken 24, Usage 2).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "context.hpp"
#include "envfix/probe/environment.hpp"
#include "envfix/probe/interpreter_facts.hpp"

namespace CLI { class App; }

namespace envfix::cli {

struct TargetOptions {
    std::string python;  // --python PATH|NAME
    std::string env;     // --env DIR
    std::string app;     // --app NAME
    std::string path;    // --path DIR (the app's folder)
    // None of the four was given and the current folder (or a parent) is an app's: app and path
    // were filled in from it, so the command works on that app as with --app and --path.
    bool from_current_folder = false;
    bool given() const { return !python.empty() || !env.empty() || !app.empty() || !path.empty(); }
};

// Registers the options; once the command line is parsed, a command given none of them in an app
// folder (no venv or conda env active) means that app (settle_bare_target).
void add_target_options(CLI::App& cmd, TargetOptions& opts);
void settle_bare_target(TargetOptions& opts, const std::filesystem::path& cwd);
// The app whose environment `env` is, however it was named (--python, --env, or as the app):
// its checks apply to a change either way. nullopt: no app's environment.
std::optional<TargetOptions> app_holding(const TargetOptions& given, const probe::Environment& env);

enum class TargetNeed {
    Files,        // reading its files is enough: broken and foreign-OS environments are returned
    Interpreter,  // it must run here: anything else is EnvBroken
};

// `recover`: an interrupted transaction's journal in the environment is finished or undone first
// (installer::recover, under the lock; skipped while another envfix holds it). `envfix recover`
// passes false to report the recovery itself.
probe::Environment resolve_target(const TargetOptions& opts, Context& ctx, TargetNeed need, bool recover = true);

// How a command envfix prints for the user to run next names the environment: as the user did
// (--app and --path, --env, else --python; an app found from the current folder by --app and
// --path), with absolute paths, so that copying it works from any folder.
std::vector<std::string> target_args(const TargetOptions& opts, const probe::Environment& env);
// The same as words to append to a printed command (" --python /x/bin/python"), quoted for the
// shell of the environment's OS.
std::string target_words(const TargetOptions& opts, const probe::Environment& env);

// The interpreter facts cache of this command (Context::facts), loaded on first use.
probe::FactsCache& facts_cache(Context& ctx);

}  // namespace envfix::cli
