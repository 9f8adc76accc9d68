// A named mutex per environment folder (env_lock.hpp). A lock file inside the environment
// would change it; a folder cannot be locked with LockFileEx. The system releases a mutex whose
// holder died (WAIT_ABANDONED), so a crashed envfix never blocks the next one.
#include <windows.h>

#include <cwctype>
#include <string>

#include "envfix/installer/env_lock.hpp"

namespace envfix::installer {

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

}  // namespace

Expected<EnvLock> EnvLock::acquire(const std::filesystem::path& root, bool wait, Reporter& reporter) {
    HANDLE m = CreateMutexW(nullptr, FALSE, mutex_name(root, L"Global\\").c_str());
    if (!m) m = CreateMutexW(nullptr, FALSE, mutex_name(root, L"Local\\").c_str());
    if (!m)
        return fail(ExitCode::Internal, "install.lock_failed", {{"path", root.string()}, {"reason", std::to_string(GetLastError())}});
    DWORD r = WaitForSingleObject(m, 0);
    if (r == WAIT_TIMEOUT) {
        if (!wait) {
            CloseHandle(m);
            return fail(ExitCode::Locked, "install.locked", {{"path", root.string()}, {"pid", "?"}});
        }
        reporter.info(msg("install.lock_waiting", {{"path", root.string()}, {"pid", "?"}}));
        r = WaitForSingleObject(m, INFINITE);
    }
    if (r != WAIT_OBJECT_0 && r != WAIT_ABANDONED) {
        CloseHandle(m);
        return fail(ExitCode::Internal, "install.lock_failed", {{"path", root.string()}, {"reason", std::to_string(GetLastError())}});
    }
    EnvLock l;
    l.handle_ = reinterpret_cast<intptr_t>(m);
    return l;
}

EnvLock::EnvLock(EnvLock&& o) noexcept : handle_(o.handle_) { o.handle_ = -1; }
EnvLock& EnvLock::operator=(EnvLock&& o) noexcept {
    if (this != &o) {
        this->~EnvLock();
        handle_ = o.handle_;
        o.handle_ = -1;
    }
    return *this;
}
EnvLock::~EnvLock() {
    if (handle_ != -1) {
        ReleaseMutex(reinterpret_cast<HANDLE>(handle_));
        CloseHandle(reinterpret_cast<HANDLE>(handle_));
        handle_ = -1;
    }
}

}  // namespace envfix::installer
