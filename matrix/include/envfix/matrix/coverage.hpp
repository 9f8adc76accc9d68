#pragma once
// Does a binary carry code for a GPU? Neutral input (lists of SASS and PTX targets), so the same
// rule judges a matrix entry (plan, matrix --gpu) and the fatbins of an installed framework
// (doctor). Rules: CUDA C++ Programming Guide "Binary Compatibility" (torch-matrix.md §D2,
// cuda-binaries.md §6):
//   - SASS sm_XY runs on X.Z with Z >= Y (same major); not across majors;
//   - sm_XYa runs only on exactly X.Y; sm_XYf on the same major with minor >= Y;
//   - Tegra GPUs run only SASS of exactly their own capability;
//   - PTX compute_XY is JIT-compiled for any GPU >= X.Y, if the driver JITs that PTX ISA, and
//     not when the driver runs the runtime only under minor-version compatibility.
// A machine with several GPUs needs every GPU served.
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/message.hpp"
#include "envfix/probe/arch.hpp"

namespace envfix::matrix {

struct BinaryTargets {
    std::vector<probe::ArchTarget> sass;
    std::vector<probe::ArchTarget> ptx;
};

struct CoverageOptions {
    bool tegra = false;  // the GPU is a Tegra (Jetson) part
    std::optional<probe::PtxIsa> ptx_isa;  // ISA of the binary's PTX (nullopt: unknown)
    std::optional<probe::PtxIsa> driver_max_isa;  // newest ISA the driver JITs (nullopt: unknown)
    bool minor_compat = false;  // runtime newer than the driver: no JIT
};

enum class CoverageKind {
    Native,  // SASS for exactly this capability
    SameMajor,  // SASS of the same major, lower minor (8.6 SASS on an 8.9 GPU)
    Family,  // family SASS sm_XYf
    Jit,  // only PTX, which the driver compiles on first use
    None,
};

struct GpuCoverage {
    probe::ComputeCapability gpu;
    CoverageKind kind = CoverageKind::None;
    std::optional<probe::ArchTarget> target;  // the SASS or PTX entry that serves (or would)
    bool jit_blocked = false;  // PTX present, but this driver cannot JIT it
    bool served() const { return kind != CoverageKind::None; }
    bool native() const { return kind == CoverageKind::Native || kind == CoverageKind::SameMajor || kind == CoverageKind::Family; }
};

GpuCoverage cover(const BinaryTargets& bin, probe::ComputeCapability gpu, const CoverageOptions& opt = {});

// The why, as one line; `label` names the GPU ("GeForce RTX 5090 (sm_120)").
Message describe(const GpuCoverage& c, const BinaryTargets& bin, const std::string& label, const CoverageOptions& opt = {});

struct GpuTarget {
    probe::ComputeCapability cc;
    bool tegra = false;
};

struct MachineCoverage {
    std::vector<GpuCoverage> gpus;
    bool all_served() const;
    bool all_native() const;
};

// `opt.tegra` is taken from each GpuTarget.
MachineCoverage cover_all(const BinaryTargets& bin, const std::vector<GpuTarget>& gpus, CoverageOptions opt = {});

}  // namespace envfix::matrix
