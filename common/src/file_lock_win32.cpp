// LockFileEx on a lock file; a named mutex per folder, since a folder cannot be locked with
// LockFileEx and a lock file inside an environment would change it (file_lock.hpp). The system
// releases a mutex whose holder died (WAIT_ABANDONED).
#include <windows.h>

#include <cwctype>
#include <string>

#include "envfix/common/file_lock.hpp"
#include "envfix/common/win32_error.hpp"

namespace envfix::fs {

namespace {

std::wstring mutex_name(const std::filesystem::path& root, const wchar_t* ns) {
    std::error_code ec;
    auto canon = std::filesystem::weakly_canonical(root, ec);
    std::wstring p = (ec ? root : canon).wstring();
    for (auto& c : p) c = static_cast<wchar_t>(std::towlower(c));
    // FNV-1a of the lower-cased path: mutex names cannot hold backslashes.
    uint64_t h = 1469598103934665603ull;
    for (wchar_t c : p) {
        h ^= static_cast<uint64_t>(c);
        h *= 1099511628211ull;
    }
    wchar_t hex[17] = {};
    for (int i = 15; i >= 0; --i, h >>= 4) hex[i] = L"0123456789abcdef"[h & 15];
    return std::wstring(ns) + L"envfix-env-" + hex;
}

Unexpected<Error> failed(const std::filesystem::path& path, const LockWords& words, DWORD e) {
    return fail(ExitCode::Internal, words.failed, {{"path", path.string()}, {"reason", win32::error_text(e)}});
}

Expected<HANDLE> lock_folder(const std::filesystem::path& path, const FileLock::Options& o) {
    HANDLE m = CreateMutexW(nullptr, FALSE, mutex_name(path, L"Global\\").c_str());
    if (!m) m = CreateMutexW(nullptr, FALSE, mutex_name(path, L"Local\\").c_str());
    if (!m) return failed(path, o.words, GetLastError());
    DWORD r = WaitForSingleObject(m, 0);
    if (r == WAIT_TIMEOUT) {
        if (!o.wait) {
            CloseHandle(m);
            return fail(ExitCode::Locked, o.words.locked, {{"path", path.string()}, {"pid", "?"}});
        }
        if (o.on_wait) o.on_wait(msg(o.words.waiting, {{"path", path.string()}, {"pid", "?"}}));
        r = WaitForSingleObject(m, INFINITE);
    }
    if (r != WAIT_OBJECT_0 && r != WAIT_ABANDONED) {
        DWORD e = GetLastError();
        CloseHandle(m);
        return failed(path, o.words, e);
    }
    return m;
}

Expected<HANDLE> lock_file(const std::filesystem::path& path, const FileLock::Options& o) {
    HANDLE h = CreateFileW(path.c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) return failed(path, o.words, GetLastError());
    OVERLAPPED ov{};
    if (LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov)) return h;
    DWORD e = GetLastError();
    if (e == ERROR_LOCK_VIOLATION && o.wait) {
        if (o.on_wait) o.on_wait(msg(o.words.waiting, {{"path", path.string()}, {"pid", "?"}}));
        ov = {};
        if (LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ov)) return h;
        e = GetLastError();
    }
    CloseHandle(h);
    if (e == ERROR_LOCK_VIOLATION) return fail(ExitCode::Locked, o.words.locked, {{"path", path.string()}, {"pid", "?"}});
    return failed(path, o.words, e);
}

}  // namespace

Expected<FileLock> FileLock::acquire(const std::filesystem::path& path, const Options& o) {
    ENVFIX_TRY(HANDLE h, o.target == Target::Folder ? lock_folder(path, o) : lock_file(path, o));
    FileLock l;
    l.handle_ = reinterpret_cast<intptr_t>(h);
    l.target_ = o.target;
    return l;
}

void FileLock::release() noexcept {
    if (handle_ == -1) return;
    auto h = reinterpret_cast<HANDLE>(handle_);
    if (target_ == Target::Folder) ReleaseMutex(h);
    CloseHandle(h);  // closing a locked file releases its LockFileEx lock
    handle_ = -1;
}

}  // namespace envfix::fs
