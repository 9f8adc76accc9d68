#pragma once
// The file operations a transaction needs, per platform (file_ops_posix.cpp / _win32.cpp):
// creating staged files with pip's modes, flushing whole
// filesystems once instead of every file, and killing the process for fault injection.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::installer::fileops {

// How a new file's permissions are set (POSIX; Windows ignores them), as pip does:
enum class FileMode {
    Regular,     // 0666 & ~umask
    Executable,  // (0777 & ~umask) | 0111: an entry with x bits in the archive
    Launcher,    // (0666 & ~umask) | 0555: distlib's entry-point scripts
};

// A file being written. Errors carry DiskFull / PermissionDenied / Internal with
// "fs.write_failed" naming the file.
class OutFile {
public:
    // Fails when the file exists.
    static Expected<OutFile> create(const std::filesystem::path& p);
    OutFile(OutFile&&) noexcept;
    OutFile& operator=(OutFile&&) noexcept;
    ~OutFile();  // closes; a file not finished is removed
    // Linux: a large file's write-back is started every 32 MiB as it is written, by a thread of
    // its own (sync_file_range waits while the disk's queue is full), so the disk writes it as it
    // comes and the flush before the commit finds little left.
    Expected<void> write(std::string_view data);
    // Sets the mode and closes. Linux starts the write-back of the rest of a file of 1 MiB or more
    // (on that same thread, without waiting here), and of a smaller one too with `write_back_now`
    // (the few files an install writes itself: RECORD, INSTALLER, launchers, which every install
    // must flush before its commit, and which then are on the disk or nearly); Windows flushes the
    // file to disk, since it cannot flush a whole volume without administrator rights.
    Expected<void> finish(FileMode mode, bool write_back_now = false);

private:
    OutFile() = default;
    std::filesystem::path path_;
    intptr_t handle_ = -1;
    uint64_t written_ = 0;  // bytes written, and of them those whose write-back was started
    uint64_t started_ = 0;
};

// A file read at offsets, by several threads at once (pread; ReadFile with an offset). Errors:
// "fs.read_failed" naming the file. Opened for others to write, rename and delete meanwhile.
class InFile {
public:
    static Expected<InFile> open(const std::filesystem::path& p);
    InFile(InFile&&) noexcept;
    InFile& operator=(InFile&&) noexcept;
    ~InFile();
    // Up to n bytes at `offset`; fewer only where the file ends.
    Expected<size_t> read_at(uint64_t offset, char* into, size_t n) const;
    // The kernel reads only what is asked (POSIX_FADV_RANDOM): read-ahead in a file still being
    // written fetches pages its writer is about to fill.
    void no_read_ahead() const;

private:
    InFile() = default;
    std::filesystem::path path_;
    intptr_t handle_ = -1;
};

// Whether a file another thread holds open for reading may be renamed: POSIX yes; Windows no
// (std::ifstream opens without FILE_SHARE_DELETE). Inflating a wheel while it downloads reads
// its .part, which the downloader renames into place once it is checked.
bool open_files_can_be_renamed();

// Free bytes for an unprivileged writer on the filesystem holding `dir`; nullopt when unknown.
std::optional<uint64_t> free_space(const std::filesystem::path& dir);

// Asks the filesystem to place each new folder made directly in `dir` in a block group of its
// own (ext4's "top of a hierarchy" flag, chattr +T; its subfolders and files then stay near it).
// ext4 without a journal skips, one by one, every inode freed in the last minute before it reuses
// one, for each new inode: after a deleted venv or cache of 17 000 files, the 981 folders of a
// torch stack took 0.2-0.3 s where it has freed them, 20-25 ms in a group of their own. Best
// effort: a no-op on other filesystems and systems.
void spread_new_folders(const std::filesystem::path& dir);

// The process's file-creation mask (POSIX), read once before worker threads start.
uint32_t umask_value();

[[noreturn]] void kill_self();

long long process_id();
// UTC now: "2026-11-29T16:40:00Z", or compact "20261129T164000Z" for names.
std::string utc_timestamp(bool compact);

}  // namespace envfix::installer::fileops
