#pragma once
// What a driver must be for a variant and a GPU (torch-matrix.md §C, docs/matrix.md "Rules"):
//   - the GPU itself: a driver branch at least the architecture's first (Blackwell: 570) and, for
//     legacy GPUs, at most its last (Maxwell/Pascal/Volta: 580, Kepler: 470);
//   - the variant's CUDA runtime: the exact minimum of the bundled toolkit update first; else the
//     minor-version-compatibility floor of its major (works, with a warning: no PTX JIT there);
//   - no driver known (none detected, or planning for another machine): decided by architecture
//     only, with a warning naming the driver the choice needs.
#include <optional>
#include <string>

#include "envfix/common/message.hpp"
#include "envfix/matrix/matrix.hpp"

namespace envfix::matrix {

struct RuntimeNeed {
    std::string toolkit;  // "12.8.0" (or "12.8" when the update is unknown)
    DriverVersion exact;  // that update's minimum (the newest update's when unknown)
    bool update_known = true;  // false: "X.Y" with several updates; `exact` is the newest's
    bool figure_confirmed = true;  // false: the minimum itself is unconfirmed (Windows 13.x)
    std::optional<DriverVersion> floor;  // minor-version compatibility floor of the major
    CudaVersion cuda;
};

// nullopt for cpu variants (and for a toolkit the matrix does not list).
std::optional<RuntimeNeed> runtime_need(const Matrix& m, const Variant& v, OsKind os);

enum class RuntimeFit {
    Exact,  // driver >= the toolkit's own minimum
    MinorCompat,  // only the major's floor: runs, no PTX JIT, newer features may fail
    TooOld,
    Unknown,  // no driver version known
    NotNeeded,  // cpu variant
};

struct RuntimeVerdict {
    RuntimeFit fit = RuntimeFit::Unknown;
    std::optional<RuntimeNeed> need;
    Message reason;
};

RuntimeVerdict check_runtime(const Matrix& m, const Variant& v, OsKind os, const std::optional<DriverVersion>& driver);

enum class GpuDriverFit { Ok, TooOld, TooNew, Unknown };

struct GpuDriverVerdict {
    GpuDriverFit fit = GpuDriverFit::Unknown;
    std::optional<int> first_branch;  // from the architecture table
    std::optional<int> last_branch;
    Message reason;  // empty when nothing is known to say
};

// `label` names the GPU in the message.
GpuDriverVerdict check_gpu_driver(const Matrix& m, ComputeCapability cc, const std::optional<DriverVersion>& driver,
                                  const std::string& label);

// The lowest driver that would run variant `v` on os for these GPUs with the exact toolkit
// minimum: max(toolkit minimum, each GPU's first branch). nullopt for cpu variants.
std::optional<DriverVersion> driver_needed(const Matrix& m, const Variant& v, OsKind os, const std::vector<ComputeCapability>& gpus);

}  // namespace envfix::matrix
