#pragma once
// Installing the wheels a plan or a lock names: each obtained (from a fetched wheel folder, from
// envfix's download folder, else downloaded with its sha256 and size checked), then installed
// with the distributions that go out, in ONE transaction through install() (install.hpp).
// `envfix apply` calls install_planned_wheels(); this is the one place where "install these
// planned wheels" happens, so snapshots, verify and rollback wrap it in one spot.
//
//   PlannedInstallRequest req{.wheels = planned_wheels(plan), .remove = planned_removals(plan),
//                             .sources = {.download_dir = cache / "apply-wheels", .http = http}};
//   auto r = install_planned_wheels(env, req, reporter);     // Expected<InstallResult>
//   auto v = install_planned_verified(env, req, {.checks = {.reporter = &reporter}}, reporter);
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/lock_file.hpp"
#include "envfix/installer/verified_install.hpp"
#include "envfix/network/http_client.hpp"
#include "envfix/plan/plan.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::installer {

// One wheel to bring, as a plan or a lock names it.
struct WheelToInstall {
    std::string name;
    std::string version;
    std::string filename;
    std::string url;           // without credentials; the HTTP options' netrc supplies them
    std::string sha256;        // "" only for plan wheels of hashless (nightly) pages
    std::optional<uint64_t> size;
    bool requested = true;     // REQUESTED: the framework packages the plan asked for
};

std::vector<WheelToInstall> planned_wheels(const plan::Plan& plan);
std::vector<std::string> planned_removals(const plan::Plan& plan);  // RemovedDist names
std::vector<WheelToInstall> locked_wheels(const std::vector<LockChange>& changes);

struct WheelSources {
    // A folder `envfix fetch` prepared (flat or PEP 503), or its URL: wheels are looked up there
    // first, by file name, and must have the expected sha256.
    std::optional<std::string> folder;
    std::string layout = "auto";         // auto (a local folder: either), flat, pep503
    std::filesystem::path download_dir;  // downloads kept here, <sha256>/<file name>
    network::HttpOptions http;  // offline: nothing is downloaded (NotCached)
    int parallel = 4;
};

// The local files of `wheels`, in order. Errors: HashMismatch (a folder's file or a download
// with other bytes), NotCached (offline, not in the folder or the download folder), the
// downloader's (Network, HttpStatus, Tls ...), Interrupted.
Expected<std::vector<std::filesystem::path>> obtain_wheels(const std::vector<WheelToInstall>& wheels, const WheelSources& sources,
                                                           Reporter& reporter);

struct PlannedInstallRequest {
    std::vector<WheelToInstall> wheels;
    std::vector<std::string> remove;
    WheelSources sources;
    bool wait_for_lock = false;
    std::string snapshot_reason;  // not empty: a snapshot first (InstallRequest::snapshot_reason)
};

// Obtains the wheels, then install() with them and the removals as one transaction. Errors:
// obtain_wheels()' and install()'s; the environment is as it was on any error.
Expected<InstallResult> install_planned_wheels(const probe::Environment& env, const PlannedInstallRequest& request, Reporter& reporter);

// The same, verified as `envfix install` verifies (verified_install.hpp): both levels after the
// change, the change undone when the framework level fails where it passed before. Errors:
// install_planned_wheels()' and install_verified()'s.
Expected<VerifiedInstall> install_planned_verified(const probe::Environment& env, const PlannedInstallRequest& request,
                                                   const VerifiedInstallOptions& options, Reporter& reporter);

}  // namespace envfix::installer
