#pragma once
// Choosing the framework release and wheel variant for a machine, from the matrix alone (pure;
// the planner adds the index check). Rules, in the order they decide (docs/matrix.md "Rules"):
//   1. platform and Python: the variant is published for this OS/CPU and Python version;
//   2. the caller's release filter (--torch ">=2.7,<2.10", app constraints);
//   3. every GPU is served (coverage.hpp): native SASS first; PTX JIT only when nothing native fits;
//   4. the driver supports every GPU and runs the variant's CUDA runtime (driver_rules.hpp);
//   5. stable before nightly (nightly when no stable release fits, or --channel nightly);
//   6. the newest release that fits;
//   7. within it: exact driver minimum before the minor-version floor, official before extra
//      before experimental, then the newest CUDA (or, under the floor, the CUDA closest to the
//      driver's; with no driver known, PyPI's default variant first);
//   8. a forced --variant is checked like any other, never accepted blindly.
// No GPU: the cpu variant. Nothing fits: what would (driver, Python, nightly, another variant or
// OS, fewer GPUs), as Messages.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/exit_codes.hpp"
#include "envfix/common/message.hpp"
#include "envfix/matrix/coverage.hpp"
#include "envfix/matrix/driver_rules.hpp"
#include "envfix/matrix/matrix.hpp"

namespace envfix::matrix {

enum class ChannelChoice { Auto, Stable, Nightly };

struct MachineGpu {
    ComputeCapability cc;
    std::string name;  // for messages; "" when only the capability is known
};

struct Machine {
    std::vector<MachineGpu> gpus;  // empty: no NVIDIA GPU
    std::optional<DriverVersion> driver;  // nullopt: unknown (no driver, or another machine)
    std::optional<CudaVersion> driver_cuda;  // cuDriverGetVersion when probed; else from the table
    Platform platform;
    std::optional<std::string> python;  // "3.12", "3.13t" (normalize_python); nullopt: any
};

struct PolicyRequest {
    Machine machine;
    ChannelChoice channel = ChannelChoice::Auto;
    std::optional<std::string> variant;  // --variant cu128 / cpu
    std::function<bool(const Release&)> release_filter;  // empty: every release
    std::string release_filter_text;  // how messages show the filter
};

// Why a candidate does not fit; a candidate can fail several rules.
enum class Blocker { Platform, Python, Filter, NoGpu, Coverage, GpuDriver, Runtime };

// One release x variant judged for the machine.
struct Candidate {
    const Release* release = nullptr;
    const Variant* variant = nullptr;
    const Build* build = nullptr;  // nullptr when not published for the platform
    std::vector<Blocker> blockers;
    std::vector<Message> why_not;  // one message per blocker
    MachineCoverage coverage;
    std::vector<Message> coverage_reasons;  // one per GPU
    RuntimeVerdict runtime;
    std::vector<GpuDriverVerdict> gpu_drivers;
    bool fits() const { return blockers.empty(); }
    bool jit() const { return fits() && !coverage.all_native(); }
    bool blocked_only_by(std::initializer_list<Blocker> allowed) const;
};

Candidate evaluate(const Matrix& m, const PolicyRequest& req, const Release& r, const Variant& v);

struct Alternative {
    std::string torch;
    std::string variant;
    Channel channel = Channel::Stable;
    bool fits = false;
    std::vector<Message> why;
};

struct PolicyResult {
    bool ok = false;
    // The choice (pointers into the Matrix given to choose(); it must outlive the result).
    const Release* release = nullptr;
    const Variant* variant = nullptr;
    const Build* build = nullptr;
    RuntimeFit runtime_fit = RuntimeFit::Unknown;
    std::optional<DriverVersion> driver_needed;  // the driver the choice needs (exact minimum)
    std::vector<Message> reasons;  // one per rule that decided
    std::vector<Message> warnings;
    std::vector<Alternative> alternatives;  // considered and not chosen, with why
    // When nothing fits:
    ExitCode code = ExitCode::Ok;  // NothingFits, or Usage for an unknown --variant
    Message error;
    std::vector<Message> hints;  // what would fit
};

PolicyResult choose(const Matrix& m, const PolicyRequest& req);

// "GeForce RTX 5090 (sm_120)" or "sm_120".
std::string machine_gpu_label(const MachineGpu& g);

}  // namespace envfix::matrix
