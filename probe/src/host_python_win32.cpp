#include "envfix/common/env.hpp"
#include "envfix/common/process.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/environment.hpp"
#include "host_python.hpp"

namespace envfix::probe {

LayoutOs host_layout_os() { return LayoutOs::Windows; }

std::optional<std::filesystem::path> host_python_on_path() {
    // %LOCALAPPDATA%\Microsoft\WindowsApps\python.exe is the Store's stand-in that opens the
    // Store instead of running Python; PATH entries under WindowsApps are skipped.
    std::string filtered;
    for (auto dir : str::split(env::get_or(EnvVar::Path, ""), ';')) {
        if (dir.empty() || str::lower(dir).find("windowsapps") != std::string::npos) continue;
        if (!filtered.empty()) filtered += ';';
        filtered += std::string(dir);
    }
    for (const char* name : {"python", "python3"})
        if (auto p = find_program(name, filtered)) return p;
    return std::nullopt;
}

}  // namespace envfix::probe
