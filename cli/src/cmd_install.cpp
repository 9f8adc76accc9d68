// envfix install: local wheel files, or the framework stack the planner picks from the index
// (install_run_index.cpp), into an environment, old versions out, one transaction, a snapshot
// first (issue 6; docs/install.md).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "env_json.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/installer/venv.hpp"
#include "envfix/installer/verified_install.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "envfix/standards/wheel_name.hpp"
#include "help_text.hpp"
#include "index_options.hpp"
#include "install_run.hpp"
#include "output.hpp"
#include "probe_view.hpp"
#include "ready_trees.hpp"
#include "target_options.hpp"
#include "terminal_reporter.hpp"
#include "verify_view.hpp"

#ifndef ENVFIX_VERSION
#define ENVFIX_VERSION "0.0.0"
#endif

namespace envfix::cli {

namespace stdfs = std::filesystem;

namespace {

Json change_json(const installer::DistChange& c, bool with_wheel) {
    Json j = {{"name", c.name}, {"version", c.version}, {"dist_info", c.dist_info.string()}, {"files", c.files}};
    if (with_wheel) {
        j["wheel"] = c.wheel;
        j["bytes"] = c.bytes;
    }
    return j;
}

Json recovered_json(const std::vector<installer::RecoveryOutcome>& list) {
    Json a = Json::array();
    for (const auto& r : list)
        a.push_back({{"id", r.id}, {"action", std::string(installer::recovery_action_name(r.action))}, {"summary", r.summary}});
    return a;
}

// A wheel file (or a path to one that is missing), not a requirement such as "torch==2.7".
bool names_a_file(const std::string& item) {
    stdfs::path p(item);
    std::error_code ec;
    return stdfs::is_regular_file(p, ec) || standards::distribution_kind(p.filename().string()) != standards::DistributionKind::Other ||
           item.find('/') != std::string::npos || item.find('\\') != std::string::npos;
}

// Wheel files from the command line.
std::vector<installer::WheelRequest> wheel_requests(const std::vector<std::string>& items) {
    std::vector<installer::WheelRequest> out;
    for (const auto& item : items) {
        stdfs::path p(item);
        std::error_code ec;
        bool file = stdfs::is_regular_file(p, ec);
        if (!file && standards::distribution_kind(p.filename().string()) == standards::DistributionKind::Other)
            throw Failure(ExitCode::Usage, "install.not_a_file", {{"item", item}});
        if (!file) throw Failure(ExitCode::BadInput, "fs.read_failed", {{"path", item}, {"reason", render(msg("reason.no_such_file"))}});
        installer::WheelRequest r;
        r.file = stdfs::absolute(p).lexically_normal();
        r.direct_url = installer::file_url(r.file);
        out.push_back(std::move(r));
    }
    return out;
}

void print_result(const installer::InstallResult& r, bool dry_run) {
    if (dry_run) {
        for (const auto& c : r.removed)
            print(msg("install.would_remove", {{"name", c.name}, {"version", c.version}, {"files", std::to_string(c.files)}}));
        for (const auto& c : r.installed)
            print(msg("install.would_install", {{"name", c.name}, {"version", c.version}, {"files", std::to_string(c.files)},
                                                {"size", str::human_bytes(c.bytes)}}));
        if (r.site_enabled) print(msg("install.would_enable_site"));
        if (r.installed.empty() && r.removed.empty()) print(msg("install.nothing_to_do"));
        return;
    }
    for (const auto& c : r.removed)
        print(msg("install.removed", {{"name", c.name}, {"version", c.version}, {"files", std::to_string(c.files)}}));
    for (const auto& c : r.installed)
        print(msg("install.installed", {{"name", c.name}, {"version", c.version}, {"files", std::to_string(c.files)},
                                        {"size", str::human_bytes(c.bytes)}}));
    if (r.site_enabled) print(msg("install.site_enabled"));
    if (r.installed.empty() && r.removed.empty()) {
        print(msg("install.nothing_to_do"));
        return;
    }
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", r.seconds_total);
    char moving[32];
    std::snprintf(moving, sizeof moving, "%.1f", r.seconds_moving * 1000);
    print(msg(r.files_kept ? "install.done_kept" : "install.done",
              {{"seconds", secs}, {"files", std::to_string(r.files_written)}, {"kept", std::to_string(r.files_kept)},
               {"moves", std::to_string(r.moves)}, {"moving_ms", moving}}));
}

Error rolled_back_error(const installer::VerifiedInstall& v, const probe::Environment& env) {
    std::string why = v.verify && v.verify->framework.error ? render(v.verify->framework.error->message) : std::string();
    return make_error(ExitCode::RolledBack, "verify.install.rolled_back", {{"env", env.root.string()}, {"error", why}});
}

// After the install's lines: the verification in short when it passed, in full when it failed,
// and the undo.
void print_verification(const installer::VerifiedInstall& v, const probe::Environment& env, const std::string& target) {
    if (!v.skipped.empty()) {
        print(v.skipped);
        return;
    }
    if (!v.verify) return;
    if (v.verify->passed()) {
        print(msg("verify.install.verified", {{"summary", verify_summary(*v.verify)}}));
        return;
    }
    print(verify_text(*v.verify, &env, true));
    if (v.rolled_back) print(rolled_back_error(v, env).message);
    if (v.failed_before && !v.verify->passed())
        print(msg("verify.install.failed_before", {{"error", render(v.failed_before->message)}, {"target", target}}));
}

}  // namespace

installer::VerifiedInstallOptions verify_options(const InstallOptions& o, const probe::Environment& env, Context& ctx) {
    installer::VerifiedInstallOptions vo;
    vo.verify = !o.no_verify;
    vo.checks.framework_options.modules = o.check_modules;
    vo.checks.reporter = ctx.reporter;
    vo.checks.target_args = target_args(o.plan.target, env);
    return vo;
}

void run_install(const InstallOptions& o, Context& ctx) {
    if (!o.venv.empty() && o.plan.target.given()) throw Failure(ExitCode::Usage, "install.venv_and_target");
    if ((o.create || !o.base_python.empty()) && o.venv.empty()) throw Failure(ExitCode::Usage, "install.create_needs_venv");
    const size_t files = static_cast<size_t>(std::count_if(o.items.begin(), o.items.end(), names_a_file));
    if (files != 0 && files != o.items.size()) throw Failure(ExitCode::Usage, "install.mixed_items");
    std::vector<installer::WheelRequest> wheels;
    if (files) wheels = wheel_requests(o.items);

    TargetOptions target = o.plan.target;
    bool created = false;
    if (!o.venv.empty()) {
        if (o.create && !o.dry_run) {
            auto v = value_or_throw(installer::create_venv({o.venv, o.base_python, ENVFIX_VERSION}, *ctx.reporter));
            created = v.created;
            if (created) ctx.reporter->info(msg("install.venv_created", {{"path", o.venv}}));
        }
        target.env = o.venv;
    }
    auto env = resolve_target(target, ctx, TargetNeed::Interpreter);
    if (!files) {
        run_index_install(o, env, created, ctx);
        return;
    }

    installer::InstallRequest req;
    req.wheels = std::move(wheels);
    req.snapshot_reason = "install " + str::join(o.items, " ");
    req.check_dependencies = !o.no_deps;
    req.dry_run = o.dry_run;
    req.force_reinstall = o.force_reinstall;
    req.wait_for_lock = o.wait;
    req.break_system_packages = o.break_system_packages;
    req.threads = o.threads;
    req.ready_trees_from = ready_trees_from();
    auto result = installer::install_verified(env, req, verify_options(o, env, ctx), *ctx.reporter);
    report_install(ctx, env, o, result, created, nullptr);
}

void report_install(Context& ctx, const probe::Environment& env, const InstallOptions& o,
                    const Expected<installer::VerifiedInstall>& result, bool created, const Json* extra) {
    if (!result) {
        if (ctx.opts.json) {
            Json doc = {{"schema_version", kJsonSchemaVersion}, {"environment", environment_json(env)}, {"dry_run", o.dry_run},
                        {"error", error_json(result.error())}};
            if (extra) doc.update(*extra);
            print_error_line(result.error());
            print_json(doc);
            ctx.exit_code = result.error().code;
            return;
        }
        throw Failure(result.error());
    }
    const auto& r = result->install;
    if (r.ready_trees_wanted) ctx.ready_trees_wanted = true;
    // A framework check that failed after the install undid it: exit RolledBack (65).
    if (result->rolled_back) ctx.exit_code = ExitCode::RolledBack;
    if (!ctx.opts.json) {
        print_result(r, o.dry_run);
        if (!r.snapshot.empty()) print(msg("install.snapshot_taken", {{"id", r.snapshot}, {"target", target_words(o.plan.target, env)}}));
        print_verification(*result, env, target_words(o.plan.target, env));
        return;
    }
    Json installed = Json::array(), removed = Json::array(), unchanged = Json::array(), unmet = Json::array();
    for (const auto& c : r.installed) installed.push_back(change_json(c, true));
    for (const auto& c : r.removed) removed.push_back(change_json(c, false));
    for (const auto& c : r.unchanged) unchanged.push_back({{"name", c.name}, {"version", c.version}, {"wheel", c.wheel}});
    for (const auto& u : r.unmet)
        unmet.push_back({{"name", u.dist}, {"requirement", u.requirement}, {"found", u.found.empty() ? Json(nullptr) : Json(u.found)}});
    Json warnings = warnings_json(ctx);
    Json doc = {{"schema_version", kJsonSchemaVersion},
                {"environment", environment_json(env)},
                {"venv_created", created},
                {"dry_run", o.dry_run},
                {"installed", installed},
                {"removed", removed},
                {"unchanged", unchanged},
                {"unmet_requirements", unmet},
                {"site_enabled", r.site_enabled},
                {"recovered", recovered_json(r.recovered)},
                {"transaction", r.transaction.empty() ? Json(nullptr)
                                                      : Json{{"id", r.transaction},
                                                             {"files_written", r.files_written},
                                                             {"files_kept", r.files_kept},
                                                             {"bytes_written", r.bytes_written},
                                                             {"moves", r.moves},
                                                             {"ready_trees_used", r.ready_trees_used},
                                                             {"seconds_stage", r.seconds_stage},
                                                             {"seconds_commit", r.seconds_commit},
                                                             {"seconds_moving", r.seconds_moving}}},
                {"snapshot", r.snapshot.empty() ? Json(nullptr) : Json(r.snapshot)},
                {"seconds", r.seconds_total},
                {"verification", verification_json(*result, env)},
                {"rolled_back", result->rolled_back},
                {"warnings", warnings},
                {"error", result->rolled_back ? error_json(rolled_back_error(*result, env)) : Json(nullptr)}};
    if (extra) doc.update(*extra);
    print_json(doc);
    if (result->rolled_back) print_error_line(rolled_back_error(*result, env));
}

void register_install(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<InstallOptions>();
    auto* cmd = app.add_subcommand("install", help_text("help.install"));
    cmd->add_option("packages", o->items, help_text("help.install.packages"));
    add_plan_options(*cmd, o->plan);
    o->index = add_index_options(*cmd);
    if (auto* g = cmd->get_option_group(help_text("help.group.index")))
        if (auto* off = g->get_option_no_throw("--offline")) off->description(help_text("help.install.offline"));
    const std::string venv_group = help_text("help.group.new_env");
    cmd->add_option("--venv", o->venv, help_text("help.install.venv"))->group(venv_group);
    cmd->add_flag("--create", o->create, help_text("help.install.create"))->group(venv_group);
    cmd->add_option("--base-python", o->base_python, help_text("help.install.base_python"))->group(venv_group);
    cmd->add_flag("--no-deps", o->no_deps, help_text("help.install.no_deps"));
    cmd->add_flag("--dry-run", o->dry_run, help_text("help.install.dry_run"));
    cmd->add_flag("--no-verify", o->no_verify, help_text("help.install.no_verify"));
    cmd->add_option("--check-module", o->check_modules, help_text("help.install.check_module"))->allow_extra_args(false);
    cmd->add_flag("--force-reinstall", o->force_reinstall, help_text("help.install.force_reinstall"));
    cmd->add_flag("--wait", o->wait, help_text("help.common.wait"));
    cmd->add_flag("--break-system-packages", o->break_system_packages, help_text("help.install.break_system_packages"));
    cmd->add_flag("--ignore-app-constraints", o->ignore_app_constraints, help_text("help.install.ignore_app_constraints"));
    cmd->add_option("--threads", o->threads, help_text("help.install.threads"));
    cmd->callback([o, &ctx] { run_install(*o, ctx); });
}

}  // namespace envfix::cli
