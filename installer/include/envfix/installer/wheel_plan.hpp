#pragma once
// Where every file of an opened wheel goes, and which files installing it generates
// (launchers, INSTALLER, REQUESTED), for one target interpreter. Pure: no file is touched; the
// stager writes what the plan says.
//
//   auto scheme = install_scheme(env);                     // purelib, platlib, scripts, ...
//   auto plan = plan_wheel(wheel, scheme, script_target(env), {.requested = true});
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/installer/wheel.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::installer {

// The install folders of one interpreter (pip's scheme). `headers_root`/<dist name> is where a
// wheel's .data/headers go: <prefix>/include/site/pythonX.Y in a venv, the include folder
// otherwise (pip's rule).
struct InstallScheme {
    std::filesystem::path purelib, platlib, scripts, data, headers_root;
    std::filesystem::path headers(std::string_view dist_name) const { return headers_root / std::string(dist_name); }
};

// Errors: ExitCode::EnvBroken when the interpreter's facts lack the paths.
Expected<InstallScheme> install_scheme(const probe::Environment& env);
// The folders a change to the environment writes under: the install scheme's and the root (the
// root alone where the scheme is unknown). Install and rollback begin their transactions with
// them; recovery accepts a journal's areas only among them.
std::vector<std::filesystem::path> environment_areas(const probe::Environment& env);

// What launchers and rewritten scripts point at.
struct ScriptTarget {
    std::string interpreter;            // sys.executable of the target ("/venv/bin/python")
    probe::LayoutOs layout = probe::LayoutOs::Posix;
    int python_major = 3, python_minor = 0;
    std::string interpreter_from_scripts;  // Windows: the interpreter relative to Scripts ("python.exe")
    // Windows: distlib's launchers in the environment's own pip (pip\_vendor\distlib\t64.exe,
    // w64.exe; -arm on ARM64), the bytes pip would put before a script; empty without pip.
    std::string console_launcher, gui_launcher;
};
ScriptTarget script_target(const probe::Environment& env, const InstallScheme& scheme);

struct WheelOptions {
    bool requested = true;  // write REQUESTED (the user named it, not a dependency)
    // PEP 610: the URL it was installed from, credentials stripped (file:// for local files);
    // nullopt for index installs, which get no direct_url.json.
    std::optional<std::string> direct_url;
};

// A path as its native string: an install holds one or two per file (17 000 for a torch stack),
// and libstdc++'s std::filesystem::path keeps a parsed list of its components beside the string
// (about 0.6 KB for a path in site-packages, ~1 µs to make). Made into a path where one is used.
using PathText = std::filesystem::path::string_type;

struct PlannedFile {
    enum class Kind {
        Extracted,  // an archive entry, copied as is
        Script,     // an archive entry under .data/scripts: "#!python" rewritten
        Generated,  // content below (launchers, INSTALLER, REQUESTED)
    };
    Kind kind = Kind::Extracted;
    PathText dest;                // absolute (native)
    bool dest_normal = false;     // dest lexically normal as made (a normal folder and a safe name): not checked again
    size_t entry = 0;             // archive entry (Extracted, Script)
    std::string content;          // Generated
    bool executable = false;      // exec bits (POSIX)
    bool launcher = false;        // mode as distlib sets it on launchers
    std::string record_path;      // the row's path in the installed RECORD
};

struct WheelPlan {
    std::string name;             // as METADATA writes it
    std::string canonical_name;
    std::string version;
    std::filesystem::path lib_dir;    // purelib or platlib (Root-Is-Purelib); RECORD paths are relative to it
    std::filesystem::path dist_info;  // the installed .dist-info folder
    std::vector<PlannedFile> files;   // RECORD and direct_url.json come after staging
    std::optional<std::string> direct_url;
    std::vector<Message> warnings;
};

// Errors: ExitCode::BadWheel: an unknown .data scheme ("wheel.data_scheme"), a script name that
// escapes or shadows python ("scripts.unsafe_name"), bad entry points.
Expected<WheelPlan> plan_wheel(const WheelFile& wheel, const InstallScheme& scheme, const ScriptTarget& target,
                               const WheelOptions& options);

// How many of the plan's files are archive entries copied as they are (what the unpacked-wheel
// cache keeps of a wheel). Pure.
size_t extracted_files(const WheelPlan& plan);

// A path as RECORD writes it: relative to `lib_dir` with "/" ("../../../bin/pip"), absolute
// when on another drive.
std::string record_path_for(const std::filesystem::path& dest, const std::filesystem::path& lib_dir);

// PEP 610 document for an archive: {"archive_info": {"hash": …, "hashes": {"sha256": …}}, "url": …}
// as pip writes it (keys sorted, ", " and ": " separators).
std::string direct_url_json(std::string_view url, std::string_view sha256_hex);
// "file:///abs/path" for a local file (percent-encoded as pathlib's as_uri()).
std::string file_url(const std::filesystem::path& absolute);

}  // namespace envfix::installer
