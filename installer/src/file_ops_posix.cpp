// POSIX file operations of the transaction (file_ops.hpp).
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#include <sys/ioctl.h>
#endif

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

#include "envfix/common/fs.hpp"
#include "file_ops.hpp"

namespace envfix::installer::fileops {

namespace {

Unexpected<Error> write_error(const std::filesystem::path& p, int err) {
    return fail(fs::exit_code_for_errno(err), "fs.write_failed", {{"path", p.string()}, {"reason", std::strerror(err)}});
}

#ifdef __linux__
constexpr uint64_t kStartEvery = 32u << 20;  // a large file's write-back, started as it is written
constexpr uint64_t kStartAtClose = 1u << 20;  // smaller files are not worth a system call

// Starts write-back (sync_file_range, SYNC_FILE_RANGE_WRITE) off the threads that write: the call
// queues a range's dirty pages for the disk, but waits while the disk's queue is full. At the
// close of a 435 MiB library it held the thread that inflated it 0.1-0.45 s on the H200, which a
// switch then waited for; made inline every 32 MiB, it slowed the writing as much. One thread
// makes the calls here, on a duplicate of the file's descriptor; a range it has no room for is
// left to the flush before the commit. Never destroyed: its thread may be in a call at exit.
class WritebackStarter {
public:
    static WritebackStarter& get() {
        static auto* one = new WritebackStarter;
        return *one;
    }
    void start(int fd, uint64_t from, uint64_t length) {  // length 0: to the end
        int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (copy < 0) return;
        bool threaded = false, queued = false;
        {
            std::lock_guard lock(mu_);
            if (!thread_tried_) {
                thread_tried_ = true;
                try {
                    std::thread([this] { run(); }).detach();
                    running_ = true;
                } catch (const std::system_error&) {  // no thread: each call made where it is asked
                }
            }
            threaded = running_;
            if (threaded && queue_.size() < kMaxQueued) {
                queue_.push_back({copy, from, length});
                queued = true;
            }
        }
        if (queued) {
            cv_.notify_one();
            return;
        }
        if (!threaded) ::sync_file_range(copy, static_cast<off_t>(from), static_cast<off_t>(length), SYNC_FILE_RANGE_WRITE);
        ::close(copy);
    }

private:
    struct Range {
        int fd;
        uint64_t from, length;
    };
    static constexpr size_t kMaxQueued = 256;  // descriptors held at most
    void run() {
        for (;;) {
            Range r;
            {
                std::unique_lock lock(mu_);
                cv_.wait(lock, [&] { return !queue_.empty(); });
                r = queue_.front();
                queue_.pop_front();
            }
            ::sync_file_range(r.fd, static_cast<off_t>(r.from), static_cast<off_t>(r.length), SYNC_FILE_RANGE_WRITE);
            ::close(r.fd);
        }
    }
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Range> queue_;
    bool thread_tried_ = false;
    bool running_ = false;
};
#endif

}  // namespace

void spread_new_folders(const std::filesystem::path& dir) {
#ifdef __linux__
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    // The flags are an int (as chattr passes them); room for a long, as the ioctl's number says,
    // where an old FUSE kernel copies that many bytes.
    union {
        int flags;
        long room;
    } arg{};
    if (::ioctl(fd, FS_IOC_GETFLAGS, &arg) == 0 && !(arg.flags & FS_TOPDIR_FL)) {
        arg.flags |= FS_TOPDIR_FL;
        (void)::ioctl(fd, FS_IOC_SETFLAGS, &arg);
    }
    ::close(fd);
#else
    (void)dir;
#endif
}

uint32_t umask_value() {
    static const uint32_t mask = [] {
        mode_t m = ::umask(022);
        ::umask(m);
        return static_cast<uint32_t>(m);
    }();
    return mask;
}

Expected<OutFile> OutFile::create(const std::filesystem::path& p) {
    int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return write_error(p, errno);
    OutFile f;
    f.path_ = p;
    f.handle_ = fd;
    return f;
}

OutFile::~OutFile() {
    if (handle_ >= 0) {
        ::close(static_cast<int>(handle_));
        ::unlink(path_.c_str());
        handle_ = -1;
    }
}

Expected<InFile> InFile::open(const std::filesystem::path& p) {
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(ExitCode::BadInput, "fs.read_failed", {{"path", p.string()}, {"reason", std::strerror(errno)}});
    InFile f;
    f.path_ = p;
    f.handle_ = fd;
    return f;
}

InFile::InFile(InFile&& o) noexcept : path_(std::move(o.path_)), handle_(o.handle_) { o.handle_ = -1; }

InFile& InFile::operator=(InFile&& o) noexcept {
    if (this != &o) {
        if (handle_ >= 0) ::close(static_cast<int>(handle_));
        path_ = std::move(o.path_);
        handle_ = o.handle_;
        o.handle_ = -1;
    }
    return *this;
}

InFile::~InFile() {
    if (handle_ >= 0) ::close(static_cast<int>(handle_));
}

Expected<size_t> InFile::read_at(uint64_t offset, char* into, size_t n) const {
    size_t got = 0;
    while (got < n) {
        ssize_t r = ::pread(static_cast<int>(handle_), into + got, n - got, static_cast<off_t>(offset + got));
        if (r < 0) {
            if (errno == EINTR) continue;
            return fail(ExitCode::BadInput, "fs.read_failed", {{"path", path_.string()}, {"reason", std::strerror(errno)}});
        }
        if (r == 0) break;
        got += static_cast<size_t>(r);
    }
    return got;
}

void InFile::no_read_ahead() const {
#if defined(POSIX_FADV_RANDOM)
    ::posix_fadvise(static_cast<int>(handle_), 0, 0, POSIX_FADV_RANDOM);
#endif
}

Expected<void> OutFile::write(std::string_view data) {
    int fd = static_cast<int>(handle_);
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return write_error(path_, errno);
        }
        data.remove_prefix(static_cast<size_t>(n));
        written_ += static_cast<uint64_t>(n);
    }
#ifdef __linux__
    if (written_ - started_ >= kStartEvery) {
        WritebackStarter::get().start(fd, started_, written_ - started_);
        started_ = written_;
    }
#endif
    return {};
}

Expected<void> OutFile::finish(FileMode mode, bool write_back_now) {
    int fd = static_cast<int>(handle_);
    uint32_t mask = umask_value();
    if (mode != FileMode::Regular) {
        mode_t m = mode == FileMode::Executable ? ((0777 & ~mask) | 0111) : ((0666 & ~mask) | 0555);
        if (::fchmod(fd, m) != 0) return write_error(path_, errno);
    }
#ifdef __linux__
    // The rest's write-back started now, without waiting: the flush before "committed" then
    // finds little left to write.
    if (written_ >= kStartAtClose || (write_back_now && written_ > started_)) WritebackStarter::get().start(fd, started_, 0);
#endif
    handle_ = -1;
    if (::close(fd) != 0) {
        int e = errno;
        ::unlink(path_.c_str());
        return write_error(path_, e);
    }
    return {};
}

std::optional<uint64_t> free_space(const std::filesystem::path& dir) {
    struct statvfs s {};
    if (::statvfs(dir.c_str(), &s) != 0) return std::nullopt;
    return static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
}

void kill_self() {
    ::raise(SIGKILL);
    ::_exit(137);
}

long long process_id() { return static_cast<long long>(::getpid()); }

std::string utc_timestamp(bool compact) {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

bool open_files_can_be_renamed() { return true; }

}  // namespace envfix::installer::fileops
