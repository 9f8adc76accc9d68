// envfix recover: finish or undo what an interrupted envfix left in an environment (issue 6;
// docs/install.md#recovery). install does the same first; this is the explicit form.
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "env_json.hpp"
#include "envfix/installer/install.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "target_options.hpp"

namespace envfix::cli {

namespace {

struct RecoverOptions {
    TargetOptions target;
    bool wait = false;
};

void run_recover(const RecoverOptions& o, Context& ctx) {
    // Files are enough: recovery moves files back and never runs the interpreter.
    auto env = resolve_target(o.target, ctx, TargetNeed::Files, /*recover=*/false);
    auto outcomes = value_or_throw(installer::recover(env, o.wait, *ctx.reporter));
    if (ctx.opts.json) {
        Json list = Json::array();
        for (const auto& r : outcomes)
            list.push_back({{"id", r.id}, {"action", std::string(installer::recovery_action_name(r.action))}, {"summary", r.summary}});
        print_json({{"schema_version", kJsonSchemaVersion}, {"environment", environment_json(env)}, {"recovered", list}, {"error", nullptr}});
        return;
    }
    if (outcomes.empty()) print(msg("recover.nothing", {{"path", env.root.string()}}));
}

}  // namespace

void register_recover(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<RecoverOptions>();
    auto* cmd = app.add_subcommand("recover", help_text("help.recover"));
    add_target_options(*cmd, o->target);
    cmd->add_flag("--wait", o->wait, help_text("help.common.wait"));
    cmd->callback([o, &ctx] { run_recover(*o, ctx); });
}

}  // namespace envfix::cli
