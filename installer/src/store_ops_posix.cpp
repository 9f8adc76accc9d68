// POSIX file operations of the content-addressed stores (store_ops.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "envfix/common/fs.hpp"
#include "store_ops.hpp"

namespace envfix::installer::storeops {

namespace {

Unexpected<Error> write_error(const std::filesystem::path& p, int err) {
    return fail(fs::exit_code_for_errno(err), "fs.write_failed", {{"path", p.string()}, {"reason", std::strerror(err)}});
}

int64_t mtime_of(const struct stat& st) {
#ifdef __APPLE__
    return static_cast<int64_t>(st.st_mtimespec.tv_sec) * 1000000000LL + st.st_mtimespec.tv_nsec;
#else
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
#endif
}

struct timespec to_timespec(int64_t ns) {
    struct timespec t {};
    t.tv_sec = static_cast<time_t>(ns / 1000000000LL);
    t.tv_nsec = static_cast<long>(ns % 1000000000LL);
    if (t.tv_nsec < 0) {
        t.tv_nsec += 1000000000L;
        t.tv_sec -= 1;
    }
    return t;
}

}  // namespace

std::optional<FileStat> stat_path(const std::filesystem::path& p) { return stat_text(p.native()); }

FileStat from_stat(const struct stat& st) {
    FileStat s;
    s.device = static_cast<uint64_t>(st.st_dev);
    s.inode = static_cast<uint64_t>(st.st_ino);
    s.size = static_cast<uint64_t>(st.st_size);
    s.mtime_ns = mtime_of(st);
    s.mode = static_cast<uint32_t>(st.st_mode & 07777);
    s.links = static_cast<uint32_t>(st.st_nlink);
    s.regular = S_ISREG(st.st_mode);
    s.directory = S_ISDIR(st.st_mode);
    return s;
}

std::optional<FileStat> stat_text(const std::string& p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return std::nullopt;
    return from_stat(st);
}

FolderStats::~FolderStats() {
    if (handle_ >= 0) ::close(static_cast<int>(handle_));
}

std::optional<FileStat> FolderStats::stat(const std::filesystem::path& base, const std::string& rel) {
    const size_t slash = rel.rfind('/');
    const std::string_view folder = slash == std::string::npos ? std::string_view() : std::string_view(rel).substr(0, slash);
    if (base_ != &base || folder != folder_ || handle_ < 0) {
        if (handle_ >= 0) ::close(static_cast<int>(handle_));
        base_ = &base;
        folder_.assign(folder);
        std::string dir = base.native();
        if (!folder.empty()) dir.append("/").append(folder);
#ifdef O_PATH
        handle_ = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
#else
        handle_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
        if (handle_ < 0) return std::nullopt;  // no folder: no file in it
    }
    leaf_.assign(rel, slash == std::string::npos ? 0 : slash + 1);
    struct stat st {};
    if (::fstatat(static_cast<int>(handle_), leaf_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
    return from_stat(st);
}

std::optional<std::vector<FolderEntry>> list_folder(const std::string& dir) {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return std::nullopt;
    std::vector<FolderEntry> out;
    const int fd = ::dirfd(d);
    while (const struct dirent* e = ::readdir(d)) {
        const char* n = e->d_name;
        if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
        FolderEntry f{n, std::filesystem::file_type::unknown};
        switch (e->d_type) {
            case DT_REG: f.type = std::filesystem::file_type::regular; break;
            case DT_DIR: f.type = std::filesystem::file_type::directory; break;
            case DT_LNK: f.type = std::filesystem::file_type::symlink; break;
            default: {  // DT_UNKNOWN (some filesystems), or a special file: asked
                struct stat st {};
                if (::fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) f.type = std::filesystem::file_type::not_found;
                else if (S_ISREG(st.st_mode)) f.type = std::filesystem::file_type::regular;
                else if (S_ISDIR(st.st_mode)) f.type = std::filesystem::file_type::directory;
                else if (S_ISLNK(st.st_mode)) f.type = std::filesystem::file_type::symlink;
                else if (S_ISFIFO(st.st_mode)) f.type = std::filesystem::file_type::fifo;
                else if (S_ISSOCK(st.st_mode)) f.type = std::filesystem::file_type::socket;
                else if (S_ISBLK(st.st_mode)) f.type = std::filesystem::file_type::block;
                else if (S_ISCHR(st.st_mode)) f.type = std::filesystem::file_type::character;
            }
        }
        out.push_back(std::move(f));
    }
    ::closedir(d);
    return out;
}

bool remove_text(const std::string& p, bool folder) { return (folder ? ::rmdir(p.c_str()) : ::unlink(p.c_str())) == 0; }

Expected<void> hard_link(const std::filesystem::path& from, const std::filesystem::path& to, bool* cross_device) {
    return hard_link_text(from.native(), to.native(), cross_device);
}

Expected<void> hard_link_text(const std::string& from, const std::string& to, bool* cross_device) {
    if (cross_device) *cross_device = false;
    if (::link(from.c_str(), to.c_str()) == 0) return {};
    int e = errno;
    // EXDEV: another filesystem; EPERM/ENOTSUP: one without hard links (FAT, some FUSE);
    // EMLINK: the inode has as many links as it may.
    if (cross_device && (e == EXDEV || e == EPERM || e == ENOTSUP || e == EMLINK)) *cross_device = true;
    return write_error(to, e);
}

Expected<void> copy_file(const std::filesystem::path& from, const std::filesystem::path& to, uint32_t mode) {
    int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return fail(ExitCode::BadInput, "fs.read_failed", {{"path", from.string()}, {"reason", std::strerror(errno)}});
    struct stat st {};
    if (::fstat(in, &st) != 0) {
        int e = errno;
        ::close(in);
        return fail(ExitCode::BadInput, "fs.read_failed", {{"path", from.string()}, {"reason", std::strerror(e)}});
    }
    int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
        int e = errno;
        ::close(in);
        return write_error(to, e);
    }
    auto fail_with = [&](int e) {
        ::close(in);
        ::close(out);
        ::unlink(to.c_str());
        return write_error(to, e);
    };
    uint64_t left = static_cast<uint64_t>(st.st_size);
#ifdef __linux__
    // In the kernel, without a round trip through user memory; btrfs and XFS share extents.
    while (left > 0) {
        ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, left, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP) break;
            return fail_with(errno);
        }
        if (n == 0) break;
        left -= static_cast<uint64_t>(n);
    }
#endif
    if (left > 0) {
        // One buffer per thread, not zero-filled: a fresh 1 MiB vector per file is mapped, faulted
        // in page by page and unmapped again (hash.cpp: seconds of system time over 17 000 files).
        constexpr size_t kBuf = 1 << 20;
        thread_local std::unique_ptr<char[]> buf(new char[kBuf]);
        off_t pos = static_cast<off_t>(static_cast<uint64_t>(st.st_size) - left);
        while (left > 0) {
            ssize_t n = ::pread(in, buf.get(), kBuf, pos);
            if (n < 0) {
                if (errno == EINTR) continue;
                return fail_with(errno);
            }
            if (n == 0) break;
            for (ssize_t w = 0; w < n;) {
                ssize_t k = ::pwrite(out, buf.get() + w, static_cast<size_t>(n - w), pos + w);
                if (k < 0) {
                    if (errno == EINTR) continue;
                    return fail_with(errno);
                }
                w += k;
            }
            pos += n;
            left -= static_cast<uint64_t>(n);
        }
    }
    struct timespec times[2] = {{0, UTIME_OMIT}, to_timespec(mtime_of(st))};
    if (::fchmod(out, static_cast<mode_t>(mode)) != 0 || ::futimens(out, times) != 0) return fail_with(errno);
    ::close(in);
    if (::close(out) != 0) {
        int e = errno;
        ::unlink(to.c_str());
        return write_error(to, e);
    }
    return {};
}

Expected<void> set_mtime(const std::filesystem::path& p, int64_t mtime_ns) {
    struct timespec times[2] = {{0, UTIME_OMIT}, to_timespec(mtime_ns)};
    if (::utimensat(AT_FDCWD, p.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) return write_error(p, errno);
    return {};
}

}  // namespace envfix::installer::storeops
