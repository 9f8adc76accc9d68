#pragma once
// Shared by every test: temporary folders, running the built envfix binary, real venvs made
// with `python3 -m venv`, test wheels built by tests/tools/mkwheel.py.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "envfix/common/process.hpp"

namespace envfix::test {

namespace stdfs = std::filesystem;

stdfs::path source_dir();
stdfs::path build_dir();
stdfs::path envfix_binary();
stdfs::path test_python();  // Debian's /usr/bin/python3 where present

// A fresh folder under the build tree's tmp/, removed at destruction (kept when
// ENVFIX_KEEP_TEST_DIRS is set, for debugging).
class TempDir {
public:
    explicit TempDir(const std::string& hint = "t");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    const stdfs::path& path() const { return path_; }
    stdfs::path operator/(const std::string& rel) const { return path_ / rel; }

private:
    stdfs::path path_;
};

struct RunResult {
    int code = -1;
    std::string out;
    std::string err;
    nlohmann::ordered_json json() const;  // parses out (test fails on bad JSON)
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// Runs the built binary with `args`. The environment is the test's, minus anything that
// could leak the developer's machine into the test (ENVFIX_*, VIRTUAL_ENV, CONDA_PREFIX,
// proxies, XDG dirs), with caches and config pointed into `home` when given, ENVFIX_READY_TREES=wait
// (ready trees made before envfix exits, none in the background), plus `env`.
RunResult run_envfix(const std::vector<std::string>& args, const EnvList& env = {},
                     const std::optional<stdfs::path>& home = std::nullopt, int timeout_s = 120);

// Any program, same isolation rules.
RunResult run_program(const std::vector<std::string>& argv, const EnvList& env = {}, int timeout_s = 300,
                      const std::optional<stdfs::path>& cwd = std::nullopt);

// `python -m venv dir` (real venv, with pip unless without_pip). Returns the venv's python.
stdfs::path make_venv(const stdfs::path& dir, bool without_pip = false,
                      const stdfs::path& python = test_python());

// Builds a wheel from a JSON spec with tests/tools/mkwheel.py; returns the wheel's path.
stdfs::path build_wheel(const nlohmann::ordered_json& spec, const stdfs::path& out_dir);

void write_text(const stdfs::path& p, const std::string& text);  // creates parent folders
// Several files under `base`: ('/'-separated path under it, text) each.
void write_texts(const stdfs::path& base, const std::vector<std::pair<std::string, std::string>>& files);
std::string read_text(const stdfs::path& p);

// Environment variables of this process set (or, with nullopt, unset) for one test, each put back
// as it was when the object is destroyed: for tests that call envfix's libraries themselves.
class EnvChanges {
public:
    EnvChanges() = default;
    EnvChanges(const EnvChanges&) = delete;
    EnvChanges& operator=(const EnvChanges&) = delete;
    ~EnvChanges();
    void set(const std::string& name, const std::optional<std::string>& value);

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace envfix::test
