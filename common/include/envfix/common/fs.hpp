#pragma once
// File helpers every layer shares. Every write of a file envfix owns goes through
// write_file_atomic (temp file beside it, fsync unless it is a cache's, rename).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::fs {

namespace stdfs = std::filesystem;

// Errors carry ExitCode::BadInput (not found, unreadable, more than `at_most` bytes: a file read
// back from an environment made elsewhere may be any size) with key "fs.read_failed".
Expected<std::string> read_file(const stdfs::path& p, uint64_t at_most = UINT64_MAX);
// How durable a write is. Durable: flushed to disk before the rename (and the rename after it).
// Cache: the rename only, for cache files checked when read (a file a crash lost or cut short is
// a miss): an fsync while an install writes gigabytes waits for ext4's journal commit, and with
// it for the data of every file whose write-back had begun.
enum class Sync { Durable, Cache };
// ExitCode::DiskFull / PermissionDenied / Internal with key "fs.write_failed".
Expected<void> write_file_atomic(const stdfs::path& p, std::string_view data, Sync sync = Sync::Durable);
// fsync a directory so a rename inside it is durable (no-op where unsupported). false: the fsync
// failed (a folder that is not there is not an error).
bool sync_dir(const stdfs::path& dir);
// Makes everything written under these folders durable: syncfs() once per filesystem on Linux
// (sync() elsewhere on POSIX). false: a flush reported an error, or this system has no such
// flush (Windows: callers flush each file on its own instead).
bool sync_filesystems(const std::vector<stdfs::path>& dirs);
// Whether making a change durable file by file may be relied on where `dir` lies: the filesystem's
// journal commits every earlier metadata change at once (Linux: ext4, XFS), so the fdatasync of
// the files a change wrote and the fsync of the folders it renamed into leave no other entry of
// it behind (a snapshot's links, an unpacked-wheel cache entry). Elsewhere: false (a filesystem
// such as btrfs logs each file on its own; callers flush the whole filesystem instead).
bool flushes_file_by_file(const stdfs::path& dir);
// Writes these files' dirty data to the disk and waits until the disk has it, possibly in its
// cache: every file's write-back started, then each waited for (Linux's sync_file_range; each
// opened once, a symbolic link not followed). No flush of the disk's cache and no metadata: the
// journal commit of a flushes_file_by_file() filesystem that follows does both. false when one
// failed (an I/O error); a file that is not there is not an error; false elsewhere than Linux.
bool write_back_and_wait(std::span<const stdfs::path::string_type> files);
// Commits the journal of `dir`'s filesystem as it is now, with every change made before, and
// flushes the disk's cache: a new empty file made in `dir` (".envfix-durable-<pid>"), fsynced and
// removed. A folder's fsync does not do that where the folder's last change was already committed.
// false when it failed; false on Windows.
bool commit_filesystem(const stdfs::path& dir);
// Maps an errno-style error code of a failed write to the exit code users see.
ExitCode exit_code_for_errno(int err);

// Read-only memory map of a whole file (empty files map to an empty view).
class MappedFile {
public:
    static Expected<MappedFile> open(const stdfs::path& p);
    MappedFile(MappedFile&&) noexcept;
    MappedFile& operator=(MappedFile&&) noexcept;
    ~MappedFile();
    std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
    size_t size() const { return size_; }
    // Scattered: only small pieces far apart will be read (headers walked one to the next), so
    // each first touch reads its own page from the disk instead of a read-ahead window around it
    // (Linux: MADV_RANDOM), except on a disk that says it rotates, where a seek costs more than
    // the bytes skipped (ENVFIX_SCATTERED_READS overrides). Ahead: the system's read-ahead again.
    // No effect where the system has no such hint (Windows).
    enum class Reads { Ahead, Scattered };
    void expect_reads(Reads how);
    // These bytes will be read soon: their pages are fetched from the disk now, in one request,
    // without waiting (Linux: MADV_WILLNEED). No effect elsewhere or past the end.
    void will_need(uint64_t offset, uint64_t length);

private:
    MappedFile() = default;
    void reset();
    const void* data_ = nullptr;
    size_t size_ = 0;
    void* handle_ = nullptr;  // platform handle (Windows mapping)
    uint64_t device_ = 0;     // the file's device (POSIX st_dev)
};

// Cheap identity of a file's content: a cache keyed by it is invalidated by any change
// that touches size or mtime, or replaces the file.
struct FileIdentity {
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    bool operator==(const FileIdentity&) const = default;
    std::string to_string() const;  // "dev:ino:size:mtime"
};
std::optional<FileIdentity> identity(const stdfs::path& p);

// User directories (XDG on POSIX, %LOCALAPPDATA% / %APPDATA% on Windows), each overridable.
stdfs::path cache_dir();   // ENVFIX_CACHE_DIR, else $XDG_CACHE_HOME/envfix, else ~/.cache/envfix
stdfs::path config_dir();  // ENVFIX_CONFIG_DIR, else $XDG_CONFIG_HOME/envfix, else ~/.config/envfix
stdfs::path data_dir();    // ENVFIX_DATA_DIR, else $XDG_DATA_HOME/envfix, else ~/.local/share/envfix
std::optional<stdfs::path> home_dir();

// A unique temporary path beside `target` (same directory, so a rename is atomic).
stdfs::path temp_path_beside(const stdfs::path& target);

}  // namespace envfix::fs
