// Windows: "<name>.exe", distlib's launcher from the environment's own pip with the script
// appended, as pip writes it; where the environment has no pip to take the launcher from,
// "<name>.cmd" running the environment's python.exe by a relative path and "<name>-script.py".
#include "launchers.hpp"

namespace envfix::installer {

std::vector<LauncherFile> host_launcher_files(const EntryPoint& ep, const ScriptTarget& target) {
    const std::string& launcher = ep.gui ? target.gui_launcher : target.console_launcher;
    if (!launcher.empty()) return {LauncherFile{ep.name + ".exe", windows_exe_launcher(ep, launcher, target.interpreter), true}};
    auto w = windows_launcher(ep, target.interpreter_from_scripts, target.interpreter);
    return {LauncherFile{w.cmd_name, w.cmd_text, false}, LauncherFile{w.script_name, w.script_text, false}};
}

}  // namespace envfix::installer
