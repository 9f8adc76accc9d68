#pragma once
// Every exit code envfix returns. docs/cli.md lists them; a test checks that it does.
// Ranges: 1-9 general, 10-19 probe, 20-29 doctor/environments, 30-39 check, 40-49 plan and
// data files, 50-59 network and index, 60-69 install/rollback, 70-79 verify, 80-89 apply.
#include <string_view>
#include <vector>

namespace envfix {

// The codes and their meanings aligned by hand, read as a table.
// clang-format off
enum class ExitCode : int {
    Ok = 0,
    Internal = 1,            // a bug or an unexpected system failure
    Usage = 2,               // bad command line
    BadInput = 3,            // a file or argument that cannot be read or parsed
    Declined = 4,            // the user answered no to a question; nothing was changed
    LibraryMissing = 5,      // a system library envfix loads when needed (libcurl, libarchive) is not installed
    // probe
    NoDriver = 10,           // no NVIDIA driver library
    NoDevice = 11,           // CUDA_ERROR_NO_DEVICE
    DriverMismatch = 12,     // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803)
    CompatNotSupported = 13, // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)
    DriverBroken = 14,       // library lacks an entry point, cuInit failed otherwise
    DevicesHidden = 15,      // CUDA_VISIBLE_DEVICES hides every GPU
    // doctor / environments
    GpuNotServed = 20,       // the framework has no kernels for a GPU
    DriverTooOld = 21,       // the driver cannot run the framework's CUDA runtime
    CpuOnlyBuild = 22,       // CPU-only framework on a GPU machine
    EnvNotFound = 23,        // no such environment / interpreter
    EnvBroken = 24,          // the environment cannot be read or run
    EnvInconsistent = 25,    // companions built for another torch, mixed runtimes, duplicates
    NoFramework = 26,        // no framework installed in the environment
    // check
    RequirementsUnmet = 30,
    // plan / data
    NothingFits = 40,        // no release/variant runs on this machine
    ProfileInvalid = 41,     // a profiles/ YAML file fails its schema
    ConfigInvalid = 42,      // envfix config file invalid
    DependencyConflict = 43, // the framework's dependencies cannot all be satisfied
    // network / index
    Network = 50,            // connection failed, timed out, reset
    HttpStatus = 51,         // 404 and other HTTP errors
    BadIndexPage = 52,       // not an index page / wrong schema / truncated
    HashMismatch = 53,       // a download's hash differs from the index's
    Tls = 54,                // TLS verification failed
    NotCached = 55,          // --offline and the cache lacks it
    // install / rollback
    BadWheel = 60,           // corrupt, truncated, unsafe or inconsistent wheel
    IncompatibleWheel = 61,  // another platform / Python
    DiskFull = 62,
    PermissionDenied = 63,   // read-only site-packages and the like
    Locked = 64,             // another envfix holds the environment's lock; a running program holds a file (Windows)
    RolledBack = 65,         // verify failed after install; the environment was rolled back
    NoSnapshot = 66,         // rollback target missing
    NotInstallable = 67,     // sdist or nothing installable for the request
    NoRecord = 68,           // an installed distribution without RECORD: envfix cannot remove it
    UnsafeState = 69,        // envfix's own records in an environment name something outside it
    // verify
    VerifyDriverFailed = 70,
    VerifyFrameworkFailed = 71,
    // apply
    ApplyChanged = 80,       // apply changed something (success)
    ApplyFailed = 81,        // apply failed for at least one environment
    Interrupted = 130,       // Ctrl-C
};
// clang-format on

struct ExitCodeInfo {
    ExitCode code;
    std::string_view name;
    std::string_view meaning;
};

const std::vector<ExitCodeInfo>& exit_code_table();
std::string_view exit_code_name(ExitCode c);

}  // namespace envfix
