#pragma once
// Python environments as they lie on disk: a venv (pyvenv.cfg), a conda prefix (conda-meta/),
// a Windows embeddable Python (python.exe + python3XX._pth, ComfyUI portable's python_embeded),
// or a plain interpreter's prefix. Reading a layout needs files only, so a Windows layout is
// read on Linux too; the interpreter's facts come from one run of it (interpreter_facts.hpp),
// or from the files where it cannot run. docs/environments.md describes the rules.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/message.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/probe/python_facts.hpp"

namespace envfix::probe {

enum class EnvKind { Venv, Conda, Embedded, System };
std::string_view env_kind_name(EnvKind k);  // "venv", "conda", "embedded", "system"

enum class LayoutOs { Posix, Windows };      // bin/python vs python.exe / Scripts\python.exe
std::string_view layout_os_name(LayoutOs o);  // "posix", "windows"
LayoutOs host_layout_os();                    // the layout this machine's interpreters run from

enum class EnvStatus {
    Ok,         // the interpreter ran: facts complete
    FilesOnly,  // a layout of another OS (Windows layout read on Linux): facts from files
    Broken,     // it should run here and does not (missing, fails, times out): facts from files
};
std::string_view env_status_name(EnvStatus s);  // "ok", "files-only", "broken"

// How an environment was found.
enum class EnvOrigin {
    Active,       // VIRTUAL_ENV / CONDA_PREFIX
    PathPython,   // python3 on PATH
    GivenPython,  // --python
    GivenEnv,     // --env
    App,          // --app / --path
    Virtualenvs,  // ~/.virtualenvs/*
    CondaList,    // ~/.conda/environments.txt
};
std::string_view env_origin_name(EnvOrigin o);  // "active", "path", "python", "env", "app", "virtualenvs", "conda"

struct Environment {
    EnvKind kind = EnvKind::System;
    LayoutOs layout_os = LayoutOs::Posix;
    std::filesystem::path root;         // venv folder, conda prefix, python_embeded, interpreter prefix
    std::filesystem::path interpreter;  // python executable as found (a venv's symlink is kept)
    std::optional<std::filesystem::path> pyvenv_cfg;  // venv only
    std::optional<std::filesystem::path> pth_file;    // embedded only: python3XX._pth
    std::vector<std::filesystem::path> site_packages; // where distributions are: from facts
    EnvOrigin origin = EnvOrigin::GivenEnv;
    std::string app;                    // origin App: the app name given
    std::filesystem::path app_path;     // origin App: the app folder given
    EnvStatus status = EnvStatus::Ok;
    std::optional<Error> problem;       // why FilesOnly / Broken: one line (ExitCode::EnvBroken)
    std::vector<Message> notes;         // worth telling: several envs in an app folder, ...
    PythonFacts facts;

    bool runnable() const { return status == EnvStatus::Ok; }
};

// `p` made absolute and lexically normal, without a trailing separator (how environments name
// their folders).
std::filesystem::path absolute_normal(const std::filesystem::path& p);

// The layout of a folder, from its files only (no interpreter runs; facts empty).
// ExitCode::EnvNotFound when the folder does not exist or is no environment of a known layout.
Expected<Environment> inspect_environment_dir(const std::filesystem::path& dir);
// The environment an interpreter belongs to (its venv, conda prefix, embedded folder, prefix).
// ExitCode::EnvNotFound when `python` does not exist.
Expected<Environment> inspect_interpreter(const std::filesystem::path& python);

// Facts derived from files where the interpreter cannot run: ran = false, `unknown` lists what
// could not be derived. Pure apart from reading the layout's small files.
PythonFacts facts_from_files(const Environment& env);

class FactsCache;

struct FactsOptions {
    FactsCache* cache = nullptr;                   // nullptr: always run
    std::chrono::milliseconds timeout{20000};      // one interpreter start (cold disks, antivirus)
    Reporter* reporter = nullptr;                  // -vv: where the facts came from, and how long
};

// Fills env.facts, env.status, env.problem and env.site_packages: runs the interpreter once
// (or takes its facts from the cache), else derives them from files.
void load_facts(Environment& env, const FactsOptions& opts);

// pyvenv.cfg as key = value lines ("home", "version", "version_info", "implementation",
// "include-system-site-packages"); keys lower-cased, values trimmed.
std::vector<std::pair<std::string, std::string>> parse_pyvenv_cfg(std::string_view text);
// An embedded Python's ._pth: its path lines, and whether "import site" is active.
struct PthFile {
    std::vector<std::string> paths;
    bool import_site = false;
};
PthFile parse_pth(std::string_view text);

}  // namespace envfix::probe
