#pragma once
// The launcher files of one entry point on this machine's layout: launchers_posix.cpp writes
// pip's script, launchers_win32.cpp pip's .exe launcher, or the .cmd + -script.py pair where the
// environment has no pip to take the launcher from (scripts.hpp).
#include <string>
#include <vector>

#include "envfix/installer/scripts.hpp"
#include "envfix/installer/wheel_plan.hpp"

namespace envfix::installer {

struct LauncherFile {
    std::string name;     // file name in the scripts folder
    std::string content;
    bool executable = true;
};

std::vector<LauncherFile> host_launcher_files(const EntryPoint& ep, const ScriptTarget& target);

}  // namespace envfix::installer
