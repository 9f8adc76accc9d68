// Transactions: staging, the journal, the moves and their undo (transaction.hpp).
#include "envfix/installer/transaction.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <type_traits>
#include <unordered_set>

#include "envfix/common/beneath.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/held_files.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/installer/fault.hpp"
#include "file_ops.hpp"
#include "path_under.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace tx {

std::string stage_dir_name(const std::string& id) { return ".envfix-tx-" + id; }

std::vector<Area> make_areas(const std::vector<std::string>& roots, const std::string& id) {
    std::vector<Area> out;
    for (const auto& r : roots) {
        Area a{stdfs::path(r), stdfs::path(r) / stage_dir_name(id), {}};
        a.prefix = (a.root.lexically_normal() / "").native();
        out.push_back(std::move(a));
    }
    return out;
}

const Area* area_for(const std::vector<Area>& areas, const stdfs::path& p, std::string* rel) { return area_for(areas, p.native(), rel); }

const Area* area_for(const std::vector<Area>& areas, const stdfs::path::string_type& s, std::string* rel) {
    // String prefixes instead of lexically_relative: this runs for every file of a torch stack
    // (17 000), several times. The deepest area holding s wins.
    const Area* best = nullptr;
    for (const auto& a : areas)
        if (s.size() > a.prefix.size() && s.compare(0, a.prefix.size(), a.prefix) == 0 &&
            (!best || a.prefix.size() > best->prefix.size()))
            best = &a;
    if (!best) return nullptr;
    // p is normal, so what follows the prefix is a relative path without "." or ".." parts.
    std::string r = generic_of(s.substr(best->prefix.size()));  // POSIX: the native string is the generic one
    const std::string_view first = std::string_view(r).substr(0, r.find('/'));
    if (first.empty() || first == ".." || first == ".") return nullptr;
    // envfix's own folders (staging, state) are never a destination or a file to remove.
    if (first.starts_with(".envfix")) return nullptr;
    if (rel) *rel = std::move(r);
    return best;
}

bool lexists(const stdfs::path& p) {
    std::error_code ec;
    return stdfs::symlink_status(p, ec).type() != stdfs::file_type::not_found;
}

stdfs::path journal_file(const stdfs::path& state_dir, const std::string& id) { return state_dir / ("tx-" + id + ".json"); }

Expected<void> write_journal(const stdfs::path& state_dir, const Journal& j) {
    return fs::write_file_atomic(journal_file(state_dir, j.id), journal_to_json(j));
}

bool op_done(const std::vector<Area>& areas, const JournalOp& op) {
    const Area& a = areas[op.area];
    return op.kind == JournalOp::Kind::Out ? lexists(a.old_path(op.path)) : !lexists(a.new_path(op.path));
}

// Each move's two folders are opened beneath the area without following a link: a journal read
// back names paths, and a link planted on the way must not take a move outside (beneath.hpp).
Expected<void> op_forward(const std::vector<Area>& areas, const JournalOp& op) {
    const Area& a = areas[op.area];
    if (op.kind == JournalOp::Kind::Out) return fs::move_beneath(a.root, op.path, a.stage_rel("old/", op.path));
    return fs::move_beneath(a.root, a.stage_rel("new/", op.path), op.path);
}

Expected<void> check_not_held(const std::vector<Area>& areas, const std::vector<JournalOp>& ops) {
    std::vector<stdfs::path> out;
    for (const auto& op : ops)
        if (op.kind == JournalOp::Kind::Out) out.push_back(areas[op.area].dest(op.path));
    const auto held = fs::programs_holding(out);
    if (held.empty()) return {};
    const auto& h = held.front();
    std::string more = held.size() > 1 ? " (+" + std::to_string(held.size() - 1) + ")" : "";
    return fail(ExitCode::Locked, "install.files_in_use",
                {{"program", h.program}, {"pid", std::to_string(h.pid)}, {"file", h.file.string()}, {"more", more}});
}

Expected<void> op_backward(const std::vector<Area>& areas, const JournalOp& op) {
    const Area& a = areas[op.area];
    if (op.kind == JournalOp::Kind::Out) return fs::move_beneath(a.root, a.stage_rel("old/", op.path), op.path);
    return fs::move_beneath(a.root, op.path, a.stage_rel("new/", op.path));
}

Expected<void> op_check(const std::vector<Area>& areas, const JournalOp& op) {
    const Area& a = areas[op.area];
    ENVFIX_TRY_VOID(fs::check_no_links(a.root, op.path));
    ENVFIX_TRY_VOID(fs::check_no_links(a.root, a.stage_rel("old/", op.path)));
    return fs::check_no_links(a.root, a.stage_rel("new/", op.path));
}

void make_durable(const std::vector<Area>& areas, const std::vector<JournalOp>& ops, const std::vector<stdfs::path::string_type>& added,
                  const std::vector<stdfs::path>& also, CommitStats& stats) {
    const auto started = std::chrono::steady_clock::now();
    std::vector<stdfs::path> roots;
    for (const auto& a : areas) roots.push_back(a.root);
    for (const auto& f : also) roots.push_back(f.parent_path());
    // One syncfs writes every dirty file of the filesystem, the wheels an install downloaded
    // into its cache among them (2.75 GB of a cold torch install): only what the environment
    // needs is flushed here (docs/install.md, "Transactions").
    const auto how = env::get(EnvVar::EnvfixCommitFlush);
    bool by_file = !(how && *how == "fs") &&
                   std::all_of(roots.begin(), roots.end(), [](const stdfs::path& r) { return fs::flushes_file_by_file(r); });
    const bool tried_by_file = by_file;
    if (by_file) {
        // The files' data, in groups of 64 on up to 16 threads: each group's write-back started,
        // then waited for. Not an fdatasync per file: on a file already on the disk (a warm
        // install's 17 000 links) each one still flushed the disk's cache, 0.4 s in all here.
        constexpr size_t kGroup = 64;
        const size_t groups = (added.size() + kGroup - 1) / kGroup;
        std::atomic<bool> ok{true};
        parallel_for(groups, [&](size_t g) {
            if (!fs::write_back_and_wait(std::span(added).subspan(g * kGroup, std::min(kGroup, added.size() - g * kGroup)))) ok = false;
        }, 1);
        if (!also.empty()) {
            std::vector<stdfs::path::string_type> also_native;
            for (const auto& f : also) also_native.push_back(f.native());
            if (!fs::write_back_and_wait(also_native)) ok = false;
        }
        stats.write_back_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        // The folders whose entries changed, as POSIX asks for a rename to be durable.
        std::set<stdfs::path> dirs;
        for (const auto& op : ops) {
            const Area& a = areas[op.area];
            dirs.insert(a.dest(op.path).parent_path());
            dirs.insert((op.kind == JournalOp::Kind::Out ? a.old_path(op.path) : a.new_path(op.path)).parent_path());
        }
        for (const auto& f : also) dirs.insert(f.parent_path());
        std::vector<stdfs::path> list(dirs.begin(), dirs.end());
        // All at once: each is a round trip to the disk (a flush; on ext4 the first commits the
        // journal and the others wait for it), five one after another would be a warm install's
        // longest wait where a flush is slow (docs/performance.md).
        parallel_for(list.size(), [&](size_t i) {
            if (!fs::sync_dir(list[i])) ok = false;
        }, 1);
        // Then each filesystem's journal committed as it is now: the blocks and sizes the
        // write-back gave the files were logged after the moves, which a folder's fsync may find
        // committed already (ext4's periodic commit) and so not commit again; the commit holds
        // every earlier metadata change (the staged folders, the snapshot's links) and flushes the
        // disk's cache, with the data written and waited for before it.
        // The file that does it goes in a staging folder, removed after the commit, so a crash
        // between leaves nothing in the environment. Every area a move went into or out of has
        // one (the moves go through it); a filesystem none of them is on has nothing to commit,
        // but for a file of `also` there (none in practice: the snapshots are in the
        // environment's own folder), whose own folder then takes the commit's file.
        std::map<uint64_t, stdfs::path> by_device;
        auto commit_in = [&](const stdfs::path& dir) {
            auto id = fs::identity(dir);
            by_device.emplace(id ? id->device : 0, dir);  // the first folder named for a filesystem
        };
        for (const auto& a : areas)
            if (lexists(a.stage)) commit_in(a.stage);
        for (const auto& f : also) commit_in(f.parent_path());
        for (const auto& [device, dir] : by_device)
            if (!fs::commit_filesystem(dir)) ok = false;
        by_file = ok;
        stats.flushed_files = added.size();  // brought in: `also` not counted
        stats.flushed_dirs = list.size();
    }
    // After a write-back that failed, syncfs reports only errors newer than its own descriptor,
    // and the pages that failed are clean by then: the change may not be on the disk.
    const bool synced = by_file || fs::sync_filesystems(roots);
    stats.durable = synced && (by_file || !tried_by_file);
    stats.by_file = by_file;
    stats.flush_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

Expected<void> make_folders(const std::vector<Area>& areas, const std::vector<std::pair<size_t, std::string>>& files, Side side) {
    // Every folder the files need, found by string (17 000 paths for a torch stack, whose
    // component-wise std::filesystem handling took longer than the mkdirs), then made level by
    // level, parents first. Each level runs on several threads, one task per parent folder: a
    // mkdir takes its parent's lock, so siblings made on different threads only queue on it
    // (docs/performance.md, warm install).
    std::vector<char> used(areas.size(), 0);
    // Per area, the folders seen ('/'-separated, relative); per depth, (area, folder).
    std::vector<std::unordered_set<std::string>> seen(areas.size());
    std::vector<std::vector<std::pair<size_t, std::string>>> levels;
    std::string parent;
    for (const auto& [ai, rel] : files) {
        used[ai] = 1;
        auto& mine = seen[ai];
        size_t slash = rel.rfind('/');
        if (slash == std::string::npos) continue;
        // The parent first: when it is known, so are all folders above it.
        parent.assign(rel, 0, slash);  // reused: no allocation per file
        if (mine.count(parent)) continue;
        for (size_t at = 0;; ++at) {
            at = rel.find('/', at);
            if (at == std::string::npos || at > slash) break;
            std::string dir = rel.substr(0, at);
            if (!mine.insert(dir).second) continue;
            const size_t depth = static_cast<size_t>(std::count(dir.begin(), dir.end(), '/'));
            if (levels.size() <= depth) levels.resize(depth + 1);
            levels[depth].emplace_back(ai, std::move(dir));
        }
    }
    auto folder = [&](size_t ai, const std::string& rel) { return side == Side::New ? areas[ai].new_path(rel) : areas[ai].old_path(rel); };
    auto failed = [](const stdfs::path& d, const std::error_code& ec) {
        return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", d.string()}, {"reason", ec.message()}});
    };
    for (size_t ai = 0; ai < areas.size(); ++ai) {
        if (!used[ai]) continue;
        auto r = folder(ai, "");
        std::error_code ec;
        stdfs::create_directories(r, ec);
        if (ec) return failed(r, ec);
        if (side == Side::New) fileops::spread_new_folders(r);  // the top-level packages away from just-freed inodes
    }
    for (auto& level : levels) {
        // Siblings together: sorted by (area, parent), then one group per parent.
        std::sort(level.begin(), level.end());
        std::vector<std::pair<size_t, size_t>> groups;  // [first, end) of each parent's children
        auto parent_of = [](const std::pair<size_t, std::string>& x) {  // "" for the area's own folder
            const size_t slash = x.second.rfind('/');
            return std::pair{x.first, std::string_view(x.second).substr(0, slash == std::string::npos ? 0 : slash)};
        };
        for (size_t i = 0; i < level.size(); ++i) {
            if (groups.empty() || parent_of(level[groups.back().first]) != parent_of(level[i])) groups.emplace_back(i, i);
            groups.back().second = i + 1;
        }
        std::vector<std::optional<std::pair<stdfs::path, std::error_code>>> errors(groups.size());
        parallel_for(groups.size(), [&](size_t g) {
            for (size_t i = groups[g].first; i < groups[g].second; ++i) {
                auto dir = folder(level[i].first, level[i].second);
                std::error_code ec;
                stdfs::create_directory(dir, ec);
                if (ec) {
                    errors[g].emplace(std::move(dir), ec);
                    return;
                }
            }
        }, 1);
        for (const auto& e : errors)
            if (e) return failed(e->first, e->second);
    }
    return {};
}

void remove_stage_dirs(const std::vector<Area>& areas) {
    // Deleting a file that reached the disk costs a metadata write; one after another that is
    // seconds for a replaced framework's 17 000 files, so files go in parallel, then folders
    // deepest first, each depth in parallel. Listed as text, folder by folder (a
    // std::filesystem walk made a path, every part parsed, for each of the 17 000).
    using Str = stdfs::path::string_type;
    std::vector<Str> files;
    std::vector<std::vector<Str>> dirs_by_depth(1);
    for (const auto& a : areas) {
        // A staging folder's name that is a link (planted in an environment made elsewhere) goes
        // itself: what it points to is never listed.
        std::error_code ec;
        const auto type = stdfs::symlink_status(a.stage, ec).type();
        if (type == stdfs::file_type::directory) dirs_by_depth[0].push_back(a.stage.native());
        else if (type != stdfs::file_type::not_found) files.push_back(a.stage.native());
    }
    for (size_t depth = 0; depth < dirs_by_depth.size(); ++depth) {
        std::vector<Str> below;
        for (const auto& dir : dirs_by_depth[depth]) {
            auto listed = storeops::list_folder(dir);
            if (!listed) continue;
            for (auto& e : *listed) {
                Str p = dir;
                p += stdfs::path::preferred_separator;
                p += e.name;
                (e.type == stdfs::file_type::directory ? below : files).push_back(std::move(p));
            }
        }
        if (!below.empty()) dirs_by_depth.push_back(std::move(below));
    }
    parallel_for(files.size(), [&](size_t i) { storeops::remove_text(files[i], false); });
    for (auto level = dirs_by_depth.rbegin(); level != dirs_by_depth.rend(); ++level) {
        auto& dirs = *level;
        parallel_for(dirs.size(), [&](size_t i) {
            if (storeops::remove_text(dirs[i], true)) return;
            std::error_code ec;
            stdfs::remove_all(dirs[i], ec);  // not empty: something the walk above missed
        });
    }
    fault_point();
}

void remove_journal(const stdfs::path& state_dir, const std::string& id, bool durable) {
    std::error_code ec;
    stdfs::remove(journal_file(state_dir, id), ec);
    if (durable) fs::sync_dir(state_dir);
    stdfs::remove(state_dir, ec);  // only when empty
}

}  // namespace tx

stdfs::path state_dir(const stdfs::path& env_root) { return env_root / ".envfix"; }

Expected<void> check_state_dir(const stdfs::path& env_root) {
    // The deepest folders envfix writes in; the folders above them are checked with them.
    for (const char* inside : {".envfix/snapshots/-", ".envfix/store/v1/-"}) {
        if (auto r = fs::check_no_links(env_root, inside); !r)
            return fail(ExitCode::UnsafeState, "env.state_link", {{"path", (env_root / ".envfix").string()}});
    }
    std::error_code ec;
    const auto type = stdfs::symlink_status(state_dir(env_root), ec).type();
    if (type != stdfs::file_type::not_found && type != stdfs::file_type::directory)
        return fail(ExitCode::UnsafeState, "env.state_link", {{"path", (env_root / ".envfix").string()}});
    return {};
}

struct Transaction::Impl {
    stdfs::path state_dir;
    Journal journal;
    std::vector<tx::Area> areas;
    std::vector<stdfs::path::string_type> added;  // the staged files (prepare), flushed by apply()
    size_t on_disk_files = 0;                      // staged files not in `added`: on the disk already
    std::vector<stdfs::path> also;                 // files outside the moves, flushed with them
    bool applied = false;  // every move done, not yet final (apply())
    bool finished = false;
    std::future<Expected<void>> writing;  // begin_beside's journal write, until begun()

    Expected<void> wait_begun() {
        if (!writing.valid()) return {};
        return writing.get();
    }

    // Moves ops [0, n) back, newest first, then removes the staging folders and the journal.
    // A move back that fails keeps the journal ("prepared": `envfix recover` undoes the rest).
    Expected<void> undo(size_t n, const Message& cause) {
        (void)wait_begun();
        for (size_t i = n; i-- > 0;) {
            if (auto r = tx::op_backward(areas, journal.ops[i]); !r) {
                finished = true;
                return unexpected(make_error(r.error().code, "install.undo_failed",
                                             {{"path", state_dir.parent_path().string()}, {"reason", render(cause, Lang::En)}}));
            }
            fault_point();
        }
        tx::remove_stage_dirs(areas);
        tx::remove_journal(state_dir, journal.id);
        finished = true;
        return {};
    }
};

Transaction::Transaction() : impl_(std::make_unique<Impl>()) {}
Transaction::Transaction(Transaction&&) noexcept = default;
Transaction& Transaction::operator=(Transaction&&) noexcept = default;
Transaction::~Transaction() {
    if (!impl_ || impl_->finished) return;
    if (impl_->applied) (void)revert();  // on failure the journal stays for recovery
    else abort();
}

namespace {

std::string new_id() {
    std::random_device rd;
    char rnd[9];
    std::snprintf(rnd, sizeof rnd, "%08x", rd());
    return fileops::utc_timestamp(true) + "-" + std::to_string(fileops::process_id()) + "-" + rnd;
}

stdfs::path nearest_existing(stdfs::path p) {
    p = p.lexically_normal();
    std::error_code ec;
    while (!p.empty() && !stdfs::is_directory(p, ec) && p.has_relative_path()) p = p.parent_path();
    return p;
}

}  // namespace

Expected<Transaction> Transaction::begin(const stdfs::path& state_dir, const std::vector<stdfs::path>& areas,
                                         std::string summary) {
    return begin_journal(state_dir, areas, std::move(summary), false);
}

Expected<Transaction> Transaction::begin_beside(const stdfs::path& state_dir, const std::vector<stdfs::path>& areas,
                                                std::string summary) {
    return begin_journal(state_dir, areas, std::move(summary), true);
}

Expected<void> Transaction::begun() {
    if (!impl_->writing.valid()) return {};
    ENVFIX_TRY_VOID(impl_->wait_begun());
    fault_point();  // as begin() has after its journal
    return {};
}

void Transaction::set_summary(std::string summary) { impl_->journal.summary = std::move(summary); }

Expected<Transaction> Transaction::begin_journal(const stdfs::path& state_dir, const std::vector<stdfs::path>& areas,
                                                 std::string summary, bool beside) {
    Transaction t;
    t.impl_->state_dir = state_dir;
    Journal& j = t.impl_->journal;
    j.id = new_id();
    j.state = Journal::State::Staging;
    j.pid = fileops::process_id();
    j.created = fileops::utc_timestamp(false);
    j.summary = std::move(summary);
    std::set<std::string> seen;
    for (const auto& a : areas) {
        auto root = nearest_existing(a).string();
        if (seen.insert(root).second) j.areas.push_back(root);
    }
    t.impl_->areas = tx::make_areas(j.areas, j.id);
    const auto env_root = state_dir.parent_path();
    for (const auto& a : t.impl_->areas)
        if (!fs::resolves_beneath(env_root, a.root))
            return fail(ExitCode::UnsafeState, "install.area_outside", {{"path", a.root.string()}, {"root", env_root.string()}});
    ENVFIX_TRY_VOID(check_state_dir(env_root));
    std::error_code ec;
    stdfs::create_directories(state_dir, ec);
    if (ec)
        return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", state_dir.string()}, {"reason", ec.message()}});
    if (beside) {
        try {
            t.impl_->writing = std::async(std::launch::async, [state_dir, j]() -> Expected<void> { return tx::write_journal(state_dir, j); });
            return t;
        } catch (const std::system_error&) {  // no thread to be had: written here
        }
    }
    if (auto w = tx::write_journal(state_dir, j); !w) {
        stdfs::remove(state_dir, ec);
        t.impl_->finished = true;
        return unexpected(std::move(w).error());
    }
    fault_point();
    return t;
}

const std::string& Transaction::id() const { return impl_->journal.id; }
const std::vector<JournalOp>& Transaction::ops() const { return impl_->journal.ops; }

stdfs::path Transaction::stage_path(const stdfs::path& dest) const { return stdfs::path(stage_path(dest.native())); }

stdfs::path::string_type Transaction::stage_path(const stdfs::path::string_type& dest) const {
    std::string rel;
    stdfs::path::string_type scratch;
    const tx::Area* a = tx::area_for(impl_->areas, normal_text(dest, scratch), &rel);
    return a ? a->new_text(rel) : stdfs::path::string_type();
}

namespace {
std::vector<const stdfs::path::string_type*> addresses(const std::vector<stdfs::path>& paths) {
    std::vector<const stdfs::path::string_type*> out;
    out.reserve(paths.size());
    for (const auto& p : paths) out.push_back(&p.native());
    return out;
}
}  // namespace

Expected<void> Transaction::make_stage_dirs(const std::vector<stdfs::path>& dests) { return make_stage_dirs(addresses(dests)); }

Expected<void> Transaction::prepare(const std::vector<stdfs::path>& remove, const std::vector<stdfs::path>& add) {
    auto text = [](const std::vector<stdfs::path>& paths) {
        std::vector<stdfs::path::string_type> out;
        out.reserve(paths.size());
        for (const auto& p : paths) out.push_back(p.native());
        return out;
    };
    return prepare(text(remove), text(add));
}

Expected<void> Transaction::make_stage_dirs(const std::vector<const stdfs::path::string_type*>& dests) {
    ENVFIX_TRY_VOID(begun());  // nothing staged before the journal is on the disk
    const auto& areas = impl_->areas;
    std::vector<std::pair<size_t, std::string>> files;
    files.reserve(dests.size());
    std::string rel;
    stdfs::path::string_type scratch;
    for (const auto* d : dests) {
        const tx::Area* a = tx::area_for(areas, normal_text(*d, scratch), &rel);
        if (!a) return fail(ExitCode::Internal, "install.outside_areas", {{"path", stdfs::path(*d).string()}});
        files.emplace_back(static_cast<size_t>(a - areas.data()), std::move(rel));
    }
    return tx::make_folders(areas, files, tx::Side::New);
}

Expected<std::vector<JournalOp>> Transaction::plan(const std::vector<stdfs::path::string_type>& remove,
                                                   const std::vector<stdfs::path::string_type>& add) const {
    return tx::plan_moves(impl_->areas, remove, add);
}

Expected<void> Transaction::prepare(const std::vector<stdfs::path::string_type>& remove, const std::vector<stdfs::path::string_type>& add,
                                    const std::vector<char>& on_disk) {
    ENVFIX_TRY(auto ops, plan(remove, add));
    return prepare_planned(std::move(ops), add, on_disk);
}

Expected<void> Transaction::prepare_planned(std::vector<JournalOp> ops, const std::vector<stdfs::path::string_type>& add,
                                            const std::vector<char>& on_disk) {
    Impl& m = *impl_;
    ENVFIX_TRY_VOID(begun());  // one journal write at a time
    ENVFIX_TRY_VOID(tx::check_not_held(m.areas, ops));
    {
        // The backups' folders (a rollback moves out files of 400 folders).
        std::vector<std::pair<size_t, std::string>> out;
        for (const auto& op : ops)
            if (op.kind == JournalOp::Kind::Out) out.emplace_back(op.area, op.path);
        ENVFIX_TRY_VOID(tx::make_folders(m.areas, out, tx::Side::Old));
    }
    // Nothing is flushed yet: until the journal says "committed", recovery undoes the moves,
    // so staged bytes that never reached the disk are simply dropped.
    m.journal.ops = std::move(ops);
    m.added.clear();
    m.on_disk_files = 0;
    for (size_t i = 0; i < add.size(); ++i) {
        if (i < on_disk.size() && on_disk[i]) ++m.on_disk_files;
        else m.added.push_back(add[i]);
    }
    m.journal.state = Journal::State::Prepared;
    ENVFIX_TRY_VOID(tx::write_journal(m.state_dir, m.journal));
    fault_point();
    return {};
}

void Transaction::flush_with_commit(std::vector<stdfs::path> files) {
    for (auto& f : files) impl_->also.push_back(std::move(f));
}

Expected<CommitStats> Transaction::commit() {
    ENVFIX_TRY(auto stats, apply());
    ENVFIX_TRY_VOID(finish());
    return stats;
}

Expected<CommitStats> Transaction::apply() {
    Impl& m = *impl_;
    CommitStats stats;
    auto started = std::chrono::steady_clock::now();
    const auto& ops = m.journal.ops;
    size_t done = 0;
    std::optional<Error> failure;
    for (; done < ops.size(); ++done) {
        fault_point();
        if (interrupt_requested()) {
            failure = make_error(ExitCode::Interrupted, "install.interrupted");
            break;
        }
        if (auto r = tx::op_forward(m.areas, ops[done]); !r) {
            failure = std::move(r).error();
            break;
        }
        (ops[done].kind == JournalOp::Kind::Out ? stats.moved_out : stats.moved_in)++;
    }
    if (failure) {
        // Undo in reverse. A move back that fails leaves the journal for `envfix recover`.
        ENVFIX_TRY_VOID(m.undo(done, failure->message));
        return unexpected(std::move(*failure));
    }
    stats.move_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    // The new files' bytes and the renames reach the disk before the journal says "committed".
    tx::make_durable(m.areas, ops, m.added, m.also, stats);
    stats.on_disk_files = m.on_disk_files;
    m.added = {};
    m.also = {};
    fault_point();
    m.applied = true;
    return stats;
}

Expected<void> Transaction::finish() {
    Impl& m = *impl_;
    // Committed: from here on a crash only leaves backups to delete.
    Journal committed = m.journal;
    committed.state = Journal::State::Committed;
    committed.ops.clear();
    if (auto w = tx::write_journal(m.state_dir, committed); !w) {
        // Not recorded as committed: undo, so the environment is the old one for sure.
        ENVFIX_TRY_VOID(m.undo(m.journal.ops.size(), w.error().message));
        return unexpected(std::move(w).error());
    }
    fault_point();
    tx::remove_stage_dirs(m.areas);
    // Not flushed: a committed journal that a crash brings back only has `envfix recover` remove
    // the backups again (already gone), and a flush costs a warm install a disk round trip.
    tx::remove_journal(m.state_dir, m.journal.id, false);
    fault_point();
    m.finished = true;
    return {};
}

Expected<void> Transaction::revert() {
    Impl& m = *impl_;
    if (m.finished || !m.applied) return {};
    return m.undo(m.journal.ops.size(), msg("verify.revert_reason"));
}

void Transaction::abort() {
    Impl& m = *impl_;
    (void)m.wait_begun();  // the journal written, then removed: never left behind by its thread
    if (m.finished) return;
    if (m.applied) {
        (void)revert();  // the backups are the old environment: never just dropped
        return;
    }
    m.finished = true;
    tx::remove_stage_dirs(m.areas);
    tx::remove_journal(m.state_dir, m.journal.id);
}

}  // namespace envfix::installer
