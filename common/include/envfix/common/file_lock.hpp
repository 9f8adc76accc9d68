#pragma once
// The one exclusive lock between envfix processes, held for the object's lifetime and released by
// the system when its holder dies, so a crashed envfix never blocks the next one.
//
// Two kinds of target:
// - a lock file (created when missing; the holder writes its pid into it): caches, ready trees;
// - a folder, locked in place so that taking the lock writes nothing into it: an environment.
//   POSIX: flock() on the folder, the holder's pid read from /proc/locks on Linux. Windows:
//   LockFileEx cannot lock a folder, so a named mutex derived from the folder's lower-cased path.
//
//   auto lock = fs::FileLock::acquire(dir / ".lock", {});             // Locked (64) when held
//   auto env = fs::FileLock::acquire(root, {.target = FileLock::Target::Folder, .wait = true,
//                                          .on_wait = [&](const Message& m) { rep.info(m); }});
#include <filesystem>
#include <functional>
#include <string>

#include "envfix/common/error.hpp"

namespace envfix::fs {

// What a lock's failures say: callers speak of what the lock guards. Keys take {path} and {pid}
// ("?" where unknown), `failed` {path} and {reason}.
struct LockWords {
    std::string locked = "fs.locked";  // held elsewhere and not waiting: ExitCode::Locked
    std::string waiting = "fs.lock_waiting";
    std::string failed = "fs.lock_failed";
    std::string interrupted = "fs.lock_interrupted";  // Ctrl-C while waiting: ExitCode::Interrupted
    ExitCode unopenable = ExitCode::Internal;  // a folder target that cannot be opened
};

class FileLock {
public:
    enum class Target { File, Folder };
    struct Options {
        Target target = Target::File;
        bool wait = false;  // false: fail at once when held; true: tell on_wait, then block
        std::function<void(const Message&)> on_wait;
        LockWords words;
    };
    static Expected<FileLock> acquire(const std::filesystem::path& path, const Options& options);
    FileLock(FileLock&&) noexcept;
    FileLock& operator=(FileLock&&) noexcept;
    ~FileLock();

private:
    FileLock() = default;
    void release() noexcept;
    intptr_t handle_ = -1;
    Target target_ = Target::File;
};

}  // namespace envfix::fs
