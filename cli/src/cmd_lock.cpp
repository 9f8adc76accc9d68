// envfix lock: the exact wheels (URL, sha256, size) that make an environment's framework stack,
// written to a lock file that `envfix apply` and `envfix fetch` read (docs/provisioning.md).
#include <CLI/CLI.hpp>

#include "apply_command.hpp"
#include "envfix/common/fs.hpp"
#include "help_text.hpp"
#include "index_options.hpp"

namespace envfix::cli {

void register_lock(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<PlanCliOptions>();
    auto out = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("lock", help_text("help.lock"));
    add_plan_options(*cmd, *o);
    cmd->add_option("-o,--output", *out, help_text("help.lock.output"))->required();
    auto idx = add_index_options(*cmd);
    cmd->callback([&ctx, o, out, idx] {
        auto config = resolve_index_config(*idx);
        ApplySources s;
        s.plan = plan::plan_sources(config);
        s.http = config.http_options();
        s.offline = config.offline.value;
        s.download_dir = fs::cache_dir() / "apply-wheels";
        run_lock(ctx, *o, s, *out);
    });
}

}  // namespace envfix::cli
