// envfix verify [TARGET]: proves the GPU stack runs (issue 7; docs/verify.md).
//   driver level    envfix's own PTX kernels through the Driver API, on every GPU
//   framework level the framework's GPU ops (and --check-module self-tests) in the target
//                   interpreter; --driver-only skips it
// Both run through installer::verify_environment(), as after `envfix install`.
#include <CLI/CLI.hpp>

#include <memory>

#include "context.hpp"
#include "envfix/installer/verify.hpp"
#include "envfix/probe/gpu_probe.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "probe_view.hpp"
#include "target_options.hpp"
#include "verify_view.hpp"

namespace envfix::cli {

namespace {

struct VerifyCommandOptions {
    TargetOptions target;
    bool driver_only = false;
    std::vector<std::string> modules;
    unsigned timeout = 300;
};

void run_verify(const VerifyCommandOptions& o, Context& ctx) {
    if (o.driver_only && (o.target.given() || !o.modules.empty())) throw Failure(ExitCode::Usage, "verify.driver_only_target");
    std::optional<probe::Environment> env;
    if (!o.driver_only) env = resolve_target(o.target, ctx, TargetNeed::Interpreter);

    probe::MachineProbe m = probe::inspect_machine({.reporter = ctx.reporter});
    if (!ctx.opts.json)
        if (auto line = driver_summary(m.driver); !line.empty()) print(line);
    for (const auto& w : m.warnings) ctx.reporter->warn(w);

    installer::VerifyOptions vo;
    vo.framework = !o.driver_only;
    vo.framework_options.modules = o.modules;
    vo.framework_options.timeout = std::chrono::seconds(o.timeout);
    vo.reporter = ctx.reporter;
    if (env) vo.target_args = target_args(o.target, *env);
    installer::VerifyReport report = installer::verify_environment(env ? *env : probe::Environment{}, m, vo);
    auto error = report.error();

    if (ctx.opts.json) {
        Json doc;
        doc["schema_version"] = kJsonSchemaVersion;
        doc["driver"] = driver_json(m.driver);
        doc["warnings"] = messages_json(m.warnings);
        doc["driver_check"] = driver_check_json(report.driver);
        doc["driver_error"] = report.driver.error ? error_json(*report.driver.error) : Json(nullptr);
        if (env) doc["framework_check"] = framework_check_json(report.framework, *env);
        doc["passed"] = report.passed();
        doc["error"] = error ? error_json(*error) : Json(nullptr);
        print_json(doc);
        if (error) print_error_line(*error);
    } else {
        if (auto text = verify_text(report, env ? &*env : nullptr, true); !text.empty()) print("\n" + text);
        if (error) print_error_line(*error);  // the one line on stderr, as for every failed command
    }
    if (error) ctx.exit_code = error->code;
}

}  // namespace

void register_verify(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<VerifyCommandOptions>();
    auto* cmd = app.add_subcommand("verify", help_text("help.verify"));
    add_target_options(*cmd, o->target);
    cmd->add_flag("--driver-only", o->driver_only, help_text("help.verify.driver_only"));
    cmd->add_option("--check-module", o->modules, help_text("help.verify.check_module"));
    cmd->add_option("--timeout", o->timeout, help_text("help.verify.timeout"));
    cmd->callback([&ctx, o] { run_verify(*o, ctx); });
}

}  // namespace envfix::cli
