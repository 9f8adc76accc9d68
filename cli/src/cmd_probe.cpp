// envfix probe: GPUs and driver through the CUDA Driver API (issue 2; docs/probe.md).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "envfix/probe/gpu_probe.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "probe_view.hpp"

namespace envfix::cli {

void register_probe(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("probe", help_text("help.probe"));
    cmd->callback([&ctx] {
        probe::MachineProbe m = probe::inspect_machine({.reporter = ctx.reporter});
        if (ctx.opts.json) {
            print_json(probe_json(m));
            if (m.failure) {
                print_error_line(*m.failure);
                ctx.exit_code = m.failure->code;
            }
            return;
        }
        if (auto line = driver_summary(m.driver); !line.empty()) print(line);
        if (m.failure) throw Failure(*m.failure);
        if (!m.driver.library.empty()) print(t(msg("probe.library_line", {{"library", m.driver.library}})));
        print("");
        std::string table = gpu_table(m.gpus);
        table.pop_back();  // print() adds the newline
        print(table);
        for (const auto& w : m.warnings) ctx.reporter->warn(w);
    });
}

}  // namespace envfix::cli
