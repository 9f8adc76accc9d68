#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <string>

#include "envfix/common/fs.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::platform {

Os current_os() {
#if defined(__linux__)
    return Os::Linux;
#elif defined(__APPLE__)
    return Os::MacOs;
#else
    return Os::Other;
#endif
}

std::string_view os_name(Os os) {
    switch (os) {
        case Os::Linux: return "linux";
        case Os::Windows: return "windows";
        case Os::MacOs: return "macos";
        default: return "other";
    }
}

std::string_view machine() {
    static const std::string m = [] {
        struct utsname u {};
        if (::uname(&u) != 0) return std::string("unknown");
        std::string s = u.machine;
        if (s == "arm64") s = "aarch64";
        return s;
    }();
    return m;
}

bool is_wsl() {
    static const bool wsl = [] {
        std::ifstream in("/proc/version");
        std::string line;
        std::getline(in, line);
        return line.find("microsoft") != std::string::npos || line.find("Microsoft") != std::string::npos ||
               line.find("WSL") != std::string::npos;
    }();
    return wsl;
}

bool stdout_is_terminal() { return ::isatty(1) == 1; }
bool stderr_is_terminal() { return ::isatty(2) == 1; }
void prepare_console() {}  // the terminal's own locale decides how UTF-8 shows
bool ui_language_is_chinese() { return false; }  // LANG and LC_* say it

std::optional<std::string> boot_id(const std::filesystem::path& file) {
    auto text = fs::read_file(file);
    if (!text) return std::nullopt;
    auto id = std::string(str::trim(*text));
    if (id.empty()) return std::nullopt;
    return id;
}

int terminal_width() {
    struct winsize w {};
    if (::ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
    if (::ioctl(1, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
    return 80;
}

void bound_allocator() {
#if defined(__GLIBC__)
    // A fixed threshold: blocks of 256 KiB and more (inflate buffers, large vectors) are mapped and
    // unmapped on free. glibc's default raises the threshold after the first such free, and the
    // staging threads' arenas then kept about 25 MB each install, added to the install's own peak.
    ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

int reserve_descriptor_table() {
    // A cold install of the synthetic torch stack held 950 descriptors and more at once on the
    // 2-core machine (files written and their write-back queued), a switch and a rollback about
    // 600, a warm install about 70. 4096 entries are 32 KiB.
    constexpr rlim_t kWanted = 4096;
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
    rlim_t size = limit.rlim_cur == RLIM_INFINITY ? kWanted : std::min<rlim_t>(limit.rlim_cur, kWanted);
    if (size < 2) return 0;
    int any = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (any < 0) return 0;
    // The lowest free descriptor from the table's last entry: it grows the table to `size`
    // entries; where that one is taken (inherited), the table is that large already.
    int last = ::fcntl(any, F_DUPFD_CLOEXEC, static_cast<int>(size - 1));
    bool grown = last >= 0 || errno == EMFILE;
    if (last >= 0) ::close(last);
    ::close(any);
    return grown ? static_cast<int>(size) : 0;
}

void release_free_memory() {
#if defined(__GLIBC__)
    ::malloc_trim(0);
#endif
}

void lower_thread_priority(ThreadPriority how) {
#if defined(__linux__)
    // Linux keeps a nice value per thread: PRIO_PROCESS with a thread id sets that thread's only.
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), how == ThreadPriority::Idle ? 19 : 10);
#else
    (void)how;
#endif
}

ThreadUsage thread_usage() {
    ThreadUsage u;
#if defined(__linux__)
    rusage ru{};
    if (::getrusage(RUSAGE_THREAD, &ru) == 0) {
        u.cpu = std::chrono::seconds(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                std::chrono::microseconds(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
        u.waits = ru.ru_nvcsw;
        u.preempted = ru.ru_nivcsw;
    }
#endif
    return u;
}

}  // namespace envfix::platform
