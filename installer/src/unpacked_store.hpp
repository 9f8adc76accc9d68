#pragma once
// What install() uses of the unpacked-wheel cache (envfix/installer/unpacked_cache.hpp).
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/installer/wheel.hpp"

namespace envfix::installer::unpacked {

// The cache's folder for its present layout (v2/), and a random name for a folder made there.
std::filesystem::path layout_dir(const std::filesystem::path& root);
std::string unique_name();
void remove_tree(const std::filesystem::path& p);  // best effort

// The wheel's sha256 without reading it: from the wheel cache's folder name, or from the key
// recorded for this local file while its size, mtime and inode are unchanged.
std::optional<std::string> known_sha256(const std::filesystem::path& root, const WheelFile& wheel);
std::optional<std::string> known_sha256(const std::filesystem::path& root, const std::filesystem::path& wheel_file);

// The wheel's directory kept under its sha256 (wheel_directory.hpp), for `wheel_file` (which
// must bear the name it was kept under); nullopt when none is kept or it does not decode.
std::optional<WheelFile> load_directory(const std::filesystem::path& root, const std::string& sha256,
                                        const std::filesystem::path& wheel_file);
// Keeps the directory of a wheel opened from its archive (best effort: the cache is only an
// optimisation; a file another process writes at once is the same bytes).
void keep_directory(const std::filesystem::path& root, const std::string& sha256, const WheelFile& wheel);
// Records the sha256 of a local wheel file (best effort: the cache is only an optimisation).
void remember_sha256(const std::filesystem::path& root, const WheelFile& wheel, const std::string& sha256);

// The entry of this wheel when its marker is valid and counts `files` files.
std::optional<std::filesystem::path> find_entry(const std::filesystem::path& root, const std::string& sha256, size_t files);
// When every file of the entry was known to be on the disk: a commit that brought them all in as
// hard links made them durable, then marked the entry (mark_on_disk); the mark's mtime (ns).
// An install linking a file from such an entry does not write its data back again when the file
// is unchanged since (its mtime not later: an edit in place through an environment's link makes
// it later), only the folders' entries and the journal commit (on the GPU machine about 0.1 s of
// a warm install's 17 000 links). nullopt: not marked.
std::optional<int64_t> entry_on_disk_since(const std::filesystem::path& entry);
// When the entry was made: its marker's mtime (ns), written after every file. A file of the entry
// modified later was edited in place through an environment that shares its inode, and is not
// linked into another (StageItem::made_before_ns). nullopt: no marker.
std::optional<int64_t> entry_made_at(const std::filesystem::path& entry);
// An entry's file found modified after the entry was made (an edit in place through an
// environment that shares its inode) replaced by `fresh` (a file just inflated from the wheel and
// checked: hard-linked, or copied across filesystems), given the entry's made time as its mtime,
// and the entry's on-disk mark removed (the fresh bytes are not yet known to be on the disk; the
// next commit that brings every file in marks it again). Best effort, as the cache.
void repair_entry_file(const std::filesystem::path& entry_file, const std::filesystem::path::string_type& fresh, int64_t made_ns);
// Marks the entry so, once a commit's flush succeeded for every one of its files, when the entry
// is still the one `seen` at its lookup (another process may have replaced it meanwhile: its
// files would not be those the commit flushed). Best effort: an entry left unmarked is only
// written back again by the next install.
void mark_on_disk(const std::filesystem::path& entry, const fs::FileIdentity& seen);
// Whether the entry of this wheel is there with a valid marker, whatever its file count.
bool has_entry(const std::filesystem::path& root, const std::string& sha256);
// Removes the entry (--force-reinstall: its files share inodes with installs, which a user may
// have edited in place), so the next add_entry makes it afresh.
void drop_entry(const std::filesystem::path& root, const std::string& sha256);
std::filesystem::path entry_file(const std::filesystem::path& entry, size_t zip_entry);

// Makes the entry from staged, verified files: (zip entry, staged path; the caller's, not a
// copy: torch's 13 000 paths would be 9 MB more at the install's memory peak). Hard links,
// copies across filesystems; renamed into place whole. Fails without leaving anything behind.
// Returns the entry's folder as this call put it in place when every file is a hard link of its
// staged file (the install's commit then makes the entry durable: mark_on_disk), else nullopt.
Expected<std::optional<fs::FileIdentity>> add_entry(const std::filesystem::path& root, const std::string& sha256,
                         const std::vector<std::pair<size_t, const std::filesystem::path::string_type*>>& files);

// Removes what processes killed while making an entry left under tmp/: folders unchanged for
// `older_than` (no entry takes that long to make). Returns how many went.
size_t sweep_tmp(const std::filesystem::path& root, std::chrono::seconds older_than);

// An entry being made: a new folder under tmp/ with its empty f/, then sealed (its marker
// written, renamed into place whole; removed when that fails or another process was quicker).
Expected<std::filesystem::path> begin_entry(const std::filesystem::path& root, const std::string& sha256);
// true: this folder became the entry (false: another process's was there first).
Expected<bool> seal_entry(const std::filesystem::path& root, const std::filesystem::path& tmp, const std::string& sha256,
                          size_t files);

}  // namespace envfix::installer::unpacked
