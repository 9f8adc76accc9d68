#include <io.h>
#include <windows.h>

#include <cstdlib>

#include "envfix/common/platform.hpp"

namespace envfix::platform {

Os current_os() { return Os::Windows; }

std::string_view os_name(Os os) {
    switch (os) {
        case Os::Linux: return "linux";
        case Os::Windows: return "windows";
        case Os::MacOs: return "macos";
        default: return "other";
    }
}

std::string_view machine() {
    SYSTEM_INFO si{};
    GetNativeSystemInfo(&si);
    switch (si.wProcessorArchitecture) {
        case PROCESSOR_ARCHITECTURE_AMD64: return "x86_64";
        case PROCESSOR_ARCHITECTURE_ARM64: return "aarch64";
        case PROCESSOR_ARCHITECTURE_INTEL: return "x86";
        default: return "unknown";
    }
}

bool is_wsl() { return false; }
std::optional<std::string> boot_id(const std::filesystem::path&) { return std::nullopt; }
bool stdout_is_terminal() { return _isatty(1) != 0; }
bool stderr_is_terminal() { return _isatty(2) != 0; }

int terminal_width() {
    CONSOLE_SCREEN_BUFFER_INFO info{};
    if (GetConsoleScreenBufferInfo(GetStdHandle(STD_ERROR_HANDLE), &info))
        return info.srWindow.Right - info.srWindow.Left + 1;
    return 80;
}

namespace {
UINT g_console_cp = 0;
void restore_console_cp() { SetConsoleOutputCP(g_console_cp); }
}  // namespace

void prepare_console() {
    for (DWORD which : {STD_OUTPUT_HANDLE, STD_ERROR_HANDLE}) {
        HANDLE h = GetStdHandle(which);
        DWORD mode = 0;
        if (h == INVALID_HANDLE_VALUE || !GetConsoleMode(h, &mode)) continue;  // a pipe or a file
        SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
        if (g_console_cp == 0 && (g_console_cp = GetConsoleOutputCP()) != CP_UTF8) {
            SetConsoleOutputCP(CP_UTF8);
            std::atexit(restore_console_cp);  // the console is the user's window, not envfix's
        }
    }
}

bool ui_language_is_chinese() { return PRIMARYLANGID(GetUserDefaultUILanguage()) == LANG_CHINESE; }

void bound_allocator() {}  // the Windows heap returns large blocks by itself
int reserve_descriptor_table() { return 0; }  // handles, not a table grown by doubling
void release_free_memory() {}

void lower_thread_priority(ThreadPriority) {}

ThreadUsage thread_usage() {
    ThreadUsage u;
    FILETIME created, exited, kernel, user;
    if (GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) {
        auto ticks = [](const FILETIME& f) { return (uint64_t(f.dwHighDateTime) << 32) | f.dwLowDateTime; };
        u.cpu = std::chrono::microseconds((ticks(kernel) + ticks(user)) / 10);  // 100 ns units
    }
    return u;
}

}  // namespace envfix::platform
