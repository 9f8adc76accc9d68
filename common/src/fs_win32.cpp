#include <windows.h>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/common/win32_error.hpp"

namespace envfix::win32 {

std::string error_text(unsigned long code) {
    char buf[512] = {};
    FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, code, 0, buf, sizeof buf, nullptr);
    return std::string(str::trim(buf));
}

ExitCode exit_code_for(unsigned long code) {
    switch (code) {
        case ERROR_DISK_FULL:
        case ERROR_HANDLE_DISK_FULL: return ExitCode::DiskFull;
        case ERROR_ACCESS_DENIED:
        case ERROR_WRITE_PROTECT:
        case ERROR_SHARING_VIOLATION:
        case ERROR_LOCK_VIOLATION: return ExitCode::PermissionDenied;
        default: return ExitCode::Internal;
    }
}

Unexpected<Error> write_error(const std::filesystem::path& path, unsigned long code) {
    return fail(exit_code_for(code), "fs.write_failed", {{"path", path.string()}, {"reason", error_text(code)}});
}

}  // namespace envfix::win32

namespace envfix::fs {

using win32::write_error;

bool sync_dir(const stdfs::path&) { return true; }  // NTFS metadata is journaled; MoveFileEx WRITE_THROUGH flushes

// No flush of a whole volume without administrator rights: files are flushed one by one instead.
bool sync_filesystems(const std::vector<stdfs::path>&) { return false; }
bool flushes_file_by_file(const stdfs::path&) { return false; }
bool write_back_and_wait(std::span<const stdfs::path::string_type>) { return false; }
bool commit_filesystem(const stdfs::path&) { return false; }

Expected<void> write_file_atomic(const stdfs::path& p, std::string_view data, Sync sync) {
    auto tmp = temp_path_beside(p);
    HANDLE h = CreateFileW(tmp.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) return write_error(p, GetLastError());
    DWORD written = 0;
    BOOL ok = data.empty() || WriteFile(h, data.data(), static_cast<DWORD>(data.size()), &written, nullptr);
    ok = ok && (sync == Sync::Cache || FlushFileBuffers(h));
    DWORD err = ok ? 0 : GetLastError();
    CloseHandle(h);
    if (!ok) {
        DeleteFileW(tmp.c_str());
        return write_error(p, err);
    }
    if (!MoveFileExW(tmp.c_str(), p.c_str(), MOVEFILE_REPLACE_EXISTING | (sync == Sync::Durable ? MOVEFILE_WRITE_THROUGH : 0))) {
        err = GetLastError();
        DeleteFileW(tmp.c_str());
        return write_error(p, err);
    }
    return {};
}

Expected<MappedFile> MappedFile::open(const stdfs::path& p) {
    // Write sharing too: a downloaded wheel is unpacked while the downloader still opens it for
    // writing to flush it to the disk (one file at a time on Windows), which must not fail either
    // way with a sharing violation; nobody writes its bytes, which were checked before.
    HANDLE f = CreateFileW(p.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, nullptr);
    if (f == INVALID_HANDLE_VALUE)
        return fail(ExitCode::BadInput, "fs.map_failed", {{"path", p.string()}, {"reason", win32::error_text(GetLastError())}});
    LARGE_INTEGER size{};
    GetFileSizeEx(f, &size);
    MappedFile m;
    m.size_ = static_cast<size_t>(size.QuadPart);
    if (m.size_ > 0) {
        HANDLE map = CreateFileMappingW(f, nullptr, PAGE_READONLY, 0, 0, nullptr);
        if (!map) {
            DWORD e = GetLastError();
            CloseHandle(f);
            return fail(ExitCode::BadInput, "fs.map_failed", {{"path", p.string()}, {"reason", win32::error_text(e)}});
        }
        m.data_ = MapViewOfFile(map, FILE_MAP_READ, 0, 0, 0);
        m.handle_ = map;
    }
    CloseHandle(f);
    return m;
}

MappedFile::MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_), handle_(o.handle_) {
    o.data_ = nullptr;
    o.size_ = 0;
    o.handle_ = nullptr;
}
MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
    if (this != &o) {
        reset();
        data_ = o.data_;
        size_ = o.size_;
        handle_ = o.handle_;
        o.data_ = nullptr;
        o.size_ = 0;
        o.handle_ = nullptr;
    }
    return *this;
}
MappedFile::~MappedFile() { reset(); }
// A view's faults read clusters of pages whatever the hint: no per-view read-ahead setting.
void MappedFile::expect_reads(Reads) {}
void MappedFile::will_need(uint64_t, uint64_t) {}
void MappedFile::reset() {
    if (data_) UnmapViewOfFile(data_);
    if (handle_) CloseHandle(handle_);
    data_ = nullptr;
    handle_ = nullptr;
    size_ = 0;
}

std::optional<FileIdentity> identity(const stdfs::path& p) {
    HANDLE f = CreateFileW(p.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (f == INVALID_HANDLE_VALUE) return std::nullopt;
    BY_HANDLE_FILE_INFORMATION info{};
    BOOL ok = GetFileInformationByHandle(f, &info);
    CloseHandle(f);
    if (!ok) return std::nullopt;
    FileIdentity id;
    id.device = info.dwVolumeSerialNumber;
    id.inode = (uint64_t(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
    id.size = (uint64_t(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
    id.mtime_ns = static_cast<int64_t>((uint64_t(info.ftLastWriteTime.dwHighDateTime) << 32) |
                                       info.ftLastWriteTime.dwLowDateTime) * 100;
    return id;
}

}  // namespace envfix::fs
