// envfix plan: the framework release and wheel variant for this machine (or another), and the
// wheels, kept and removed distributions that install it (issue 5; docs/plan.md, docs/json.md).
#include <CLI/CLI.hpp>

#include "index_options.hpp"
#include "plan_command.hpp"

namespace envfix::cli {

void add_plan_options(CLI::App& cmd, PlanCliOptions& o) {
    add_target_options(cmd, o.target);
    cmd.get_option("--python")->description("a Python interpreter (a path, or a name on PATH), or the version to plan for (3.12)");
    const char* machine = "Another machine (default: this one, probed)";
    cmd.add_option("--gpu", o.gpus, "plan for this GPU: a name (\"RTX 4090\"), a compute capability (8.9) or sm_89; repeatable")
        ->group(machine);
    cmd.add_option("--driver", o.driver, "the NVIDIA driver version to plan for (570.133.07)")->group(machine);
    cmd.add_option("--os", o.os, "linux or windows (default: the environment's, else this machine's)")->group(machine);
    cmd.add_option("--arch", o.arch, "x86_64 or aarch64 (default: this machine's)")->group(machine);
    cmd.add_option("--channel", o.channel, "stable, nightly, or auto (nightly only when no stable release fits)")
        ->check(CLI::IsMember({"auto", "stable", "nightly"}));
    cmd.add_option("--variant", o.variant, "force a variant (cu128, cpu); still checked against the GPU and driver");
    cmd.add_option("--torch", o.torch,
                   "only torch versions within this specifier (\">=2.7,<2.10\", \"==2.9.1\"), or this release line (2.9)");
    cmd.add_option("--torch-from", o.torch_from,
                   "where torch and its companions come from: pytorch (the variant's index on the PyTorch index) or index "
                   "(--index-url like any package: PyPI's builds, a mirror, a local index)")
        ->check(CLI::IsMember({"pytorch", "index"}));
    cmd.add_option("--profiles", o.profiles, "load profiles/*.yaml from this folder instead of the built-in matrix");
}

void register_plan(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<PlanCliOptions>();
    auto* cmd = app.add_subcommand("plan", "choose the framework build for this GPU, driver and Python, and list the wheels that install it");
    add_plan_options(*cmd, *o);
    auto idx = add_index_options(*cmd);
    if (auto* g = cmd->get_option_group("Package index"))
        if (auto* off = g->get_option_no_throw("--offline")) off->description("decide from the matrix alone: no index, no network");
    cmd->callback([&ctx, o, idx] {
        auto config = resolve_index_config(*idx);
        run_plan(ctx, *o, plan::plan_sources(config), config.offline.value);
    });
}

}  // namespace envfix::cli
