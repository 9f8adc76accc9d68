#pragma once
// Snapshots of an environment and rolling back to them (issue 6; docs/snapshots.md).
//
// A snapshot records every distribution of the environment and every file their RECORDs list
// (path relative to the environment, sha256, size, mode), and keeps each file's bytes in a
// content-addressed store inside the environment, so a rollback needs neither network nor
// wheel cache. Everything lives in <environment>/.envfix/ (state_dir()): on the environment's
// own filesystem, so the store takes files by hard link (~0.1 s for torch's 17 000 files) and a
// rollback puts them back by hard link; a copy where the filesystem has no hard links.
//
//   <env>/.envfix/snapshots/<id>.snap        one snapshot (format snapshot_to_text(), version 1)
//   <env>/.envfix/store/v1/<aa>/<sha256>     file contents, shared by every snapshot
//   <env>/.envfix/store/v1/identities        path -> (device, inode, size, mtime, sha256)
//
// Hashes: a file whose identity (device, inode, size, mtime) is the one recorded last time keeps
// its hash; a file of a distribution envfix installed keeps its RECORD hash (checked while it
// was written) when its size agrees and it is not newer than the RECORD; anything else is
// hashed. So only files that changed since the last snapshot, or other installers' files the
// first time, are read.
//
// Callers hold the environment's lock (env_lock.hpp) for take_snapshot(); rollback() and
// gc_snapshots() take it themselves.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/transaction.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::installer {

struct SnapshotFile {
    std::string path;   // relative to the environment's root, "/"-separated
    std::string sha256; // lower-case hex
    uint64_t size = 0;
    uint32_t mode = 0644;
    bool operator==(const SnapshotFile&) const = default;
};

struct SnapshotDist {
    std::string name;
    std::string version;
    std::string dist_info;  // relative to the environment's root
    bool operator==(const SnapshotDist&) const = default;
};

struct Snapshot {
    static constexpr int kVersion = 1;
    std::string id;       // "1", "2", ...: increasing per environment
    std::string created;  // "2026-11-29T18:40:00Z"
    std::string name;     // `envfix snapshot --name`; "" otherwise
    std::string reason;   // why it was taken: the change that followed ("install torch 2.11.0+cu128")
    std::string root;     // the environment's folder when it was taken
    std::vector<SnapshotDist> dists;   // sorted by name
    std::vector<SnapshotFile> files;   // sorted by path
    uint64_t bytes() const;
    bool same_content(const Snapshot& other) const { return files == other.files; }
};

// A snapshot's header alone: what `history` lists, without its file lines (17 000 for a torch
// stack, in every snapshot).
struct SnapshotHead {
    std::string id, created, name, reason, root;
    std::vector<SnapshotDist> dists;
    size_t files = 0;
    std::optional<uint64_t> bytes;  // absent from snapshots written before the header held it
    std::string file_id;            // its file's name without ".snap" (list_snapshot_heads): the id, unless renamed
};

// Pure. The first line is a JSON header (version, id, created, name, reason, root, files, bytes,
// dists); then one line per file: "<sha256> <size> <mode, octal> <path, percent-encoded>".
std::string snapshot_to_text(const Snapshot& s);
// Errors: BadInput "snapshot.invalid" naming `source` (another version, bad header, bad line).
Expected<Snapshot> parse_snapshot(std::string_view text, std::string_view source);
Expected<SnapshotHead> parse_snapshot_head(std::string_view line, std::string_view source);  // the header line alone

std::filesystem::path snapshots_dir(const std::filesystem::path& env_root);  // <env>/.envfix/snapshots
std::filesystem::path snapshot_store_dir(const std::filesystem::path& env_root);  // <env>/.envfix/store/v1

struct SnapshotStats {
    size_t files = 0;
    size_t hashed = 0;   // read and hashed
    size_t stored = 0;   // new in the store (linked or copied)
    size_t copied = 0;   // of those, copied (no hard links there)
    double seconds = 0;
};

// Records the environment as it is now and stores its files' bytes; writes the snapshot.
// Caller holds the lock. Errors: the files' (BadInput fs.read_failed, DiskFull, PermissionDenied),
// NoRecord-free: distributions without RECORD are listed with no files (and a warning).
Expected<Snapshot> take_snapshot(const probe::Environment& env, std::string reason, std::string name, Reporter& reporter,
                                 SnapshotStats* stats = nullptr);

// Removes one snapshot file (its stored files stay until gc_snapshots): install() drops the
// snapshot it took when its transaction fails.
void forget_snapshot(const std::filesystem::path& env_root, const std::string& id);

// The snapshots' ids, oldest first, from their files' names (none read).
std::vector<std::string> snapshot_ids(const std::filesystem::path& env_root);
// One snapshot. Errors: its file's read errors, parse_snapshot's.
Expected<Snapshot> read_snapshot(const std::filesystem::path& env_root, const std::string& id);
// Every snapshot's header, oldest first, each file's first line alone read; one that cannot be
// read is skipped with a warning (damage further in is found when the snapshot is read whole).
std::vector<SnapshotHead> list_snapshot_heads(const std::filesystem::path& env_root, Reporter& reporter);
// Every snapshot, oldest first. Unreadable ones are skipped with a warning.
std::vector<Snapshot> list_snapshots(const std::filesystem::path& env_root, Reporter& reporter);
// By id or name. Errors: NoSnapshot 66 "snapshot.not_found".
Expected<Snapshot> find_snapshot(const std::filesystem::path& env_root, std::string_view id_or_name, Reporter& reporter);

struct RollbackRequest {
    std::string target;        // id or name; "" = the newest snapshot that differs from now
    bool dry_run = false;
    bool wait_for_lock = false;
};

struct RollbackResult {
    std::string to;            // the snapshot restored
    std::string before;        // the snapshot taken first (undo with `rollback <before>`)
    std::vector<SnapshotDist> dists_in, dists_out;  // distributions that come back / go
    size_t files_in = 0, files_out = 0, files_unchanged = 0;
    std::string transaction;   // "" when nothing changed
    std::vector<RecoveryOutcome> recovered;
    double seconds = 0, seconds_snapshot = 0, seconds_moving = 0;
};

// Restores a snapshot as one transaction (journal, recovery after a crash) after taking a
// snapshot of the present, so a rollback can itself be rolled back. Files no snapshot
// distribution lists (user files, caches) are left alone; bytecode of removed .py files goes.
// Errors: NoSnapshot 66, Locked 64, BadInput "snapshot.object_missing" / "snapshot.object_damaged"
// (the store lost or changed a file), the transaction's.
Expected<RollbackResult> rollback(const probe::Environment& env, const RollbackRequest& request, Reporter& reporter);

// Like rollback() for a caller that already holds the lock (the install path's verify hook: put
// back the snapshot taken before this install).
Expected<RollbackResult> rollback_locked(const probe::Environment& env, const RollbackRequest& request, Reporter& reporter);

// The verify hook's way back: restores the snapshot install() took before `installed` changed
// the environment (NoSnapshot when it took none). Takes the lock.
struct InstallResult;
Expected<RollbackResult> restore_before_install(const probe::Environment& env, const InstallResult& installed, Reporter& reporter);

struct GcResult {
    std::vector<std::string> removed;  // snapshot ids
    size_t objects_removed = 0;
    uint64_t bytes_freed = 0;
};
// Keeps the newest `keep` snapshots and every named one; removes store objects no kept
// snapshot references. Takes the lock.
Expected<GcResult> gc_snapshots(const probe::Environment& env, size_t keep, bool wait_for_lock, Reporter& reporter);

}  // namespace envfix::installer
