// Paths inside a folder, reached without following links: POSIX (beneath.hpp).
#include "envfix/common/beneath.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#endif

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "envfix/common/fs.hpp"

namespace envfix::fs {

namespace {

namespace stdfs = std::filesystem;

class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Fd& operator=(Fd&& o) noexcept {
        std::swap(fd_, o.fd_);
        return *this;
    }
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

std::string_view parent_of(std::string_view rel) {
    const auto slash = rel.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : rel.substr(0, slash);
}
std::string_view leaf_of(std::string_view rel) {
    const auto slash = rel.rfind('/');
    return slash == std::string_view::npos ? rel : rel.substr(slash + 1);
}

// The folder root/`dir` opened (O_PATH) without following a link on the way, or -errno: ELOOP,
// EXDEV or ENOTDIR where a part is a link (or not a folder), ENOENT where one is missing.
int open_folder_beneath(int root_fd, std::string_view dir) {
    if (dir.empty()) {
        const int fd = ::fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
        return fd >= 0 ? fd : -errno;
    }
    const std::string d(dir);
#if defined(__linux__) && defined(SYS_openat2)
    static std::atomic<bool> no_openat2{false};
    if (!no_openat2.load(std::memory_order_relaxed)) {
        open_how how{};
        how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        const long fd = ::syscall(SYS_openat2, root_fd, d.c_str(), &how, sizeof how);
        if (fd >= 0) return static_cast<int>(fd);
        // Kernels before 5.6 (ENOSYS), and sandboxes that filter the call (EPERM): part by part.
        if (errno != ENOSYS && errno != EPERM) return -errno;
        no_openat2.store(true, std::memory_order_relaxed);
    }
#endif
    int fd = ::fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return -errno;
    size_t start = 0;
    while (start <= d.size()) {
        size_t end = d.find('/', start);
        if (end == std::string::npos) end = d.size();
        const std::string part = d.substr(start, end - start);
        const int next = ::openat(fd, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int err = errno;
        ::close(fd);
        if (next < 0) return -err;
        fd = next;
        start = end + 1;
    }
    return fd;
}

// The first part of `dir` under root that is a link, "" when none is.
std::string link_part(const stdfs::path& root, std::string_view dir) {
    std::string walked;
    size_t start = 0;
    while (start < dir.size()) {
        size_t end = std::min(dir.find('/', start), dir.size());
        walked = std::string(dir.substr(0, end));
        struct stat st {};
        if (::lstat((root / walked).c_str(), &st) != 0) return "";
        if (S_ISLNK(st.st_mode)) return walked;
        if (!S_ISDIR(st.st_mode)) return "";
        start = end + 1;
    }
    return "";
}

Unexpected<Error> link_error(const stdfs::path& root, std::string_view rel, const std::string& link) {
    return fail(ExitCode::UnsafeState, "fs.link_on_the_way",
                {{"path", (root / std::string(rel)).string()}, {"link", (root / link).string()}});
}

// Opens the folder holding root/`rel`; on failure the error to give (a link on the way named).
Expected<Fd> open_parent(const stdfs::path& root, int root_fd, std::string_view rel) {
    const auto dir = parent_of(rel);
    const int fd = open_folder_beneath(root_fd, dir);
    if (fd >= 0) return Fd(fd);
    const int err = -fd;
    if (auto link = link_part(root, dir); !link.empty()) return link_error(root, rel, link);
    if (err == ELOOP || err == EXDEV) return link_error(root, rel, std::string(dir));
    return fail(exit_code_for_errno(err), "fs.write_failed", {{"path", (root / std::string(rel)).string()}, {"reason", std::strerror(err)}});
}

}  // namespace

Expected<void> check_no_links(const stdfs::path& root, std::string_view rel) {
    const auto dir = parent_of(rel);
    if (dir.empty()) return {};
    if (auto link = link_part(root, dir); !link.empty()) return link_error(root, rel, link);
    return {};
}

Expected<void> move_beneath(const stdfs::path& root, std::string_view from, std::string_view to) {
    const Fd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (root_fd.get() < 0)
        return fail(exit_code_for_errno(errno), "fs.write_failed", {{"path", root.string()}, {"reason", std::strerror(errno)}});
    ENVFIX_TRY(auto from_dir, open_parent(root, root_fd.get(), from));
    ENVFIX_TRY(auto to_dir, open_parent(root, root_fd.get(), to));
    const std::string a(leaf_of(from)), b(leaf_of(to));
    auto write_error = [&](int err) {
        return fail(exit_code_for_errno(err), "fs.write_failed", {{"path", (root / std::string(to)).string()}, {"reason", std::strerror(err)}});
    };
#if defined(__linux__) && defined(RENAME_NOREPLACE)
    if (::renameat2(from_dir.get(), a.c_str(), to_dir.get(), b.c_str(), RENAME_NOREPLACE) == 0) return {};
    if (errno != EINVAL && errno != ENOSYS) return write_error(errno);
#endif
    // No RENAME_NOREPLACE here: check, then rename (envfix holds the environment's lock).
    struct stat st {};
    if (::fstatat(to_dir.get(), b.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return write_error(EEXIST);
    if (::renameat(from_dir.get(), a.c_str(), to_dir.get(), b.c_str()) != 0) return write_error(errno);
    return {};
}

}  // namespace envfix::fs
