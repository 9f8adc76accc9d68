#pragma once
// The file operations content-addressed stores need, per platform (store_ops_posix.cpp /
// store_ops_win32.cpp): a file's identity and mode without following links, hard links that
// never replace, copies that keep the source's mtime (reflinked where the filesystem can), and
// setting a file's mtime.
#include <cstdint>
#include <filesystem>
#include <optional>

#include "envfix/common/error.hpp"

namespace envfix::installer::storeops {

struct FileStat {
    uint64_t device = 0;
    uint64_t inode = 0;   // Windows: the file index
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint32_t mode = 0;    // permission bits (07777); Windows: 0644, or 0444 when read-only
    uint32_t links = 0;
    bool regular = false;
    bool directory = false;
};

// lstat(): nullopt when the path does not exist or cannot be read.
std::optional<FileStat> stat_path(const std::filesystem::path& p);

// A hard link `to` of `from`; fails (errno-style exit codes, "fs.write_failed") when `to`
// exists. `cross_device` is set when the two are on different filesystems (or the filesystem has
// no hard links), so callers can copy instead.
Expected<void> hard_link(const std::filesystem::path& from, const std::filesystem::path& to, bool* cross_device = nullptr);

// The same two from native path strings: on POSIX without making a std::filesystem::path, which
// parses every component (a warm install links 17 000 files from the unpacked cache).
std::optional<FileStat> stat_text(const std::filesystem::path::string_type& p);

// What a folder holds: each entry's name (not "." or "..") and type as lstat() gives it, from
// the listing itself where the filesystem says (POSIX readdir's d_type: no stat per entry, and
// no std::filesystem::path made for each, which parses every part; a switch lists torch's
// 1 000 folders, and its staging's 17 000 old files are listed to be deleted). nullopt when the
// folder cannot be read.
struct FolderEntry {
    std::filesystem::path::string_type name;
    std::filesystem::file_type type = std::filesystem::file_type::unknown;
};
std::optional<std::vector<FolderEntry>> list_folder(const std::filesystem::path::string_type& dir);
// Removes a file or link (a `folder`: an empty folder) named by its native text; false when it
// could not.
bool remove_text(const std::filesystem::path::string_type& p, bool folder);

// lstat() of files named by a base folder and a '/'-separated path under it, given folder by
// folder: each folder opened once for the files in it, which are then looked up by their leaf
// (POSIX fstatat), not each walked from the root (a ready tree's 16 000 files, ~10 parts each,
// are looked at in every warm install). One per thread.
class FolderStats {
public:
    FolderStats() = default;
    ~FolderStats();
    FolderStats(const FolderStats&) = delete;
    FolderStats& operator=(const FolderStats&) = delete;
    std::optional<FileStat> stat(const std::filesystem::path& base, const std::string& rel);

private:
    const std::filesystem::path* base_ = nullptr;
    std::string folder_;  // the open folder's part of rel
    std::string leaf_;    // the leaf asked for (NUL-terminated for the system call)
    intptr_t handle_ = -1;
};
Expected<void> hard_link_text(const std::filesystem::path::string_type& from, const std::filesystem::path::string_type& to,
                              bool* cross_device = nullptr);

// A new file `to` (fails when it exists) with the bytes of `from`, mode `mode` and the mtime of
// `from`. Linux: copy_file_range, which reflinks on filesystems that share extents (btrfs, XFS).
Expected<void> copy_file(const std::filesystem::path& from, const std::filesystem::path& to, uint32_t mode);

Expected<void> set_mtime(const std::filesystem::path& p, int64_t mtime_ns);

}  // namespace envfix::installer::storeops
