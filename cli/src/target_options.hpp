#pragma once
// --python / --env / --app / --path for the commands that work on one environment (doctor,
// check, plan, install, archs): add_target_options() registers them, resolve_target() turns
// them into a probe::Environment (facts cache loaded and saved) or throws Failure with one line
// naming the path (EnvNotFound 23, EnvBroken 24, Usage 2).
#include <string>

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
    bool given() const { return !python.empty() || !env.empty() || !app.empty() || !path.empty(); }
};

void add_target_options(CLI::App& cmd, TargetOptions& opts);

enum class TargetNeed {
    Files,        // reading its files is enough: broken and foreign-OS environments are returned
    Interpreter,  // it must run here: anything else is EnvBroken
};

// `recover`: an interrupted transaction's journal in the environment is finished or undone first
// (installer::recover, under the lock; skipped while another envfix holds it). `envfix recover`
// passes false to report the recovery itself.
probe::Environment resolve_target(const TargetOptions& opts, Context& ctx, TargetNeed need, bool recover = true);

// The interpreter facts cache of this command (Context::facts), loaded on first use.
probe::FactsCache& facts_cache(Context& ctx);

}  // namespace envfix::cli
