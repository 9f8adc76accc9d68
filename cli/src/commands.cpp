#include <CLI/CLI.hpp>

#include "context.hpp"

namespace envfix::cli {

void register_probe(CLI::App&, Context&);
void register_doctor(CLI::App&, Context&);
void register_verify(CLI::App&, Context&);
void register_config(CLI::App&, Context&);
void register_matrix(CLI::App&, Context&);
void register_envs(CLI::App&, Context&);
void register_archs(CLI::App&, Context&);
void register_check(CLI::App&, Context&);
void register_plan(CLI::App&, Context&);
void register_apps(CLI::App&, Context&);
void register_install(CLI::App&, Context&);
void register_recover(CLI::App&, Context&);
void register_snapshot(CLI::App&, Context&);
void register_history(CLI::App&, Context&);
void register_rollback(CLI::App&, Context&);
void register_cache(CLI::App&, Context&);
void register_apply(CLI::App&, Context&);
void register_lock(CLI::App&, Context&);
void register_fetch(CLI::App&, Context&);
void register_completion(CLI::App&, Context&);

// One command per line: branches that add commands then merge without conflicts more often.
const RegisterCommand kCommands[] = {
    register_probe, register_doctor, register_plan,   register_install, register_verify,   register_check,      register_envs,
    register_apps,  register_archs,  register_matrix, register_recover, register_snapshot, register_history,    register_rollback,
    register_cache, register_apply,  register_lock,   register_fetch,   register_config,   register_completion,
};

void register_all_commands(CLI::App& app, Context& ctx) {
    // Order here is the order of `envfix --help`.
    for (RegisterCommand r : kCommands) r(app, ctx);
}

}  // namespace envfix::cli
