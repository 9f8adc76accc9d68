// Windows file operations of the transaction (file_ops.hpp).
#include <windows.h>

#include <ctime>

#include "envfix/common/strings.hpp"
#include "envfix/common/win32_error.hpp"
#include "file_ops.hpp"

namespace envfix::installer::fileops {

using win32::write_error;

void spread_new_folders(const std::filesystem::path&) {}  // NTFS places folders by itself

uint32_t umask_value() { return 0; }

Expected<OutFile> OutFile::create(const std::filesystem::path& p) {
    HANDLE h = CreateFileW(p.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                           FILE_ATTRIBUTE_NORMAL | FILE_FLAG_SEQUENTIAL_SCAN, nullptr);
    if (h == INVALID_HANDLE_VALUE) return write_error(p, GetLastError());
    OutFile f;
    f.path_ = p;
    f.handle_ = reinterpret_cast<intptr_t>(h);
    return f;
}

OutFile::~OutFile() {
    if (handle_ != -1) {
        CloseHandle(reinterpret_cast<HANDLE>(handle_));
        DeleteFileW(path_.c_str());
        handle_ = -1;
    }
}

Expected<InFile> InFile::open(const std::filesystem::path& p) {
    HANDLE h = CreateFileW(p.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE)
        return fail(ExitCode::BadInput, "fs.read_failed", {{"path", p.string()}, {"reason", win32::error_text(GetLastError())}});
    InFile f;
    f.path_ = p;
    f.handle_ = reinterpret_cast<intptr_t>(h);
    return f;
}

InFile::InFile(InFile&& o) noexcept : path_(std::move(o.path_)), handle_(o.handle_) { o.handle_ = -1; }

InFile& InFile::operator=(InFile&& o) noexcept {
    if (this != &o) {
        if (handle_ != -1) CloseHandle(reinterpret_cast<HANDLE>(handle_));
        path_ = std::move(o.path_);
        handle_ = o.handle_;
        o.handle_ = -1;
    }
    return *this;
}

InFile::~InFile() {
    if (handle_ != -1) CloseHandle(reinterpret_cast<HANDLE>(handle_));
}

Expected<size_t> InFile::read_at(uint64_t offset, char* into, size_t n) const {
    size_t got = 0;
    while (got < n) {
        OVERLAPPED at{};
        at.Offset = static_cast<DWORD>((offset + got) & 0xFFFFFFFFu);
        at.OffsetHigh = static_cast<DWORD>((offset + got) >> 32);
        DWORD chunk = n - got > (1u << 30) ? (1u << 30) : static_cast<DWORD>(n - got), read = 0;
        if (!ReadFile(reinterpret_cast<HANDLE>(handle_), into + got, chunk, &read, &at)) {
            if (GetLastError() == ERROR_HANDLE_EOF) break;
            return fail(ExitCode::BadInput, "fs.read_failed", {{"path", path_.string()}, {"reason", win32::error_text(GetLastError())}});
        }
        if (read == 0) break;
        got += read;
    }
    return got;
}

void InFile::no_read_ahead() const {}

Expected<void> OutFile::write(std::string_view data) {
    HANDLE h = reinterpret_cast<HANDLE>(handle_);
    while (!data.empty()) {
        DWORD chunk = data.size() > (1u << 30) ? (1u << 30) : static_cast<DWORD>(data.size());
        DWORD written = 0;
        if (!WriteFile(h, data.data(), chunk, &written, nullptr)) return write_error(path_, GetLastError());
        data.remove_prefix(written);
    }
    return {};
}

Expected<void> OutFile::finish(FileMode, bool) {
    HANDLE h = reinterpret_cast<HANDLE>(handle_);
    // No volume-wide flush without administrator rights: each file is flushed before the
    // journal that names it is written.
    BOOL ok = FlushFileBuffers(h);
    DWORD err = ok ? 0 : GetLastError();
    handle_ = -1;
    CloseHandle(h);
    if (!ok) {
        DeleteFileW(path_.c_str());
        return write_error(path_, err);
    }
    return {};
}

std::optional<uint64_t> free_space(const std::filesystem::path& dir) {
    ULARGE_INTEGER avail{};
    if (!GetDiskFreeSpaceExW(dir.c_str(), &avail, nullptr, nullptr)) return std::nullopt;
    return static_cast<uint64_t>(avail.QuadPart);
}

void kill_self() {
    TerminateProcess(GetCurrentProcess(), 137);
    ExitProcess(137);
}

long long process_id() { return static_cast<long long>(GetCurrentProcessId()); }

std::string utc_timestamp(bool compact) {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_s(&tm, &t);
    char buf[32];
    std::strftime(buf, sizeof buf, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

bool open_files_can_be_renamed() { return false; }

}  // namespace envfix::installer::fileops
