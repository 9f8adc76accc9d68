// The files that make a folder an environment (environment_files.hpp).
#include "environment_files.hpp"


#include "envfix/common/strings.hpp"
#include "envfix/installer/scripts.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

std::set<stdfs::path> environment_files(const probe::Environment& env, const InstallScheme& scheme) {
    std::set<stdfs::path> out;
    auto add = [&](const stdfs::path& p) {
        if (!p.empty()) out.insert(p.lexically_normal());
    };
    add(env.interpreter);
    if (env.pyvenv_cfg) add(*env.pyvenv_cfg);
    if (env.pth_file) add(*env.pth_file);
    add(env.root / "pyvenv.cfg");
    for (const auto& dir : {scheme.scripts, stdfs::path(env.root)}) {
        std::error_code ec;
        for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            const auto lower = str::lower(it->path().filename().string());
            // python, python3.12, pythonw.exe …, python3.dll and python312.dll beside them, an
            // embedded Python's python312._pth and python312.zip; activate, Activate.ps1 ….
            const bool interpreter = !unsafe_script_name(lower).empty();
            const bool python_file = lower.starts_with("python") &&
                                     (lower.ends_with(".dll") || lower.ends_with("._pth") || lower.ends_with(".zip"));
            if (interpreter || python_file) add(it->path());
        }
    }
    std::error_code ec;
    std::erase_if(out, [&](const stdfs::path& p) { return !stdfs::exists(stdfs::symlink_status(p, ec)); });
    return out;
}

}  // namespace envfix::installer
