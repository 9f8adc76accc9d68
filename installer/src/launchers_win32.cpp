// Windows: "<name>.cmd" running the environment's python.exe by a relative path, and
// "<name>-script.py" holding the launcher body (pip's launcher .exe is not ours to ship).
#include "launchers.hpp"

namespace envfix::installer {

std::vector<LauncherFile> host_launcher_files(const EntryPoint& ep, const ScriptTarget& target) {
    auto w = windows_launcher(ep, target.interpreter_from_scripts, target.interpreter);
    return {LauncherFile{w.cmd_name, w.cmd_text, false}, LauncherFile{w.script_name, w.script_text, false}};
}

}  // namespace envfix::installer
