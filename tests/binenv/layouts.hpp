#pragma once
// Environment layouts made by the tests: real venvs come from `python -m venv`
// (test::make_venv); these build what cannot be made with a real tool here (a Windows
// embeddable Python, a Windows venv, a conda prefix) and the interpreters that misbehave.
#include <filesystem>
#include <string>
#include <vector>

namespace envfix::test {

// pyenv interpreters present on this machine among `versions` ("3.8" ... "3.13"), newest
// patch of each; empty on machines without pyenv (tests skip).
std::vector<std::filesystem::path> pyenv_pythons(const std::vector<std::string>& versions);

// ComfyUI-portable style: <dir>/python.exe (a real PE header, AMD64), python312.zip, <pth>
// (the ._pth text), Lib/site-packages/. Returns <dir>.
std::filesystem::path make_embedded(const std::filesystem::path& dir, const std::string& pth_text,
                                    const std::string& pth_name = "python312._pth");

// A Windows venv: pyvenv.cfg, Scripts/python.exe, Lib/site-packages.
std::filesystem::path make_windows_venv(const std::filesystem::path& dir, const std::string& cfg_text);

// A conda prefix: conda-meta/ with a python-<version>-*.json record, bin/python3 linked to
// `python`, lib/python3.X/site-packages.
std::filesystem::path make_conda_prefix(const std::filesystem::path& dir, const std::filesystem::path& python,
                                        const std::string& version);

// An executable shell script at `path` (chmod 755).
void write_script(const std::filesystem::path& path, const std::string& text);

// A stand-in interpreter that appends a line to `log` each time it runs, then execs `python`.
void write_recording_python(const std::filesystem::path& path, const std::filesystem::path& log,
                            const std::filesystem::path& python);
int count_lines(const std::filesystem::path& file);

}  // namespace envfix::test
