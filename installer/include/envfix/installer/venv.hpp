#pragma once
// A virtual environment made by envfix itself, laid out as `python -m venv --without-pip`
// lays it out (pyvenv.cfg, the interpreter links or launcher copies, lib/pythonX.Y/site-packages,
// include/, the activation scripts from the base's own venv templates when it has them), for a
// given base interpreter. It needs no `venv` module in the base (embeddable Pythons have none).
// Built in a temporary folder beside the target and renamed into place, so a crash never
// leaves half a venv at the path. docs/install.md#creating-a-venv.
//
//   auto v = create_venv({.dir = "/srv/v", .base_python = "/usr/bin/python3.12"}, reporter);
#include <filesystem>
#include <string>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/probe/python_facts.hpp"

namespace envfix::installer {

struct VenvOptions {
    std::filesystem::path dir;
    std::filesystem::path base_python;   // a path or a name on PATH; "" = python3 on PATH
    std::string creator;                 // written to pyvenv.cfg as "envfix = <creator>" when set
};

struct VenvResult {
    std::filesystem::path python;  // the venv's interpreter
    bool created = false;          // false: `dir` was a venv already, left as it was
};

// Errors: EnvNotFound (no base interpreter), EnvBroken (the base does not run), BadInput
// ("install.venv_dir_busy": `dir` exists, is not empty and is no venv), file errors.
Expected<VenvResult> create_venv(const VenvOptions& options, Reporter& reporter);

// pyvenv.cfg as envfix writes it (pure): home, include-system-site-packages, version, and for
// Python 3.11 and later executable, as venv does; "envfix = …" when `creator` is set.
std::string pyvenv_cfg_text(const probe::PythonFacts& base, const std::filesystem::path& base_executable,
                            const std::filesystem::path& real_executable, const std::string& creator);

// A venv activation template with venv's placeholders replaced (__VENV_DIR__, __VENV_NAME__,
// __VENV_PROMPT__, __VENV_BIN_NAME__, __VENV_PYTHON__), quoted for the script's shell as
// CPython 3.12.8+ quotes them (POSIX shells: shlex.quote; .ps1: single quotes; .bat: as is).
// Pure.
struct VenvScriptValues {
    std::string dir, name, prompt, bin_name, python;
};
std::string render_venv_script(std::string_view templ, std::string_view script_name, const VenvScriptValues& values);

}  // namespace envfix::installer
