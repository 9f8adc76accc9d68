#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "envfix/common/platform.hpp"

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

int terminal_width() {
    struct winsize w {};
    if (::ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
    if (::ioctl(1, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
    return 80;
}

}  // namespace envfix::platform
