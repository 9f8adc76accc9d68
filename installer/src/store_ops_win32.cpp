// Windows file operations of the content-addressed stores (store_ops.hpp). NTFS has hard links
// (CreateHardLinkW, up to 1023 per file); ReFS and FAT do not, and callers copy instead.
#include <windows.h>

#include "envfix/common/strings.hpp"
#include "envfix/common/win32_error.hpp"
#include "store_ops.hpp"

namespace envfix::installer::storeops {

namespace {

using win32::write_error;

// FILETIME (100 ns since 1601) <-> ns since 1970.
constexpr int64_t kEpochDiff100ns = 116444736000000000LL;
int64_t to_ns(const FILETIME& ft) {
    int64_t t = (static_cast<int64_t>(ft.dwHighDateTime) << 32) | ft.dwLowDateTime;
    return (t - kEpochDiff100ns) * 100;
}
FILETIME from_ns(int64_t ns) {
    int64_t t = ns / 100 + kEpochDiff100ns;
    FILETIME ft;
    ft.dwLowDateTime = static_cast<DWORD>(t & 0xffffffff);
    ft.dwHighDateTime = static_cast<DWORD>(static_cast<uint64_t>(t) >> 32);
    return ft;
}

}  // namespace

std::optional<FileStat> stat_path(const std::filesystem::path& p) {
    // FILE_FLAG_OPEN_REPARSE_POINT: the link itself, as lstat(); BACKUP_SEMANTICS opens folders.
    HANDLE h = CreateFileW(p.c_str(), FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
    if (h == INVALID_HANDLE_VALUE) return std::nullopt;
    BY_HANDLE_FILE_INFORMATION info{};
    BOOL ok = GetFileInformationByHandle(h, &info);
    CloseHandle(h);
    if (!ok) return std::nullopt;
    FileStat s;
    s.device = info.dwVolumeSerialNumber;
    s.inode = (static_cast<uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
    s.size = (static_cast<uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
    s.mtime_ns = to_ns(info.ftLastWriteTime);
    s.mode = (info.dwFileAttributes & FILE_ATTRIBUTE_READONLY) ? 0444 : 0644;
    s.links = info.nNumberOfLinks;
    const bool reparse = (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
    s.directory = !reparse && (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    s.regular = !reparse && !s.directory;
    return s;
}

Expected<void> hard_link(const std::filesystem::path& from, const std::filesystem::path& to, bool* cross_device) {
    if (cross_device) *cross_device = false;
    if (CreateHardLinkW(to.c_str(), from.c_str(), nullptr)) return {};
    DWORD e = GetLastError();
    // Another volume; a file system without hard links (FAT, ReFS); too many links to the file.
    if (cross_device && (e == ERROR_NOT_SAME_DEVICE || e == ERROR_INVALID_FUNCTION || e == ERROR_NOT_SUPPORTED ||
                         e == ERROR_TOO_MANY_LINKS))
        *cross_device = true;
    return write_error(to, e);
}

std::optional<FileStat> stat_text(const std::wstring& p) { return stat_path(std::filesystem::path(p)); }

std::optional<std::vector<FolderEntry>> list_folder(const std::wstring& dir) {
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec), end;
    if (ec) return std::nullopt;
    std::vector<FolderEntry> out;
    for (; it != end; it.increment(ec)) {
        if (ec) return std::nullopt;  // a listing cut short is no listing
        std::error_code type_ec;
        const auto type = it->symlink_status(type_ec).type();
        out.push_back({it->path().filename().native(), type_ec ? std::filesystem::file_type::unknown : type});
    }
    if (ec) return std::nullopt;
    return out;
}

bool remove_text(const std::wstring& p, bool folder) {
    std::error_code ec;
    if (std::filesystem::remove(p, ec)) return true;
    // Windows deletes no file marked read-only (a portable package unpacked from a read-only
    // medium, a file a tool protected): the mark is cleared first, as pip's rmtree does.
    const DWORD attrs = GetFileAttributesW(p.c_str());
    if (folder || attrs == INVALID_FILE_ATTRIBUTES || !(attrs & FILE_ATTRIBUTE_READONLY)) return false;
    return SetFileAttributesW(p.c_str(), attrs & ~FILE_ATTRIBUTE_READONLY) && std::filesystem::remove(p, ec);
}

// Each file by its whole path (Windows opens a handle per file in stat_path anyway).
FolderStats::~FolderStats() = default;
std::optional<FileStat> FolderStats::stat(const std::filesystem::path& base, const std::string& rel) {
    return stat_path(base / std::filesystem::path(rel));
}

Expected<void> hard_link_text(const std::wstring& from, const std::wstring& to, bool* cross_device) {
    return hard_link(std::filesystem::path(from), std::filesystem::path(to), cross_device);
}

Expected<void> copy_file(const std::filesystem::path& from, const std::filesystem::path& to, uint32_t mode) {
    // CopyFileExW keeps the last-write time; COPY_FILE_FAIL_IF_EXISTS never replaces. ReFS clones
    // blocks by itself on Windows 11 24H2 and later.
    BOOL cancel = FALSE;
    if (!CopyFileExW(from.c_str(), to.c_str(), nullptr, nullptr, &cancel, COPY_FILE_FAIL_IF_EXISTS)) return write_error(to, GetLastError());
    DWORD attrs = GetFileAttributesW(to.c_str());
    if (attrs != INVALID_FILE_ATTRIBUTES) {
        DWORD want = (mode & 0200) ? (attrs & ~FILE_ATTRIBUTE_READONLY) : (attrs | FILE_ATTRIBUTE_READONLY);
        if (want != attrs) SetFileAttributesW(to.c_str(), want);
    }
    return {};
}

Expected<void> set_mtime(const std::filesystem::path& p, int64_t mtime_ns) {
    HANDLE h = CreateFileW(p.c_str(), FILE_WRITE_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
    if (h == INVALID_HANDLE_VALUE) return write_error(p, GetLastError());
    FILETIME ft = from_ns(mtime_ns);
    BOOL ok = SetFileTime(h, nullptr, nullptr, &ft);
    DWORD e = GetLastError();
    CloseHandle(h);
    if (!ok) return write_error(p, e);
    return {};
}

}  // namespace envfix::installer::storeops
