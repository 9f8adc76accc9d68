// envfix check: pip check for an environment (issue 4; docs/check.md): every installed
// distribution's requirements, markers evaluated for that environment's interpreter, against what
// is installed. Exit code 0 only when all hold (RequirementsUnmet 30 otherwise).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "env_json.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/requirements_check.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "target_options.hpp"

namespace envfix::cli {

namespace {

struct CheckOptions {
    TargetOptions target;
};

void run_check(const CheckOptions& o, Context& ctx) {
    probe::Environment env = resolve_target(o.target, ctx, TargetNeed::Files);
    auto set = value_or_throw(standards::read_installed(env.site_packages, {.headers_only = true}));
    standards::CheckInput in;
    in.markers = standards::marker_environment(env.facts);
    in.order = env.site_packages;
    standards::SupportedTags tags = standards::supported_tags(env.facts);
    // Tags need the interpreter's facts; derived ones (a Windows layout read here) may lack the
    // ABI details, so the platform check runs only for an interpreter that ran.
    if (env.runnable()) in.tags = &tags;
    in.wheel_tags = standards::read_wheel_tags(set);
    standards::CheckResult result = standards::check_requirements(set, in);
    if (!env.runnable()) ctx.reporter->warn(msg("check.facts_from_files", {{"root", env.root.string()}}));

    if (ctx.opts.json) {
        Json problems = Json::array(), skipped = Json::array();
        for (const auto& p : result.problems)
            problems.push_back({{"kind", std::string(standards::check_problem_kind_name(p.kind))},
                                {"name", p.name},
                                {"version", p.version},
                                {"requirement", p.requirement},
                                {"dependency", p.dependency.empty() ? Json(nullptr) : Json(p.dependency)},
                                {"installed", p.installed.empty() ? Json(nullptr) : Json(p.installed)},
                                {"key", p.text.key},
                                {"message", t(p.text)}});
        for (const auto& s : result.skipped) skipped.push_back({{"key", s.key}, {"message", t(s)}});
        print_json({{"schema_version", kJsonSchemaVersion},
                    {"environment", environment_json(env)},
                    {"checked", result.checked},
                    {"ok", result.ok()},
                    {"problems", problems},
                    {"skipped", skipped},
                    {"error", nullptr}});
    } else {
        for (const auto& s : result.skipped) ctx.reporter->warn(s);
        if (result.ok()) print(msg("check.ok", {{"count", std::to_string(result.checked)}, {"root", env.root.string()}}));
        for (const auto& p : result.problems) print(t(p.text));
    }
    if (!result.ok()) ctx.exit_code = ExitCode::RequirementsUnmet;
}

}  // namespace

void register_check(CLI::App& app, Context& ctx) {
    auto opts = std::make_shared<CheckOptions>();
    auto* cmd = app.add_subcommand("check", help_text("help.check"));
    add_target_options(*cmd, opts->target);
    cmd->callback([opts, &ctx] { run_check(*opts, ctx); });
}

}  // namespace envfix::cli
