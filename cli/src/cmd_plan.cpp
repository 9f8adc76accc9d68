// envfix plan: the framework release and wheel variant for this machine (or another), and the
// wheels, kept and removed distributions that install it (issue 5; docs/plan.md, docs/json.md).
#include <CLI/CLI.hpp>

#include "help_text.hpp"
#include "index_options.hpp"
#include "plan_command.hpp"

namespace envfix::cli {

void add_plan_options(CLI::App& cmd, PlanCliOptions& o) {
    add_target_options(cmd, o.target);
    cmd.get_option("--python")->description(help_text("help.plan.python"));
    const std::string machine = help_text("help.group.machine");
    cmd.add_option("--gpu", o.gpus, help_text("help.plan.gpu"))->group(machine);
    cmd.add_option("--driver", o.driver, help_text("help.plan.driver"))->group(machine);
    cmd.add_option("--os", o.os, help_text("help.plan.os"))->group(machine);
    cmd.add_option("--arch", o.arch, help_text("help.plan.arch"))->group(machine);
    cmd.add_option("--channel", o.channel, help_text("help.plan.channel"))->check(CLI::IsMember({"auto", "stable", "nightly"}));
    cmd.add_option("--variant", o.variant, help_text("help.plan.variant"));
    cmd.add_option("--torch", o.torch, help_text("help.plan.torch"));
    cmd.add_option("--torch-from", o.torch_from, help_text("help.plan.torch_from"))->check(CLI::IsMember({"pytorch", "index"}));
    cmd.add_option("--profiles", o.profiles, help_text("help.plan.profiles"));
}

void register_plan(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<PlanCliOptions>();
    auto* cmd = app.add_subcommand("plan", help_text("help.plan"));
    add_plan_options(*cmd, *o);
    auto idx = add_index_options(*cmd);
    if (auto* g = cmd->get_option_group(help_text("help.group.index")))
        if (auto* off = g->get_option_no_throw("--offline")) off->description(help_text("help.plan.offline"));
    cmd->callback([&ctx, o, idx] {
        auto config = resolve_index_config(*idx);
        run_plan(ctx, *o, plan::plan_sources(config), config.offline.value);
    });
}

}  // namespace envfix::cli
