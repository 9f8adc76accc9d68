#pragma once
// The app a command works on (--app NAME, --path DIR, or neither: the current folder and the
// usual places), with its profile and the Python environment to target; and, for an app found,
// the constraint check of a planned framework change with its files read. doctor, check, plan,
// install and apply call these; the CLI wraps them (cli/src/app_target.hpp).
//
//   auto catalog = value_or_throw(load_app_profiles());
//   auto t = resolve_app_target(catalog, {.app = "comfyui"}, {.reporter = &rep});
//   t->profile, t->layout, t->folder, t->env                  // env: facts loaded
//   auto c = check_app_target(*t, {{"torch", "2.8.0+cu128"}}, &matrix);   // before installing
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "envfix/apps/app_constraints.hpp"
#include "envfix/apps/app_profile.hpp"
#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/probe/app_folder.hpp"
#include "envfix/probe/target.hpp"

namespace envfix::apps {

struct AppTargetSpec {
    std::optional<std::string> app;  // name or alias; nullopt: the app the folder shows
    std::optional<std::filesystem::path> path;  // the app's folder; nullopt: search
};

struct AppTargetOptions {
    probe::AppSearch search;  // where to search without --path (its `app` is set from the spec)
    probe::FactsOptions facts;
    Reporter* reporter = nullptr;  // notes; the question when several folders are found
    // Several folders found: ask which through reporter->confirm() (one question per folder, the
    // first yes wins). false (--yes, scripts): refuse, naming them (ExitCode::Usage).
    bool ask = true;
};

struct AppTarget {
    const AppProfile* profile = nullptr;  // nullptr: a folder no profile recognises (--path alone)
    // The layout its files match; where none matches, the layout whose environment folder holds
    // `env` (its code folder is still where the requirement files are); nullptr when neither.
    const probe::AppLayoutSpec* layout = nullptr;
    std::filesystem::path folder;  // absolute
    probe::Environment env;  // facts loaded (status says whether it ran)
    std::vector<std::string> start;  // the start command, "{python}" replaced; empty if unknown

    std::filesystem::path code_dir() const;  // where its requirement files are
};

// Errors: ExitCode::Usage (an unknown app name without a folder; several folders found and not
// chosen), ExitCode::EnvNotFound (no folder found, nothing at --path, no environment inside), as
// one line. An unknown name with a folder is a warning; the folder is read with the generic layout.
Expected<AppTarget> resolve_app_target(const AppCatalog& catalog, const AppTargetSpec& spec, const AppTargetOptions& opts);

// The app folders the search finds (`envfix apps --search`), each with its profile.
struct FoundApp {
    const AppProfile* profile = nullptr;
    const probe::AppLayoutSpec* layout = nullptr;
    std::filesystem::path folder;
};
std::vector<FoundApp> find_apps(const AppCatalog& catalog, const probe::AppSearch& search);

// The start command of a layout with the interpreter filled in ("{python}").
std::vector<std::string> start_command(const probe::AppLayoutSpec& layout, const probe::Environment& env);

// The requirement files a profile names for this folder and layout, read with their includes
// (globs expanded, files named relative to the folder). `os`: whose per-OS files apply.
struct AppRequirementsRead {
    std::vector<standards::RequirementsFile> files;
    std::vector<Error> problems;
};
AppRequirementsRead read_app_requirements(const AppProfile& profile, const std::filesystem::path& folder,
                                          const std::filesystem::path& code_dir, platform::Os os);

// check_app_constraints() with everything read from the app's folder and environment: installed
// distributions, requirement files, marker values (unknown ones from a files-only environment),
// whether pip is there.
AppConstraints check_app_target(const AppTarget& target, const std::vector<PlannedPackage>& planned, const matrix::Matrix* matrix);

// The OS whose files an environment uses (a Windows layout read on Linux: Windows).
platform::Os environment_os(const probe::Environment& env);

}  // namespace envfix::apps
