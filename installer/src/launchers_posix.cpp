// POSIX: one script per entry point, as pip writes it.
#include "launchers.hpp"

namespace envfix::installer {

std::vector<LauncherFile> host_launcher_files(const EntryPoint& ep, const ScriptTarget& target) {
    return {LauncherFile{ep.name, posix_launcher(ep, target.interpreter), true}};
}

}  // namespace envfix::installer
