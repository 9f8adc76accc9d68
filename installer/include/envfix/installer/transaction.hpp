#pragma once
// A change to an environment that happens entirely or not at all, even across a crash,
// `kill -9` or a power cut. Files are staged beside their destinations (same filesystem), a
// journal of what will move is made durable, then everything moves by rename — whole folders
// where a package folder is new or goes entirely — then the new files and the renames are made
// durable (each file and folder on ext4 and XFS, one flush per filesystem elsewhere), the journal is marked committed, the backups are deleted and
// the journal is removed last. The next envfix run on the environment (recover_transactions)
// undoes a transaction whose journal says "prepared" (it was moving, and its new bytes may not
// be on disk), and cleans up one that was still staging or had committed.
// docs/install.md#transactions.
//
//   auto tx = Transaction::begin(state_dir(env.root), {purelib, scripts, prefix}, "install pip 24.2");
//   tx->make_stage_dirs(dests);  write each file at tx->stage_path(dest)
//   tx->prepare(files_to_remove, dests);   // journal durable
//   tx->commit();                          // moves; on failure everything moves back
//
// The caller holds the environment's lock (env_lock.hpp) throughout.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/journal.hpp"

namespace envfix::installer {

// <environment root>/.envfix: journals live here; created by a transaction, removed when none
// remains.
std::filesystem::path state_dir(const std::filesystem::path& env_root);
// Whether that folder, and the folders envfix keeps in it (snapshots, the store), are real
// folders where they exist, not links: an environment made elsewhere could point them outside.
// Errors: UnsafeState "env.state_link". Checked before anything is written there.
Expected<void> check_state_dir(const std::filesystem::path& env_root);

struct CommitStats {
    size_t moved_out = 0;     // files or folders moved out
    size_t moved_in = 0;      // files or folders moved in
    double move_seconds = 0;  // the window in which the environment is between old and new
    // How the moves were made durable: the files brought in and the folders changed, one by one
    // (flushed_files, flushed_dirs), or their whole filesystems (by_file false).
    bool by_file = false;
    size_t flushed_files = 0;
    size_t flushed_dirs = 0;
    // Files brought in whose data was on the disk already (prepare's `on_disk`): not written back.
    size_t on_disk_files = 0;
    double flush_seconds = 0;
    double write_back_seconds = 0;  // of flush_seconds, the files' data (by_file)
    // Every flush reported success: the files brought in are on the disk. false after an I/O
    // error in the flush (the moves stand; the caller must not record them as durable).
    bool durable = false;
};

class Transaction {
public:
    // Writes the "staging" journal naming every area (a missing area folder is replaced by its
    // nearest existing parent). Errors: PermissionDenied / DiskFull / Internal ("fs.write_failed");
    // UnsafeState "install.area_outside" for an area that, its links followed, lies outside the
    // environment (the folder holding `state_dir`).
    static Expected<Transaction> begin(const std::filesystem::path& state_dir, const std::vector<std::filesystem::path>& areas,
                                       std::string summary);
    // The same with the journal written on a thread of its own: its two flushes (the file, its
    // folder) happen while the caller plans on. begun() waits for them and returns the write's
    // error; nothing may be staged before it (the journal is on the disk first). A transaction
    // destroyed or aborted first waits for the write, then removes the journal.
    static Expected<Transaction> begin_beside(const std::filesystem::path& state_dir, const std::vector<std::filesystem::path>& areas,
                                              std::string summary);
    Expected<void> begun();
    // The summary the prepared journal gives (begin_beside's caller may know it in full only later).
    void set_summary(std::string summary);
    Transaction(Transaction&&) noexcept;
    Transaction& operator=(Transaction&&) noexcept;
    ~Transaction();  // aborts a transaction neither committed nor aborted

    const std::string& id() const;
    // Where the new content of `dest` goes; "" when `dest` is in no area.
    std::filesystem::path stage_path(const std::filesystem::path& dest) const;
    // The same as native text (an install asks for 17 000: no path made for each).
    std::filesystem::path::string_type stage_path(const std::filesystem::path::string_type& dest) const;
    // Creates the staged files' parent folders. The files may be given by address, as native
    // text (an install's 17 000 are its plans' paths: copies would add to its memory peak).
    Expected<void> make_stage_dirs(const std::vector<const std::filesystem::path::string_type*>& dests);
    Expected<void> make_stage_dirs(const std::vector<std::filesystem::path>& dests);
    // Plans the moves against the environment as it is (files of `remove` that exist go out;
    // every staged `add` comes in, replacing what is there), flushes the staged data and
    // writes the "prepared" journal. Errors: EnvInconsistent "install.path_conflict_folder"
    // (a file where a folder is needed) or "install.path_conflict_file" (the reverse), Internal for paths outside every area.
    // The files may be given as native strings (an install's 17 000 new ones: the plans they come
    // from are freed before this; a switch's 17 000 old ones: held while the unpacking runs
    // beside; a path's components cost 0.6 KB each).
    // `on_disk`, empty or one per file of `add`: non-zero where the staged file is a hard link of
    // one whose data an earlier commit made durable (an unpacked-cache entry marked so): its data
    // is not written back again, only its folder's entry and the journal commit are needed.
    Expected<void> prepare(const std::vector<std::filesystem::path::string_type>& remove,
                           const std::vector<std::filesystem::path::string_type>& add, const std::vector<char>& on_disk = {});
    Expected<void> prepare(const std::vector<std::filesystem::path>& remove, const std::vector<std::filesystem::path>& add);
    // prepare() in two halves, for an install that plans its moves on another thread while it
    // stages (they read the environment, which the lock keeps as it is, not the staged files):
    // plan() only reads (safe beside staging), prepare_planned() does the rest with its result.
    Expected<std::vector<JournalOp>> plan(const std::vector<std::filesystem::path::string_type>& remove,
                                          const std::vector<std::filesystem::path::string_type>& add) const;
    Expected<void> prepare_planned(std::vector<JournalOp> ops, const std::vector<std::filesystem::path::string_type>& add,
                                   const std::vector<char>& on_disk = {});
    // Files written outside the moves (an install's snapshot of the environment before it) that
    // must be durable once the moves are: flushed with them by apply(), in the same journal
    // commit, instead of an fsync of their own (and of their folder) before.
    void flush_with_commit(std::vector<std::filesystem::path> files);
    // Performs the moves. On a failure or Ctrl-C every move done is undone and the error (or
    // Interrupted, "install.interrupted") returned; the environment is as before.
    // commit() is apply() then finish().
    Expected<CommitStats> commit();
    // For a change that is checked before it is final (install's verification, verify.hpp):
    // apply() moves and flushes like commit() but leaves the journal "prepared" and the backups
    // in place, so until finish() or revert() a crash or kill gives the old environment back
    // (recovery undoes a prepared journal). finish() makes it final (journal "committed",
    // backups deleted); revert() moves everything back, newest first, and cleans up: the
    // environment is the old one, byte for byte. A move back that fails keeps the journal for
    // `envfix recover` ("install.undo_failed"). An applied transaction destroyed without either
    // is reverted.
    Expected<CommitStats> apply();
    Expected<void> finish();
    Expected<void> revert();
    // Before commit: drops the staged files and the journal.
    void abort();
    const std::vector<JournalOp>& ops() const;

private:
    static Expected<Transaction> begin_journal(const std::filesystem::path& state_dir, const std::vector<std::filesystem::path>& areas,
                                               std::string summary, bool beside);
    Transaction();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct RecoveryOutcome {
    enum class Action {
        RolledBack,  // it was moving: the moves done were undone (the environment is the old one)
        Cleaned,     // it was staging: nothing had moved; its staged files were removed
        Finished,    // it had committed (the environment is the new one): its backups were removed
    };
    std::string id;
    std::string summary;
    Action action = Action::Cleaned;
};
std::string_view recovery_action_name(RecoveryOutcome::Action a);  // "rolled-back", "cleaned", "finished"

// Whether `state_dir` holds a journal (a transaction was interrupted).
bool has_pending_transactions(const std::filesystem::path& state_dir);
// Undoes or cleans up every interrupted transaction of the environment at `env_root`, oldest
// first; the caller holds the lock. A journal is read as input from outside (the environment
// may have come from someone else): its areas must be the environment's own (`areas`, from
// environment_areas(), or a folder above one of them inside the root, as begin() writes for an
// area not made yet), and no operation may reach its file through a link. Errors:
// "journal.invalid" (BadInput) for a journal envfix cannot read; "journal.foreign_area" or
// "fs.link_on_the_way" (UnsafeState) for one that names anything else, found before any journal
// is acted on; the file errors of a move back that fails. A refused journal is left in place.
Expected<std::vector<RecoveryOutcome>> recover_transactions(const std::filesystem::path& env_root,
                                                            const std::vector<std::filesystem::path>& areas, Reporter& reporter);

}  // namespace envfix::installer
