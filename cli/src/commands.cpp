#include <CLI/CLI.hpp>

#include "context.hpp"

namespace envfix::cli {

void register_probe(CLI::App&, Context&);
void register_doctor(CLI::App&, Context&);
void register_matrix(CLI::App&, Context&);

void register_all_commands(CLI::App& app, Context& ctx) {
    // Order here is the order of `envfix --help`.
    for (RegisterCommand r : {register_probe, register_doctor, register_matrix}) r(app, ctx);
}

}  // namespace envfix::cli
