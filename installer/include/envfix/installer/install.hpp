#pragma once
// Installing wheel files into an environment, and removing distributions, as one transaction:
// the interface `envfix install` uses, and the one a plan executes (the wheels it downloaded
// plus the distributions it removes, e.g. the old torch and its companions).
//
//   InstallRequest req;
//   req.wheels = {{.file = "torch-…whl"}, {.file = "torchvision-…whl"}};
//   req.remove = {"xformers"};                       // goes in the same transaction
//   auto r = install(env, req, reporter);            // Expected<InstallResult>
//
// Everything that can be checked is checked before the environment is touched (tags,
// Requires-Python, the wheels' structure and RECORD rows, the old distributions' RECORDs,
// dependencies, free space); the rest (every file's hash while it is written) before anything
// moves. docs/install.md.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/prepared_wheels.hpp"
#include "envfix/installer/transaction.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::installer {

struct InstallResult;

struct WheelRequest {
    std::filesystem::path file;              // a local .whl
    bool requested = true;                   // REQUESTED: named by the user, not a dependency
    // PEP 610 direct_url.json: the URL it came from (credentials are stripped here). nullopt:
    // none (index installs). install_local_files() sets file:// URLs.
    std::optional<std::string> direct_url;
};

struct InstallRequest {
    std::vector<WheelRequest> wheels;
    std::vector<std::string> remove;         // installed distributions to remove too (any spelling)
    bool force_reinstall = false;            // reinstall a wheel whose exact version is installed
    bool check_dependencies = true;          // false (--no-deps): unmet requirements only warn
    bool dry_run = false;                    // check and plan; change nothing
    bool wait_for_lock = false;              // wait for another envfix instead of Locked (64)
    bool break_system_packages = false;      // install into an EXTERNALLY-MANAGED system Python
    unsigned threads = 0;                    // 0: twice the cores (4 to 32)
    // Ready trees (unpacked_cache.hpp): a wheel of at least this many files that links from its
    // unpacked entry renames the tree made for it into staging when there is one, and asks for
    // the next (InstallResult::ready_trees_wanted). 0: none used or asked for.
    size_t ready_trees_from = 0;
    // Runs once the new files are in place, before the change is final: the lock is held and the
    // old files are kept, so a crash or kill meanwhile gives the old environment back. Returns
    // false to undo the change (InstallResult::reverted). install_verified() sets it to the
    // verification (verified_install.hpp); unset, the change is final at once.
    std::function<bool(const InstallResult&)> accept;
    // Set: the wheels come from a Prepare stage that runs beside this install (prepared_wheels.hpp):
    // `wheels` then name each wheel's file, and the install waits on the stage's results where it
    // needs them. Unset: `wheels` are local files, opened at once.
    PreparedWheels* prepared = nullptr;
    // Not empty: a snapshot (snapshot.hpp) is taken under the lock just before the environment
    // changes, with this as its reason ("install torch 2.11.0+cu128"). `envfix install` sets it.
    std::string snapshot_reason;
};

struct DistChange {
    std::string name;
    std::string version;
    std::filesystem::path dist_info;
    std::string wheel;        // the file (installed ones)
    size_t files = 0;
    uint64_t bytes = 0;
};

struct UnmetRequirement {
    std::string dist;         // the distribution that requires it
    std::string requirement;  // as written in METADATA
    std::string found;        // the version there will be, "" when absent
};

struct InstallResult {
    std::vector<DistChange> installed;
    std::vector<DistChange> removed;
    std::vector<DistChange> unchanged;      // that exact version is installed already
    std::vector<UnmetRequirement> unmet;    // with check_dependencies: empty, or it failed
    std::vector<RecoveryOutcome> recovered; // interrupted transactions finished first
    bool site_enabled = false;              // an embedded Python's ._pth got "import site"
    std::string transaction;                // its id ("" when nothing changed)
    std::string snapshot;                   // the snapshot taken before the change ("" when none)
    size_t files_written = 0;               // new files put in place (not counting files_kept)
    size_t files_kept = 0;                  // unchanged files of a replaced version, left in place or linked, not rewritten
    uint64_t bytes_written = 0;             // of files_written
    size_t moves = 0;
    double seconds_stage = 0, seconds_commit = 0, seconds_total = 0;
    double seconds_moving = 0;              // the window between the old and the new environment
    bool reverted = false;                  // `accept` refused it: the environment is the old one
    double seconds_accept = 0;              // spent in `accept`
    size_t ready_trees_used = 0;            // wheels whose files came as a ready tree
    bool ready_trees_wanted = false;        // a tree was asked for: make_ready_trees() has work
};

// Errors: the wheels' (BadWheel 60, NotInstallable 67, BadInput 3), IncompatibleWheel 61 (tags,
// Requires-Python), RequirementsUnmet 30, NoRecord 68, Locked 64, PermissionDenied 63
// (EXTERNALLY-MANAGED, read-only folders), DiskFull 62, EnvInconsistent 25 (a file where a
// folder is needed), Usage 2 (an embedded Python whose ._pth needs "import site" and no
// consent), Interrupted 130. On any error the environment is as it was.
Expected<InstallResult> install(const probe::Environment& env, const InstallRequest& request, Reporter& reporter);

// The environment's interrupted transactions, finished or undone under its lock (`envfix
// recover`; install does this first).
Expected<std::vector<RecoveryOutcome>> recover(const probe::Environment& env, bool wait_for_lock, Reporter& reporter);

// An embedded Python's ._pth with "import site" enabled: a "#import site" line uncommented,
// else the line appended (what ComfyUI's build does). Pure.
std::string enable_import_site(std::string_view pth_text);

}  // namespace envfix::installer
