#include "layouts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fixtures.hpp"
#include "support.hpp"

namespace envfix::test {

namespace stdfs = std::filesystem;

std::vector<stdfs::path> pyenv_pythons(const std::vector<std::string>& versions) {
    std::map<std::string, stdfs::path> newest;  // "3.12" -> .../3.12.x/bin/python
    std::error_code ec;
    for (auto it = stdfs::directory_iterator("/root/.pyenv/versions", ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        auto name = it->path().filename().string();
        auto second_dot = name.find('.', name.find('.') + 1);
        auto mm = name.substr(0, second_dot);
        auto python = it->path() / "bin" / "python";
        if (!stdfs::exists(python)) continue;
        if (std::find(versions.begin(), versions.end(), mm) == versions.end()) continue;
        if (!newest.count(mm) || newest[mm] < python) newest[mm] = python;
    }
    std::vector<stdfs::path> out;
    for (const auto& v : versions)
        if (newest.count(v)) out.push_back(newest[v]);
    return out;
}

stdfs::path make_embedded(const stdfs::path& dir, const std::string& pth_text, const std::string& pth_name) {
    stdfs::create_directories(dir / "Lib" / "site-packages");
    // A real PE image stands in for python.exe: the reader takes the machine from its header.
    stdfs::copy_file(fatbin_fixture("win_short_names_86.dll"), dir / "python.exe", stdfs::copy_options::overwrite_existing);
    write_text(dir / "python312.zip", "PK\x05\x06" + std::string(18, '\0'));
    write_text(dir / "python312.dll", "MZ");
    write_text(dir / pth_name, pth_text);
    return dir;
}

stdfs::path make_windows_venv(const stdfs::path& dir, const std::string& cfg_text) {
    stdfs::create_directories(dir / "Lib" / "site-packages");
    stdfs::create_directories(dir / "Scripts");
    stdfs::copy_file(fatbin_fixture("win_short_names_86.dll"), dir / "Scripts" / "python.exe",
                     stdfs::copy_options::overwrite_existing);
    write_text(dir / "pyvenv.cfg", cfg_text);
    return dir;
}

stdfs::path make_conda_prefix(const stdfs::path& dir, const stdfs::path& python, const std::string& version) {
    stdfs::create_directories(dir / "conda-meta");
    stdfs::create_directories(dir / "bin");
    write_text(dir / "conda-meta" / ("python-" + version + "-h955ad1f_0.json"), "{\"name\": \"python\"}");
    write_text(dir / "conda-meta" / "history", "");
    stdfs::create_symlink(python, dir / "bin" / "python3");
    auto mm = version.substr(0, version.rfind('.'));
    stdfs::create_directories(dir / "lib" / ("python" + mm) / "site-packages");
    return dir;
}

void write_script(const stdfs::path& path, const std::string& text) {
    write_text(path, text);
    stdfs::permissions(path, stdfs::perms::owner_all | stdfs::perms::group_read | stdfs::perms::group_exec |
                                 stdfs::perms::others_read | stdfs::perms::others_exec);
}

void write_recording_python(const stdfs::path& path, const stdfs::path& log, const stdfs::path& python) {
    write_script(path, "#!/bin/sh\necho run >> '" + log.string() + "'\nexec '" + python.string() + "' \"$@\"\n");
}

int count_lines(const stdfs::path& file) {
    auto text = read_text(file);
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace envfix::test
