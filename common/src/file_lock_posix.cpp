// flock() on a lock file or on a folder itself (file_lock.hpp).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "envfix/common/file_lock.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::fs {

namespace {

// /proc/locks: "1: FLOCK  ADVISORY  WRITE 12345 fd:01:1234567 0 EOF" -> the pid holding a lock
// on this inode, "" when none is listed (or not Linux).
std::string pid_from_proc_locks(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return "";
    std::ifstream in("/proc/locks");
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string n, kind, mode, access, pid, id;
        if (!(ss >> n >> kind)) continue;
        if (kind == "->") ss >> kind;  // a waiter's line
        if (!(ss >> mode >> access >> pid >> id) || kind != "FLOCK") continue;
        auto parts = str::split(id, ':');
        if (parts.size() != 3) continue;
        auto ino = str::to_int(parts[2]);
        if (ino && static_cast<uint64_t>(*ino) == static_cast<uint64_t>(st.st_ino) && std::to_string(::getpid()) != pid) return pid;
    }
    return "";
}

// The pid a lock file's holder wrote into it, "" when none.
std::string pid_written(int fd) {
    char buf[32] = {};
    if (::pread(fd, buf, sizeof buf - 1, 0) <= 0) return "";
    std::string s(buf);
    return s.substr(0, s.find('\n'));
}

Expected<void> block_until_locked(int fd, const std::filesystem::path& path, const LockWords& words) {
    while (::flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR && interrupt_requested()) return fail(ExitCode::Interrupted, words.interrupted, {{"path", path.string()}});
        if (errno == EINTR) continue;
        return fail(ExitCode::Internal, words.failed, {{"path", path.string()}, {"reason", std::strerror(errno)}});
    }
    return {};
}

Expected<void> lock(int fd, const std::filesystem::path& path, const FileLock::Options& o) {
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK)
            return fail(ExitCode::Internal, o.words.failed, {{"path", path.string()}, {"reason", std::strerror(errno)}});
        std::string pid = o.target == FileLock::Target::Folder ? pid_from_proc_locks(fd) : pid_written(fd);
        MessageArgs args{{"path", path.string()}, {"pid", pid.empty() ? "?" : pid}};
        if (!o.wait) return fail(ExitCode::Locked, o.words.locked, args);
        if (o.on_wait) o.on_wait(msg(o.words.waiting, args));
        return block_until_locked(fd, path, o.words);
    }
    return {};
}

}  // namespace

Expected<FileLock> FileLock::acquire(const std::filesystem::path& path, const Options& o) {
    const bool folder = o.target == Target::Folder;
    int fd = folder ? ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        return fail(folder ? o.words.unopenable : exit_code_for_errno(e), o.words.failed,
                    {{"path", path.string()}, {"reason", std::strerror(e)}});
    }
    if (auto locked = lock(fd, path, o); !locked) {
        ::close(fd);
        return unexpected(std::move(locked).error());
    }
    if (!folder) {  // so a process that finds it held can name the holder
        std::string pid = std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
    }
    FileLock l;
    l.handle_ = fd;
    l.target_ = o.target;
    return l;
}

void FileLock::release() noexcept {
    if (handle_ >= 0) ::close(static_cast<int>(handle_));  // closing releases the flock
    handle_ = -1;
}

}  // namespace envfix::fs
