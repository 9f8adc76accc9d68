// flock() on the environment's folder (env_lock.hpp).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/env_lock.hpp"

namespace envfix::installer {

namespace {

// /proc/locks: "1: FLOCK  ADVISORY  WRITE 12345 fd:01:1234567 0 EOF" -> the pid holding a lock
// on this inode, "" when none is listed (or not Linux).
std::string holder_pid(int fd) {
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
        if (ino && static_cast<uint64_t>(*ino) == static_cast<uint64_t>(st.st_ino) &&
            std::to_string(::getpid()) != pid)
            return pid;
    }
    return "";
}

}  // namespace

Expected<EnvLock> EnvLock::acquire(const std::filesystem::path& root, bool wait, Reporter& reporter) {
    int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return fail(ExitCode::EnvNotFound, "install.lock_failed", {{"path", root.string()}, {"reason", std::strerror(errno)}});
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        int e = errno;
        if (e != EWOULDBLOCK) {
            ::close(fd);
            return fail(ExitCode::Internal, "install.lock_failed", {{"path", root.string()}, {"reason", std::strerror(e)}});
        }
        std::string pid = holder_pid(fd);
        if (!wait) {
            ::close(fd);
            return fail(ExitCode::Locked, "install.locked", {{"path", root.string()}, {"pid", pid.empty() ? "?" : pid}});
        }
        reporter.info(msg("install.lock_waiting", {{"path", root.string()}, {"pid", pid.empty() ? "?" : pid}}));
        while (::flock(fd, LOCK_EX) != 0) {
            if (errno == EINTR && interrupt_requested()) {  // Ctrl-C while waiting
                ::close(fd);
                return fail(ExitCode::Interrupted, "install.interrupted");
            }
            if (errno == EINTR) continue;
            int e2 = errno;
            ::close(fd);
            return fail(ExitCode::Internal, "install.lock_failed", {{"path", root.string()}, {"reason", std::strerror(e2)}});
        }
        break;
    }
    EnvLock l;
    l.handle_ = fd;
    return l;
}

EnvLock::EnvLock(EnvLock&& o) noexcept : handle_(o.handle_) { o.handle_ = -1; }
EnvLock& EnvLock::operator=(EnvLock&& o) noexcept {
    if (this != &o) {
        if (handle_ >= 0) ::close(static_cast<int>(handle_));
        handle_ = o.handle_;
        o.handle_ = -1;
    }
    return *this;
}
EnvLock::~EnvLock() {
    if (handle_ >= 0) ::close(static_cast<int>(handle_));  // closing releases the flock
}

}  // namespace envfix::installer
