#pragma once
// Which environment a command works on (doctor, check, plan, install all take
// --python / --env / --app + --path), and every environment `envfix envs` lists.
//
//   resolve_target({})                         the active venv/conda env, else python3 on PATH
//   resolve_target({.python = "python3.12"})   an interpreter (a path, or a name on PATH)
//   resolve_target({.env = "/srv/venv"})       a venv or prefix folder
//   resolve_target({.app = "comfyui", .app_path = "D:/ComfyUI_windows_portable"})
//                                              the environment inside an app folder
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::probe {

struct TargetSpec {
    std::optional<std::filesystem::path> python;
    std::optional<std::filesystem::path> env;
    std::optional<std::string> app;
    std::optional<std::filesystem::path> app_path;
};

struct ResolveOptions {
    FactsOptions facts;
    Reporter* reporter = nullptr;  // notes (several environments in an app folder ...)
};

// The environment with its facts loaded (status says whether it ran). Errors:
// ExitCode::Usage (more than one of --python / --env / --app+--path, --app without --path),
// ExitCode::EnvNotFound (nothing at the path, not an environment, no python3 anywhere).
// A broken or foreign-OS environment is returned, not an error (status, problem): doctor can
// still read its files; commands that must run the interpreter call require_runnable().
Expected<Environment> resolve_target(const TargetSpec& spec, const ResolveOptions& opts);

// ExitCode::EnvBroken (the environment's problem) unless env.status is Ok.
Expected<void> require_runnable(const Environment& env);

// The environment an app folder holds. The extension point for app profiles: each AppLayout
// lists, for an app folder, the places its Python environment may be, in order. Today one
// generic layout serves every app name (python_embeded/, venv/, .venv/, env/,
// installer_files/env/, system/python/, the folder itself); app-specific ones
// (ComfyUI, A1111, Forge, InvokeAI ...) are added to app_layouts() and win over it.
struct AppLayout {
    std::string name;  // lower case: "comfyui"; "" = generic
    std::vector<std::filesystem::path> (*candidates)(const std::filesystem::path& app_dir);
};
const std::vector<AppLayout>& app_layouts();
// Every environment found in the app folder, in the app layout's order (files only).
std::vector<Environment> app_environments(std::string_view app, const std::filesystem::path& app_dir);

struct DiscoverOptions {
    std::vector<std::filesystem::path> app_paths;  // app folders to look into
    std::string app;                                // their app name ("" generic)
    bool home = true;                               // ~/.virtualenvs, ~/.conda/environments.txt
    FactsOptions facts;
};

// Every environment found: the active one (else python3 on PATH), the app folders, then
// ~/.virtualenvs/* and conda's environments.txt; each once (same root), facts loaded.
std::vector<Environment> discover_environments(const DiscoverOptions& opts);

}  // namespace envfix::probe
