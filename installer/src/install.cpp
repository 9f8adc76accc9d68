// install(): wheels in, old distributions out, one transaction (install.hpp). Three stages:
// Plan (install_plan.hpp: what goes, every new file's writer), Prepare (prepared_wheels.hpp: the
// wheels downloaded and unpacked, beside the other two), Commit (the lock, the journal, the
// snapshot of the present, staging in install_stage.hpp, the moves in install_commit.hpp).
#include "envfix/installer/install.hpp"

#include <optional>

#include "directory_keeper.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/env_lock.hpp"
#include "envfix/installer/fault.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "environment_files.hpp"
#include "install_checks.hpp"
#include "install_commit.hpp"
#include "install_context.hpp"
#include "install_plan.hpp"
#include "install_present.hpp"
#include "install_stage.hpp"
#include "tx_internal.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

// The journal begun on a thread of its own as soon as the install knows it brings wheels in: its
// flushes (the file, its folder) go by while what goes is planned and the wheels are opened,
// instead of in a row before the staging, which waits for it (Transaction::begun). A failure
// before the staging removes it again.
Expected<std::optional<Transaction>> journal_beside(const InstallPlan& plan, const InstallContext& ctx) {
    std::vector<std::string> in;
    for (size_t i = 0; i < plan.inputs.size(); ++i)
        if (!plan.inputs[i].skip) in.push_back(plan.wanted[i].name + " " + plan.wanted[i].version.to_string());
    if (in.empty() || ctx.request.dry_run) return std::optional<Transaction>();
    ENVFIX_TRY(auto t, Transaction::begin_beside(state_dir(ctx.env.root), ctx.areas, "install " + str::join(in, ", ")));
    return std::optional<Transaction>(std::move(t));
}

// The lock, then whatever an earlier envfix left half done; a dry run only warns of it.
Expected<std::optional<fs::FileLock>> lock_and_recover(const InstallContext& ctx, InstallResult& result) {
    if (ctx.request.dry_run) {
        if (has_pending_transactions(state_dir(ctx.env.root)))
            ctx.reporter.warn(msg("install.pending_transaction", {{"path", ctx.env.root.string()}}));
        return std::optional<fs::FileLock>();
    }
    ENVFIX_TRY(auto lock, lock_environment(ctx.env.root, ctx.request.wait_for_lock, ctx.reporter));
    ENVFIX_TRY(result.recovered, recover_transactions(ctx.env.root, ctx.areas, ctx.reporter));
    return std::optional<fs::FileLock>(std::move(lock));
}

}  // namespace

std::string enable_import_site(std::string_view text) {
    std::string out(text);
    const bool crlf = out.find("\r\n") != std::string::npos;
    for (size_t pos = 0; pos < out.size();) {
        size_t end = out.find('\n', pos);
        if (end == std::string::npos) end = out.size();
        size_t stop = (end > pos && out[end - 1] == '\r') ? end - 1 : end;
        auto line = str::trim(std::string_view(out).substr(pos, stop - pos));
        if (!line.empty() && line.front() == '#' && str::trim(line.substr(1)) == "import site") {
            out.replace(pos, stop - pos, "import site");
            return out;
        }
        pos = end + 1;
    }
    const char* eol = crlf ? "\r\n" : "\n";
    if (!out.empty() && out.back() != '\n') out += eol;
    return out + "import site" + eol;
}

Expected<std::vector<RecoveryOutcome>> recover(const probe::Environment& env, bool wait_for_lock, Reporter& reporter) {
    ENVFIX_TRY(auto lock, lock_environment(env.root, wait_for_lock, reporter));
    return recover_transactions(env.root, environment_areas(env), reporter);
}

Expected<InstallResult> install(const probe::Environment& env, const InstallRequest& request, Reporter& reporter) {
    const auto started = Clock::now();
    ENVFIX_TRY(auto ctx, make_install_context(env, request, reporter));
    InstallResult result;
    // Plan: the wheels, checked on their own and against the interpreter (later, where the
    // Prepare stage hands them over), then what is installed and what goes, under the lock.
    InstallPlan plan = plan_for(request);
    DirectoryKeeper keeper(ctx.unpacked_root, plan.inputs);  // after `plan`: its thread ends before the wheels go
    ENVFIX_TRY_VOID(name_wheels(plan, ctx, keeper));
    ENVFIX_TRY_VOID(plan_site_import(plan, ctx, result));
    ENVFIX_TRY(auto lock, lock_and_recover(ctx, result));
    ENVFIX_TRY_VOID(read_what_is_installed(plan, ctx));
    ctx.lap("installed distributions read");
    const bool changes = !request.dry_run && (!request.remove.empty() || !plan.extra_files.empty() || plan.brings_in());
    ENVFIX_TRY(auto journal, journal_beside(plan, ctx));
    // The snapshot of the present is captured beside the planning of what goes (both only read
    // the locked environment); declared after the journal and the lock: it goes before them.
    PresentSnapshot present(env);
    const bool snapshot = changes && !request.snapshot_reason.empty();
    if (snapshot) present.start();
    ENVFIX_TRY_VOID(plan_removals(plan, ctx, result));
    ctx.lap("removals planned");
    if (request.prepared) {  // the Prepare stage's wheels, with the snapshot stored meanwhile
        ENVFIX_TRY_VOID(present.take(snapshot, request.prepared, reporter));
        ctx.lap("snapshot of the present captured");
        ENVFIX_TRY_VOID(take_prepared_wheels(plan, ctx, keeper));
    }
    list_unchanged(plan, ctx, result);
    ENVFIX_TRY_VOID(check_dependencies(plan, ctx, result));
    ENVFIX_TRY_VOID(plan_writers(plan, ctx));
    list_installed(plan, result);
    if (request.dry_run || plan.changes_nothing()) {
        for (const auto& in : plan.inputs)
            for (const auto& w : in.plan.warnings) reporter.warn(w);
        result.seconds_total = seconds_since(started);
        return result;
    }
    if (!request.prepared) {  // captured before staging: a switch reads from it which files stay
        ENVFIX_TRY_VOID(present.take(snapshot, nullptr, reporter));
        ctx.lap("snapshot of the present captured");
    }
    // A switch: the files whose bytes the new wheel repeats stay where they are, with their
    // bytecode. Not for --force-reinstall, which checks every file by its hash (a repair).
    if (present.captured() && !plan.replaced_rows.empty() && !request.force_reinstall)
        plan_left_in_place(plan, *present.captured(), env.root.lexically_normal());
    ENVFIX_TRY_VOID(check_free_space(result, ctx));
    ctx.lap("what goes and what stays, checks");
    // Commit: stage, check, record, keep the way back (the snapshot), move.
    Staging staging(plan, ctx, result, keeper);
    ENVFIX_TRY_VOID(staging.begin(std::move(journal)));
    ENVFIX_TRY_VOID(staging.stage());
    ENVFIX_TRY_VOID(commit_staged(staging, present, plan, ctx, result));
    result.seconds_total = seconds_since(started);
    // The crash tests size their ENVFIX_FAULT_AFTER range with this.
    reporter.debug(msg("install.fault_points", {{"count", std::to_string(fault_points_passed())}}));
    return result;
}

}  // namespace envfix::installer
