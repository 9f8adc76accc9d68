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
#include "envfix/probe/app_folder.hpp"
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
    // App profiles (apps/app_profiles.hpp, AppCatalog::signatures()): an app folder is then
    // read with its app's layout, and --path alone names the app it finds. nullptr: generic layout.
    const std::vector<AppSignature>* apps = nullptr;
};

// The environment with its facts loaded (status says whether it ran). Errors:
// ExitCode::Usage (more than one of --python / --env / --app+--path, --app without --path),
// ExitCode::EnvNotFound (nothing at the path, not an environment, no python3 anywhere).
// A broken or foreign-OS environment is returned, not an error (status, problem): doctor can
// still read its files; commands that must run the interpreter call require_runnable().
Expected<Environment> resolve_target(const TargetSpec& spec, const ResolveOptions& opts);

// ExitCode::EnvBroken (the environment's problem) unless env.status is Ok.
Expected<void> require_runnable(const Environment& env);

// The environment an app folder holds. App profiles (`apps`, app_folder.hpp) say where each app
// keeps it, per layout; without them, or for a folder no profile recognises, the generic layout
// serves every app name (python_embeded/, venv/, .venv/, env/, installer_files/env/,
// system/python/, the folder itself). app_layouts() holds that generic layout.
struct AppLayout {
    std::string name;  // lower case: "comfyui"; "" = generic
    std::vector<std::filesystem::path> (*candidates)(const std::filesystem::path& app_dir);
};
const std::vector<AppLayout>& app_layouts();
// Every environment found in the app folder, in the app layout's order (files only). With
// `apps`: the layouts of the app named (`app` may be an alias; "" = the app the folder's markers
// show), and env.app is that app's name.
std::vector<Environment> app_environments(std::string_view app, const std::filesystem::path& app_dir,
                                          const std::vector<AppSignature>* apps = nullptr);
// Where app_environments() looks, in order, and the app name it settles on (files only).
struct AppEnvironmentDirs {
    std::string app;  // the profile's name when a profile applies, else `app` as given
    bool recognised = false;  // a profile's markers matched the folder
    std::vector<std::filesystem::path> dirs;
};
AppEnvironmentDirs app_environment_dirs(std::string_view app, const std::filesystem::path& app_dir,
                                        const std::vector<AppSignature>* apps = nullptr);

struct DiscoverOptions {
    std::vector<std::filesystem::path> app_paths;  // app folders to look into
    std::string app;                                // their app name ("" generic)
    bool home = true;                               // ~/.virtualenvs, ~/.conda/environments.txt
    FactsOptions facts;
    const std::vector<AppSignature>* apps = nullptr; // app profiles, as in ResolveOptions
};

// Every environment found: the active one (else python3 on PATH), the app folders, then
// ~/.virtualenvs/* and conda's environments.txt; each once (same root), facts loaded.
std::vector<Environment> discover_environments(const DiscoverOptions& opts);

}  // namespace envfix::probe
