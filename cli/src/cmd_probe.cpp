// envfix probe: GPUs and driver through the CUDA Driver API (issue 2).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "output.hpp"

namespace envfix::cli {

void register_probe(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("probe", "list the GPUs and the driver, through the CUDA Driver API");
    cmd->callback([&ctx] { (void)ctx; });
}

}  // namespace envfix::cli
