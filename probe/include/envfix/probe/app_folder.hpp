#pragma once
// Recognising an app's folder (ComfyUI, A1111, Forge, InvokeAI ...) from its files, and finding
// such folders in the current folder and the usual places. Files only: a Windows layout is
// recognised on Linux too. The data (which files mark which app, where its environment is) comes
// from the app profiles (profiles/apps/*.yaml, loaded by apps/app_profiles.hpp); docs/apps.md
// describes the rules.
//
//   auto matches = match_app_folder("/home/me/ComfyUI", signatures);   // every app x layout that fits
//   auto found = find_app_folders(signatures, {.app = "comfyui"});      // cwd + usual places
//   auto dirs = environment_dirs(found[0]);                             // where its Python may be
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/platform.hpp"

namespace envfix::probe {

// A launcher script line that names the app's venv (A1111's webui-user.sh `venv_dir=...`,
// webui-user.bat `set VENV_DIR=...`).
struct VenvSetting {
    std::string file;  // relative to the app's code folder
    std::string key;   // variable name; shell files compare it exactly, .bat files ignoring case
};

// One way an app lies on disk: a portable package, a git checkout with a venv, ...
// Paths are relative to the folder being tested, with '/' separators; ".." is allowed (a portable
// package's ComfyUI/ folder finds ../python_embeded).
struct AppLayoutSpec {
    std::string name;                       // "portable", "git"
    std::vector<platform::Os> os;           // where the app is installed this way (empty: any)
    std::vector<std::string> markers;       // must all exist
    std::vector<std::string> absent;        // must not exist (tells Forge from A1111)
    std::vector<VenvSetting> venv_settings; // read first: a venv the user configured
    std::vector<std::string> environments;  // environment folders, in the order the app uses them
    std::string code = ".";                 // the app's own files (requirements, launch scripts)
    bool pip_may_be_missing = false;        // an embeddable Python: pip only if someone added it
    std::vector<std::string> start;         // the command that starts the app; "{python}" = interpreter
    std::string launcher;                   // what users run instead, relative to the folder ("run_nvidia_gpu.bat")
};

// Where to look for an app when no folder is given: "~/ComfyUI", "C:/ComfyUI_windows_portable",
// "~/Downloads/ComfyUI_windows_portable*" ('*' at the end of the last part: any folder starting so).
struct AppPlace {
    platform::Os os = platform::Os::Linux;
    std::string path;
};

// What detection needs of an app profile.
struct AppSignature {
    std::string name;                  // "comfyui" (what --app takes)
    std::string display;               // "ComfyUI"
    std::vector<std::string> aliases;  // other names --app accepts ("comfy")
    std::vector<AppLayoutSpec> layouts;
    std::vector<AppPlace> places;

    bool answers_to(std::string_view name_or_alias) const;  // case-insensitive
};

// A profile's '/'-separated relative path below `dir` ("ComfyUI/main.py", "../python_embeded"),
// lexically normal.
std::filesystem::path profile_path(const std::filesystem::path& dir, std::string_view rel);

// The signature answering to a name or alias, or nullptr.
const AppSignature* find_signature(const std::vector<AppSignature>& apps, std::string_view name);

struct AppFolderMatch {
    const AppSignature* app = nullptr;
    const AppLayoutSpec* layout = nullptr;
    std::filesystem::path folder;  // absolute, normalised
};

// Every (app, layout) whose markers `dir` has, in profile then layout order. `only` restricts
// the apps to one (nullptr: all).
std::vector<AppFolderMatch> match_app_folder(const std::filesystem::path& dir, const std::vector<AppSignature>& apps,
                                             const AppSignature* only = nullptr);

// The environment folders a match points at, in order, de-duplicated: the venv the launcher
// scripts configure (venv_settings), then the layout's `environments`. Folders may not exist.
std::vector<std::filesystem::path> environment_dirs(const AppFolderMatch& m);
// The same for every layout of an app at once, inside `dir` only (an app named with --app whose
// markers are missing).
std::vector<std::filesystem::path> all_environment_dirs(const AppSignature& app, const std::filesystem::path& dir);

// A venv setting's value from a launcher script (pure): the last active assignment of `key`
// ("venv_dir=/x", "export venv_dir=\"x\"", "set VENV_DIR=x", "set \"VENV_DIR=x\""); nullopt when
// none, or when it is empty or "-" (A1111: no venv). `bat` selects cmd.exe syntax.
std::optional<std::string> parse_venv_setting(std::string_view text, std::string_view key, bool bat);

struct AppSearch {
    std::optional<std::string> app;          // only this app (name or alias); nullopt: every app
    std::optional<std::filesystem::path> cwd;   // default: the current folder
    std::optional<std::filesystem::path> home;  // default: fs::home_dir()
    platform::Os os = platform::current_os();   // whose usual places
    bool usual_places = true;  // false: the current folder and its parents only
};

// Folders of known apps in the current folder (else the nearest of its parents that is one: a
// user standing in ComfyUI_windows_portable/ComfyUI/custom_nodes means that package) and the
// usual places of `search.os`, each installation once (same folder and app; a portable package
// found at its root and through its code folder counts once). Files only.
std::vector<AppFolderMatch> find_app_folders(const std::vector<AppSignature>& apps, const AppSearch& search);

// A place with "~" replaced by `home` and a trailing '*' expanded (sorted); only existing folders.
std::vector<std::filesystem::path> expand_place(std::string_view place, const std::optional<std::filesystem::path>& home);

}  // namespace envfix::probe
