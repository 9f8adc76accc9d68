#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"

namespace envfix::fs {

namespace {
Unexpected<Error> write_error(const stdfs::path& p, int err) {
    return fail(exit_code_for_errno(err), "fs.write_failed", {{"path", p.string()}, {"reason", std::strerror(err)}});
}
}  // namespace

bool sync_dir(const stdfs::path& dir) {
    int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

bool sync_filesystems(const std::vector<stdfs::path>& dirs) {
    std::map<dev_t, stdfs::path> seen;
    for (const auto& d : dirs) {
        struct stat st {};
        if (::stat(d.c_str(), &st) == 0) seen.emplace(st.st_dev, d);
    }
    bool ok = true;
    for (const auto& [dev, dir] : seen) {
        int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            ok = false;
            continue;
        }
#ifdef __linux__
        if (::syncfs(fd) != 0) {
            ok = false;
            ::sync();
        }
#else
        ::sync();
#endif
        ::close(fd);
    }
    return ok;
}

bool flushes_file_by_file(const stdfs::path& dir) {
#ifdef __linux__
    struct statfs st {};
    if (::statfs(dir.c_str(), &st) != 0) return false;
    // ext2/3/4 share one magic number; ext2 has no journal, and its commit is a syncfs anyway
    // (kept as ext4: a venv on ext2 is not worth a mount-table read).
    return st.f_type == EXT4_SUPER_MAGIC || st.f_type == XFS_SUPER_MAGIC;
#else
    (void)dir;
    return false;
#endif
}

bool write_back_and_wait(std::span<const stdfs::path::string_type> files) {
#ifdef __linux__
    std::vector<int> fds;
    fds.reserve(files.size());
    bool ok = true;
    for (const auto& f : files) {
        int fd = ::open(f.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            ok = ok && (errno == ENOENT || errno == ELOOP);
            continue;
        }
        ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);  // all started before any is waited for
        fds.push_back(fd);
    }
    for (int fd : fds) {
        ok = ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) == 0 && ok;
        ::close(fd);
    }
    return ok;
#else
    (void)files;
    return false;
#endif
}

bool commit_filesystem(const stdfs::path& dir) {
    const auto probe = dir / (".envfix-durable-" + std::to_string(::getpid()));
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    ::unlink(probe.c_str());
    return ok;
}

Expected<void> write_file_atomic(const stdfs::path& p, std::string_view data, Sync sync) {
    auto tmp = temp_path_beside(p);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return write_error(p, errno);
    const char* cur = data.data();
    size_t left = data.size();
    while (left > 0) {
        ssize_t n = ::write(fd, cur, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            return write_error(p, e);
        }
        cur += n;
        left -= static_cast<size_t>(n);
    }
    if ((sync == Sync::Durable && ::fsync(fd) != 0) || ::close(fd) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        return write_error(p, e);
    }
    if (::rename(tmp.c_str(), p.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        return write_error(p, e);
    }
    if (sync == Sync::Durable) sync_dir(p.parent_path());
    return {};
}

Expected<MappedFile> MappedFile::open(const stdfs::path& p) {
    int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(ExitCode::BadInput, "fs.map_failed", {{"path", p.string()}, {"reason", std::strerror(errno)}});
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int e = errno;
        ::close(fd);
        return fail(ExitCode::BadInput, "fs.map_failed", {{"path", p.string()}, {"reason", std::strerror(e)}});
    }
    MappedFile m;
    m.size_ = static_cast<size_t>(st.st_size);
    if (m.size_ > 0) {
        void* addr = ::mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (addr == MAP_FAILED) {
            int e = errno;
            ::close(fd);
            return fail(ExitCode::BadInput, "fs.map_failed", {{"path", p.string()}, {"reason", std::strerror(e)}});
        }
        m.data_ = addr;
        m.device_ = static_cast<uint64_t>(st.st_dev);
    }
    ::close(fd);
    return m;
}

namespace {
// Whether the block device holding files of st_dev `dev` is a disk that rotates, from sysfs: the
// device's own queue, else its parent disk's (a partition). A disk on a virtual machine's bus
// (virtio, Xen, Hyper-V) says it rotates whatever backs it (the GPU machine's virtio disk does,
// with an 8 MB read-ahead): it is taken at its word only off those buses. Unknown (no sysfs, an
// overlay's or btrfs's anonymous device): no. Asked once per device.
bool rotates([[maybe_unused]] uint64_t dev) {
#ifndef __linux__
    return false;
#else
    static std::mutex mu;
    static std::map<std::string, bool> known;
    const auto d = static_cast<dev_t>(dev);
    const std::string root = env::get_or(EnvVar::EnvfixSysRoot, "");
    const std::string base = root + "/sys/dev/block/" + std::to_string(major(d)) + ":" + std::to_string(minor(d));
    std::lock_guard lock(mu);
    auto [it, added] = known.try_emplace(base, false);
    if (!added) return it->second;
    std::error_code ec;
    const auto device = stdfs::canonical(base, ec).string();
    if (ec) return false;
    for (const char* bus : {"/virtio", "/vbd-", "/VMBUS"})
        if (device.find(bus, root.size()) != std::string::npos) return false;
    for (const char* queue : {"/queue/rotational", "/../queue/rotational"}) {
        if (auto said = read_file(device + queue)) {
            it->second = said->starts_with('1');
            break;
        }
    }
    return it->second;
#endif
}
}  // namespace

void MappedFile::expect_reads(Reads how) {
    if (!data_) return;
    if (how == Reads::Ahead) {
        ::madvise(const_cast<void*>(data_), size_, MADV_NORMAL);
        return;
    }
    const auto forced = env::get(EnvVar::EnvfixScatteredReads);
    if (forced ? *forced == "1" : !rotates(device_)) ::madvise(const_cast<void*>(data_), size_, MADV_RANDOM);
}

void MappedFile::will_need(uint64_t offset, uint64_t length) {
    if (!data_ || offset >= size_) return;
    static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t from = offset / page * page, to = std::min<uint64_t>(size_, offset + length);
    ::madvise(static_cast<char*>(const_cast<void*>(data_)) + from, to - from, MADV_WILLNEED);
}

MappedFile::MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_), handle_(o.handle_), device_(o.device_) {
    o.data_ = nullptr;
    o.size_ = 0;
    o.handle_ = nullptr;
}
MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
    if (this != &o) {
        reset();
        data_ = o.data_;
        size_ = o.size_;
        device_ = o.device_;
        o.data_ = nullptr;
        o.size_ = 0;
    }
    return *this;
}
MappedFile::~MappedFile() { reset(); }
void MappedFile::reset() {
    if (data_) ::munmap(const_cast<void*>(data_), size_);
    data_ = nullptr;
    size_ = 0;
}

std::optional<FileIdentity> identity(const stdfs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return std::nullopt;
    FileIdentity id;
    id.device = static_cast<uint64_t>(st.st_dev);
    id.inode = static_cast<uint64_t>(st.st_ino);
    id.size = static_cast<uint64_t>(st.st_size);
    id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    return id;
}

}  // namespace envfix::fs
