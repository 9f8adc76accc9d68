#pragma once
// Pieces shared by the transaction, its move planner and recovery (private to installer/).
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/parallel_for.hpp"
#include "envfix/installer/journal.hpp"
#include "envfix/installer/transaction.hpp"
#include "path_under.hpp"

namespace envfix::installer::tx {

namespace stdfs = std::filesystem;

struct Area {
    stdfs::path root;   // the folder files go under
    stdfs::path stage;  // root/.envfix-tx-<id>: new/ and old/ inside
    stdfs::path::string_type prefix;  // root, normalised, with one trailing separator (area_for)
    stdfs::path::string_type new_text(const std::string& rel) const { return join_generic_text(stage, "new/" + rel); }
    stdfs::path new_path(const std::string& rel) const { return stdfs::path(new_text(rel)); }
    stdfs::path old_path(const std::string& rel) const { return stage / "old" / stdfs::path(rel); }
    stdfs::path dest(const std::string& rel) const { return root / stdfs::path(rel); }
    // The staging folder's side ("new/" or "old/") of `rel`, relative to the root.
    std::string stage_rel(std::string_view side, const std::string& rel) const {
        return stage.filename().string() + "/" + std::string(side) + rel;
    }
};

std::string stage_dir_name(const std::string& id);  // ".envfix-tx-<id>"
std::vector<Area> make_areas(const std::vector<std::string>& roots, const std::string& id);

// The deepest area holding `p` (lexically) and p's path inside it; nullptr when none does, or
// when `p` is an area root or lies in a staging folder.
const Area* area_for(const std::vector<Area>& areas, const stdfs::path& p, std::string* rel);
const Area* area_for(const std::vector<Area>& areas, const stdfs::path::string_type& p, std::string* rel);

bool lexists(const stdfs::path& p);

// Makes the folders that files (area, '/'-separated path in it) need in the area's staging
// folder, under new/ (the files staged) or old/ (the files moved out), parents first.
enum class Side { New, Old };
Expected<void> make_folders(const std::vector<Area>& areas, const std::vector<std::pair<size_t, std::string>>& files, Side side);

stdfs::path journal_file(const stdfs::path& state_dir, const std::string& id);
Expected<void> write_journal(const stdfs::path& state_dir, const Journal& j);

// The moves that turn the environment into the new one (move_plan.cpp): whole folders where
// every file in them goes, or where a new folder comes in whole.
Expected<std::vector<JournalOp>> plan_moves(const std::vector<Area>& areas, const std::vector<stdfs::path::string_type>& remove,
                                            const std::vector<stdfs::path::string_type>& add);

// One journal operation forwards or backwards; `done` tells from the disk whether it happened.
bool op_done(const std::vector<Area>& areas, const JournalOp& op);
Expected<void> op_forward(const std::vector<Area>& areas, const JournalOp& op);
Expected<void> op_backward(const std::vector<Area>& areas, const JournalOp& op);
// Before any move: no running program has a file the moves take out loaded (Windows; Locked,
// "install.files_in_use", naming the program, its process and the first such file).
Expected<void> check_not_held(const std::vector<Area>& areas, const std::vector<JournalOp>& ops);
// Whether the operation's paths, at the area and in its staging folder, are reached without a
// link on the way: checked for every operation of a journal read back before any is acted on.
Expected<void> op_check(const std::vector<Area>& areas, const JournalOp& op);

// fn(0) ... fn(n - 1) on up to 16 threads kept for the process (envfix/common/parallel_for.hpp),
// one per `per_thread` items (for latency-bound file system work).
using envfix::parallel_for;
// Makes a transaction's moves durable, before its journal says "committed": the data of the
// files it brought in (`added`, at their destinations) and every folder a move went into or out
// of, file by file, where each area's filesystem allows that (fs::flushes_file_by_file); else,
// or when a flush fails, one flush per filesystem (syncfs). `also`: files written outside the
// moves (Transaction::flush_with_commit), made durable with them, their folders too.
// Fills stats' by_file, flushed_files, flushed_dirs, flush_seconds, write_back_seconds, durable.
void make_durable(const std::vector<Area>& areas, const std::vector<JournalOp>& ops, const std::vector<stdfs::path::string_type>& added,
                  const std::vector<stdfs::path>& also, CommitStats& stats);
// Removes the staging folders (backups included) of every area, in parallel.
void remove_stage_dirs(const std::vector<Area>& areas);
// Removes the journal file, and the state folder when nothing else is left in it. durable: the
// removal flushed (a journal that came back after a crash would be acted on again).
void remove_journal(const stdfs::path& state_dir, const std::string& id, bool durable = true);

}  // namespace envfix::installer::tx
