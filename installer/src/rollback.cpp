// Rolling back to a snapshot, and collecting the store's garbage (snapshot.hpp).
#include <algorithm>
#include <chrono>
#include <future>
#include <set>

#include "envfix/common/fs.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/installer/env_lock.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "environment_files.hpp"
#include "snapshot_internal.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The bytecode of a .py file that goes: __pycache__/<stem>.<tag>.pyc beside it, unless `kept`.
template <class Kept>
void add_bytecode_of(const stdfs::path& py, std::vector<PathText>& out, const Kept& kept) {
    auto cache = py.parent_path() / "__pycache__";
    auto stem = py.stem().string() + ".";
    std::error_code ec;
    for (stdfs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name.starts_with(stem) && name.ends_with(".pyc") && !kept(it->path().native())) out.push_back(it->path().native());
    }
}

// Puts the stored bytes of `f` at `stage`: a hard link when the object has the right mode,
// else (or across filesystems) a copy with it.
Expected<void> place(const PathText& obj, const PathText& stage, const SnapshotFile& f, uint32_t obj_mode) {
    if (obj_mode == f.mode) {
        bool cross = false;
        auto r = storeops::hard_link_text(obj, stage, &cross);
        if (r || !cross) return r;
    }
    return storeops::copy_file(obj, stage, f.mode);
}

// The files that make the environment one stay, whatever a snapshot or a RECORD listed: a
// rollback never leaves the environment without its interpreter, nor writes over it.
void keep_environment_files(const probe::Environment& env, const stdfs::path& root, std::vector<const SnapshotFile*>& gone,
                            std::vector<const SnapshotFile*>& adds) {
    std::set<std::string> env_files;
    if (auto scheme = install_scheme(env))
        for (const auto& p : environment_files(env, *scheme)) env_files.insert(relative_generic_text(p.native(), root));
    auto is_env_file = [&](const SnapshotFile* f) { return env_files.count(f->path) > 0; };
    std::erase_if(gone, is_env_file);
    std::erase_if(adds, is_env_file);
}

}  // namespace

Expected<RollbackResult> rollback_locked(const probe::Environment& env, const RollbackRequest& request, Reporter& reporter) {
    auto started = Clock::now();
    auto lap_at = started;
    auto lap = [&](const char* phase) {  // -vv: where a rollback's time goes
        auto t = Clock::now();
        reporter.debug(msg("install.debug.phase", {{"phase", phase},
                                                   {"ms", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(t - lap_at).count())}}));
        lap_at = t;
    };
    RollbackResult result;
    const stdfs::path root = env.root.lexically_normal();
    const auto ids = snapshot_ids(root);
    if (ids.empty()) return fail(ExitCode::NoSnapshot, "snapshot.none", {{"path", root.string()}});

    auto snap_started = Clock::now();
    // Read only: the present is stored once the rollback is sure to go ahead.
    std::vector<snap::Seen> seen;
    ENVFIX_TRY(auto now, snap::capture(env, reporter, nullptr, seen));
    result.seconds_snapshot = since(snap_started);
    lap("the present read");
    std::optional<Snapshot> target;
    if (request.target.empty()) {
        // Newest first, read one by one: the one taken before the last change is usually it
        // (each snapshot of a torch stack is 17 000 lines to parse).
        bool any = false;
        for (auto it = ids.rbegin(); it != ids.rend() && !target; ++it) {
            auto s = read_snapshot(root, *it);
            if (!s) {
                reporter.warn(s.error().message);
                continue;
            }
            any = true;
            if (!s->same_content(now)) target = std::move(*s);
        }
        if (!any) return fail(ExitCode::NoSnapshot, "snapshot.none", {{"path", root.string()}});
        if (!target) return fail(ExitCode::NoSnapshot, "snapshot.nothing_different", {{"path", root.string()}});
    } else {
        ENVFIX_TRY(auto t, find_snapshot(root, request.target, reporter));
        target = std::move(t);
    }
    result.to = target->id;
    lap("snapshot read");

    // What differs, file by file: both lists walked side by side in the order of their paths
    // (a snapshot's order; one edited by hand is put in order first).
    auto in_order = [](const std::vector<SnapshotFile>& files) {
        std::vector<const SnapshotFile*> out;
        out.reserve(files.size());
        for (const auto& f : files) out.push_back(&f);
        auto by_path = [](const SnapshotFile* a, const SnapshotFile* b) { return a->path < b->path; };
        if (!std::is_sorted(out.begin(), out.end(), by_path)) std::sort(out.begin(), out.end(), by_path);
        return out;
    };
    const auto have = in_order(now.files), want = in_order(target->files);
    std::vector<const SnapshotFile*> adds, gone;
    for (size_t i = 0, j = 0; i < have.size() || j < want.size();) {
        if (j == want.size() || (i < have.size() && have[i]->path < want[j]->path)) {
            gone.push_back(have[i++]);
        } else if (i == have.size() || want[j]->path < have[i]->path) {
            adds.push_back(want[j++]);
        } else {
            if (have[i]->sha256 == want[j]->sha256 && have[i]->mode == want[j]->mode) result.files_unchanged++;
            else adds.push_back(want[j]);
            ++i, ++j;
        }
    }
    // As native text: a torch stack's 17 000 paths, each made into a std::filesystem::path, and
    // a set of them, were a third of a rollback's time.
    std::vector<PathText> remove;
    auto kept = [&](const PathText& p) {  // a file the target has (its bytecode stays too)
        const auto rel = relative_generic_text(p, root);
        auto it = std::lower_bound(want.begin(), want.end(), rel, [](const SnapshotFile* f, const std::string& r) { return f->path < r; });
        return it != want.end() && (*it)->path == rel;
    };
    keep_environment_files(env, root, gone, adds);
    for (const auto* f : gone) {
        remove.push_back(join_generic_text(root, f->path));
        if (f->path.ends_with(".py")) add_bytecode_of(stdfs::path(remove.back()), remove, kept);
    }
    std::sort(remove.begin(), remove.end());
    remove.erase(std::unique(remove.begin(), remove.end()), remove.end());
    result.files_in = adds.size();
    result.files_out = remove.size();
    std::set<std::pair<std::string, std::string>> before_d, after_d;
    for (const auto& d : now.dists) before_d.insert({d.name, d.version});
    for (const auto& d : target->dists) after_d.insert({d.name, d.version});
    for (const auto& d : target->dists)
        if (!before_d.count({d.name, d.version})) result.dists_in.push_back(d);
    for (const auto& d : now.dists)
        if (!after_d.count({d.name, d.version})) result.dists_out.push_back(d);

    lap("files compared");
    // Every stored file must be there, whole, before anything moves; reached through no link.
    const auto store = snapshot_store_dir(root);
    ENVFIX_TRY_VOID(snap::check_store(root));
    std::vector<uint32_t> obj_modes(adds.size());
    std::vector<PathText> objects(adds.size());
    for (size_t i = 0; i < adds.size(); ++i) {
        const auto& obj = objects[i] = snap::object_text(store, adds[i]->sha256);
        auto st = storeops::stat_text(obj);
        if (!st || !st->regular)
            return fail(ExitCode::BadInput, "snapshot.object_missing", {{"id", target->id}, {"path", adds[i]->path}, {"object", stdfs::path(obj).string()}});
        if (st->size != adds[i]->size)
            return fail(ExitCode::BadInput, "snapshot.object_damaged", {{"id", target->id}, {"path", adds[i]->path}, {"object", stdfs::path(obj).string()}});
        obj_modes[i] = st->mode & 0777;
    }
    if (request.dry_run || (adds.empty() && remove.empty())) {
        result.seconds = since(started);
        return result;
    }

    // The present is kept before anything moves, so this rollback can be rolled back: written on
    // a thread of its own while the files are staged (its 17 000 lines, twice: 25 ms here).
    const std::string reason = "rollback to " + target->id;
    auto keep_present = [&] { return snap::keep_captured(env, now, seen, reason, "", nullptr); };
    std::future<Expected<void>> keeping;
    try {
        keeping = std::async(std::launch::async, keep_present);
    } catch (const std::system_error&) {  // no thread to be had: kept here
        ENVFIX_TRY_VOID(keep_present());
    }

    ENVFIX_TRY(auto tx, Transaction::begin(state_dir(root), environment_areas(env), "rollback to snapshot " + target->id));
    result.transaction = tx.id();
    std::vector<PathText> dests;
    std::vector<const PathText*> dest_refs;
    dests.reserve(adds.size());
    for (const auto* f : adds) dest_refs.push_back(&dests.emplace_back(join_generic_text(root, f->path)));
    ENVFIX_TRY_VOID(tx.make_stage_dirs(dest_refs));
    std::vector<std::optional<Error>> errors(adds.size());
    tx::parallel_for(adds.size(), [&](size_t i) {
        auto r = place(objects[i], tx.stage_path(dests[i]), *adds[i], obj_modes[i]);
        if (!r) errors[i] = r.error();
    });
    for (auto& e : errors)
        if (e) return unexpected(*e);
    if (interrupt_requested()) return fail(ExitCode::Interrupted, "install.interrupted");
    lap("files staged");
    if (keeping.valid()) ENVFIX_TRY_VOID(keeping.get());
    result.before = now.id;
    lap("the present kept");
    ENVFIX_TRY_VOID(tx.prepare(remove, dests));
    lap("moves planned");
    ENVFIX_TRY(auto stats, tx.commit());
    lap("committed");
    result.seconds_moving = stats.move_seconds;
    result.seconds = since(started);
    return result;
}

Expected<RollbackResult> rollback(const probe::Environment& env, const RollbackRequest& request, Reporter& reporter) {
    std::optional<fs::FileLock> lock;
    std::vector<RecoveryOutcome> recovered;
    if (!request.dry_run) {
        ENVFIX_TRY(auto l, lock_environment(env.root, request.wait_for_lock, reporter));
        lock.emplace(std::move(l));
        ENVFIX_TRY(recovered, recover_transactions(env.root, environment_areas(env), reporter));
    }
    ENVFIX_TRY(auto r, rollback_locked(env, request, reporter));
    r.recovered = std::move(recovered);
    return r;
}

Expected<RollbackResult> restore_before_install(const probe::Environment& env, const InstallResult& installed, Reporter& reporter) {
    if (installed.snapshot.empty()) return fail(ExitCode::NoSnapshot, "snapshot.none", {{"path", env.root.string()}});
    RollbackRequest req;
    req.target = installed.snapshot;
    req.wait_for_lock = true;
    return rollback(env, req, reporter);
}

Expected<GcResult> gc_snapshots(const probe::Environment& env, size_t keep, bool wait_for_lock, Reporter& reporter) {
    ENVFIX_TRY(auto lock, lock_environment(env.root, wait_for_lock, reporter));
    const stdfs::path root = env.root.lexically_normal();
    ENVFIX_TRY_VOID(snap::check_store(root));
    GcResult r;
    auto all = list_snapshots(root, reporter);
    std::set<std::string> referenced;
    size_t kept_unnamed = 0;
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
        bool stays = !it->name.empty() || kept_unnamed < keep;
        if (it->name.empty() && stays) ++kept_unnamed;
        if (stays) {
            for (const auto& f : it->files) referenced.insert(f.sha256);
            continue;
        }
        std::error_code ec;
        stdfs::remove(snapshots_dir(root) / (it->id + ".snap"), ec);
        if (ec) return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", (snapshots_dir(root) / (it->id + ".snap")).string()}, {"reason", ec.message()}});
        r.removed.push_back(it->id);
    }
    std::reverse(r.removed.begin(), r.removed.end());
    std::error_code ec;
    // Remembered identities promise their bytes are stored: forgotten before objects go.
    stdfs::remove(snapshot_store_dir(root) / "identities", ec);
    for (stdfs::directory_iterator fan(snapshot_store_dir(root), ec), end; !ec && fan != end; fan.increment(ec)) {
        if (!fan->is_directory() || fan->path().filename().string().size() != 2) continue;
        std::error_code ec2;
        for (stdfs::directory_iterator it(fan->path(), ec2), e2; !ec2 && it != e2; it.increment(ec2)) {
            auto name = it->path().filename().string();
            if (name.size() != 64 || referenced.count(name)) continue;
            std::error_code rm;
            auto size = it->file_size(rm);
            if (stdfs::remove(it->path(), rm)) {
                r.objects_removed++;
                r.bytes_freed += rm ? 0 : size;
            }
        }
    }
    return r;
}

}  // namespace envfix::installer
