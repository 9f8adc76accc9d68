#include "envfix/common/exit_codes.hpp"

namespace envfix {

// A table laid out by hand.
// clang-format off
const std::vector<ExitCodeInfo>& exit_code_table() {
    static const std::vector<ExitCodeInfo> t = {
        {ExitCode::Ok, "ok", "success"},
        {ExitCode::Internal, "internal", "unexpected failure (a bug, or the system refused something)"},
        {ExitCode::Usage, "usage", "bad command line"},
        {ExitCode::BadInput, "bad-input", "a file or argument could not be read or parsed"},
        {ExitCode::NoDriver, "no-driver", "no NVIDIA driver library found"},
        {ExitCode::NoDevice, "no-device", "the driver sees no CUDA GPU (CUDA_ERROR_NO_DEVICE)"},
        {ExitCode::DriverMismatch, "driver-mismatch",
         "driver library and kernel module differ (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)"},
        {ExitCode::CompatNotSupported, "compat-not-supported",
         "forward-compatibility package on a GPU that does not take it (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)"},
        {ExitCode::DriverBroken, "driver-broken", "the driver library is unusable (missing entry point, cuInit failed)"},
        {ExitCode::DevicesHidden, "devices-hidden", "CUDA_VISIBLE_DEVICES hides every GPU"},
        {ExitCode::GpuNotServed, "gpu-not-served", "the framework holds no kernels for a GPU"},
        {ExitCode::DriverTooOld, "driver-too-old", "the driver cannot run the framework's CUDA runtime"},
        {ExitCode::CpuOnlyBuild, "cpu-only-build", "a CPU-only framework build on a machine with a GPU"},
        {ExitCode::EnvNotFound, "env-not-found", "no such environment or interpreter"},
        {ExitCode::EnvBroken, "env-broken", "the environment cannot be read or its interpreter cannot run"},
        {ExitCode::EnvInconsistent, "env-inconsistent",
         "companion packages built for another framework version, mixed CUDA runtimes, or duplicates"},
        {ExitCode::NoFramework, "no-framework", "no framework installed in the environment"},
        {ExitCode::RequirementsUnmet, "requirements-unmet", "an installed distribution's requirement does not hold"},
        {ExitCode::NothingFits, "nothing-fits", "no release and variant runs on this machine"},
        {ExitCode::ProfileInvalid, "profile-invalid", "a profiles/ YAML file fails its schema"},
        {ExitCode::ConfigInvalid, "config-invalid", "the envfix configuration file is invalid"},
        {ExitCode::DependencyConflict, "dependency-conflict", "the framework's dependencies cannot all be satisfied from the indexes"},
        {ExitCode::Network, "network", "connection failed, timed out or was reset"},
        {ExitCode::HttpStatus, "http-status", "the server answered with an HTTP error (404 ...)"},
        {ExitCode::BadIndexPage, "bad-index-page", "a page is not a package index, has the wrong schema, or is truncated"},
        {ExitCode::HashMismatch, "hash-mismatch", "downloaded bytes differ from the hash the index gives"},
        {ExitCode::Tls, "tls", "TLS verification failed"},
        {ExitCode::NotCached, "not-cached", "--offline and the cache lacks what is needed"},
        {ExitCode::BadWheel, "bad-wheel", "a wheel is corrupt, truncated, unsafe or inconsistent"},
        {ExitCode::IncompatibleWheel, "incompatible-wheel", "a wheel for another platform or Python"},
        {ExitCode::DiskFull, "disk-full", "no space left on the device"},
        {ExitCode::PermissionDenied, "permission-denied", "a file or folder cannot be written"},
        {ExitCode::Locked, "locked", "another envfix holds the environment's lock"},
        {ExitCode::RolledBack, "rolled-back", "verification failed after the change; the environment was rolled back"},
        {ExitCode::NoSnapshot, "no-snapshot", "the snapshot to roll back to does not exist"},
        {ExitCode::NotInstallable, "not-installable", "nothing installable for the request (sdist only, no wheel)"},
        {ExitCode::Declined, "declined", "you answered no to a question; nothing was changed"},
        {ExitCode::LibraryMissing, "library-missing", "a system library envfix needs for this is not installed; the message names its package"},
        {ExitCode::NoRecord, "no-record", "an installed distribution has no RECORD, so envfix cannot remove or replace it"},
        {ExitCode::UnsafeState, "unsafe-state", "a journal, snapshot or link in the environment leads outside it; nothing was done"},
        {ExitCode::VerifyDriverFailed, "verify-driver-failed", "the Driver API kernel test failed"},
        {ExitCode::VerifyFrameworkFailed, "verify-framework-failed", "the framework's GPU operations failed"},
        {ExitCode::ApplyChanged, "apply-changed", "apply changed at least one environment (success)"},
        {ExitCode::ApplyFailed, "apply-failed", "apply failed for at least one environment"},
        {ExitCode::Interrupted, "interrupted", "interrupted (Ctrl-C); every environment left as it was"},
    };
    return t;
}
// clang-format on

std::string_view exit_code_name(ExitCode c) {
    for (const auto& i : exit_code_table())
        if (i.code == c) return i.name;
    return "unknown";
}

}  // namespace envfix
