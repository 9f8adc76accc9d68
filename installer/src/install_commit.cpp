// The staged files moved in (install_commit.hpp).
#include "install_commit.hpp"

#include "envfix/installer/unpacked_cache.hpp"
#include "snapshot_internal.hpp"
#include "unpacked_store.hpp"

namespace envfix::installer {

namespace {

void report_flush(const CommitStats& stats, Reporter& reporter) {
    const auto flush_ms = std::to_string(static_cast<long long>(stats.flush_seconds * 1000));
    const auto write_back_ms = std::to_string(static_cast<long long>(stats.write_back_seconds * 1000));
    reporter.debug(stats.by_file ? msg("install.debug.flushed_by_file", {{"files", std::to_string(stats.flushed_files)},
                                                                         {"on_disk", std::to_string(stats.on_disk_files)},
                                                                         {"dirs", std::to_string(stats.flushed_dirs)},
                                                                         {"ms", flush_ms},
                                                                         {"write_back_ms", write_back_ms}})
                                 : msg("install.debug.flushed_fs", {{"ms", flush_ms}}));
}

// The verification (InstallRequest::accept) with the new files in place and the old ones kept:
// final, or undone to the old environment, which history then need not list.
Expected<void> take_verdict(Transaction& tx, InstallContext& ctx, InstallResult& result) {
    auto started = Clock::now();
    const bool keep = ctx.request.accept(result);
    result.seconds_accept = seconds_since(started);
    if (keep)
        ENVFIX_TRY_VOID(tx.finish());
    else
        ENVFIX_TRY_VOID(tx.revert());
    result.reverted = !keep;
    if (!keep && !result.snapshot.empty()) {
        forget_snapshot(ctx.env.root, result.snapshot);
        result.snapshot.clear();
    }
    return {};
}

}  // namespace

Expected<void> commit_staged(Staging& staging, PresentSnapshot& present, const InstallPlan& plan, InstallContext& ctx,
                             InstallResult& result) {
    auto& tx = staging.transaction();
    // Written once every check has passed, so a refused install leaves no snapshot; its file is
    // made durable with the moves, in the commit's one journal commit.
    if (present.captured()) {
        ENVFIX_TRY(result.snapshot, present.keep(ctx.request.snapshot_reason, tx, ctx.reporter));
    }
    // From here an error leaves the environment as it was: the snapshot goes again (its stored
    // files are left to `envfix snapshot gc`).
    auto drop_snapshot = [&](Error e) -> Unexpected<Error> {
        if (!result.snapshot.empty()) forget_snapshot(ctx.env.root, result.snapshot);
        return unexpected(std::move(e));
    };
    ctx.lap("snapshot taken");
    // The staging ran beside the Prepare stage's flush of the downloads; nothing has moved yet.
    if (ctx.request.prepared) {
        if (auto r = ctx.request.prepared->durable(); !r) return drop_snapshot(r.error());
        ctx.lap("wheels durable");
    }
    auto ops = staging.planned_moves();
    if (!ops) return drop_snapshot(ops.error());
    if (auto p = tx.prepare_planned(std::move(*ops), staging.added(), staging.on_disk()); !p) return drop_snapshot(p.error());
    ctx.lap("moves planned");
    result.seconds_stage = seconds_since(staging.started());
    auto commit_started = Clock::now();
    auto committed = ctx.request.accept ? tx.apply() : tx.commit();
    if (!committed) return drop_snapshot(committed.error());
    if (committed->durable)
        for (const auto& [entry, seen] : staging.durable_after_commit()) unpacked::mark_on_disk(entry, seen);
    result.seconds_commit = seconds_since(commit_started);
    ctx.lap("committed");
    report_flush(*committed, ctx.reporter);
    result.seconds_moving = committed->move_seconds;
    result.moves = committed->moved_in + committed->moved_out;
    for (const auto& in : plan.inputs)
        for (const auto& w : in.plan.warnings) ctx.reporter.warn(w);
    if (ctx.request.accept) ENVFIX_TRY_VOID(take_verdict(tx, ctx, result));
    if (staging.trees_wanted()) result.ready_trees_wanted = true;
    return {};
}

}  // namespace envfix::installer
