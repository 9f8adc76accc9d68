#pragma once
// Running programs that have files loaded as code (Windows: a DLL, a .pyd, an .exe). Windows
// lets such a file be renamed but not deleted or written while a program runs it, and a ComfyUI
// left running would go on with the old torch in memory and the new one on disk: a change to an
// environment asks first (installer's transaction, docs/windows.md "Files in use"). Linux replaces
// a loaded file's name without touching the running program's copy, so nothing is held there.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace envfix::fs {

struct HeldFile {
    std::filesystem::path file;  // the loaded file (in one of `files`, or `files` itself)
    std::string program;  // the executable's file name ("python.exe")
    uint32_t pid = 0;
};

// Of `files` (absolute; a folder stands for everything under it), those a running program other
// than envfix has loaded, each once, in the order given. Windows: every process's modules (Toolhelp); processes that cannot be read (another
// user's, protected ones) are passed over. Elsewhere: none.
std::vector<HeldFile> programs_holding(const std::vector<std::filesystem::path>& files);

}  // namespace envfix::fs
