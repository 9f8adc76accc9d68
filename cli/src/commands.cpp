#include <CLI/CLI.hpp>

#include "context.hpp"

namespace envfix::cli {

void register_probe(CLI::App&, Context&);
void register_doctor(CLI::App&, Context&);
void register_envs(CLI::App&, Context&);
void register_archs(CLI::App&, Context&);

void register_all_commands(CLI::App& app, Context& ctx) {
    // Order here is the order of `envfix --help`.
    for (RegisterCommand r : {register_probe, register_doctor, register_envs, register_archs}) r(app, ctx);
}

}  // namespace envfix::cli
