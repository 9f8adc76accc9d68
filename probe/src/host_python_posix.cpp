#include "envfix/common/process.hpp"
#include "envfix/probe/environment.hpp"
#include "host_python.hpp"

namespace envfix::probe {

LayoutOs host_layout_os() { return LayoutOs::Posix; }

std::optional<std::filesystem::path> host_python_on_path() {
    // python3 first: on Debian/Ubuntu "python" is absent or Python 2.
    for (const char* name : {"python3", "python"})
        if (auto p = find_program(name)) return p;
    return std::nullopt;
}

}  // namespace envfix::probe
