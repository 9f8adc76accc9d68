#pragma once
// The parts of a new venv that differ by OS (venv_posix.cpp / venv_win32.cpp).
#include <filesystem>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/probe/python_facts.hpp"

namespace envfix::installer::venvplat {

struct Layout {
    std::string bin_name;                      // "bin" / "Scripts"
    std::filesystem::path site_packages;       // relative: lib/python3.12/site-packages, Lib/site-packages
    std::filesystem::path include;             // relative: include/python3.12 (3.11+), include, Include
    std::vector<std::filesystem::path> extra_dirs;  // lib64 is a link, made by install_interpreter
    std::string template_os;                   // venv/scripts/<this>: "posix" / "nt"
};
Layout layout(const probe::PythonFacts& base);

// The interpreter in the new venv: POSIX symlinks as venv makes them (bin/<name of the base
// executable> -> the base, python/python3/python3.X -> that name), Windows copies of the base's
// venv launcher (or of python.exe and its DLLs where there is none, as in an embeddable Python).
// Returns the path of the venv's interpreter inside `tmp`.
Expected<std::filesystem::path> install_interpreter(const std::filesystem::path& tmp, const probe::PythonFacts& base,
                                                    const std::filesystem::path& base_executable);

// The base's standard library folder (venv/scripts/ templates are there).
std::filesystem::path stdlib_dir(const probe::PythonFacts& base);

}  // namespace envfix::installer::venvplat
