#pragma once
// The driver-level half of `envfix verify`: envfix's own kernels (a SAXPY and a sum, PTX ISA
// 7.0 for sm_50, probe/src/check_kernels.ptx) JIT-compiled by the driver, run on every GPU, the
// results checked exactly. No framework is involved: a failure here is the driver's or the
// GPU's; a pass with a failing framework points at the framework build. docs/verify.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/probe/gpu_probe.hpp"

namespace envfix::probe {

struct KernelCheckOptions {
    // Elements per array (x, y, out: 3 x 32 MiB by default). At most kernel_data::max_elements().
    uint32_t elements = 1u << 23;
    int repeats = 3;                // timed launches per kernel; the fastest counts
    Reporter* reporter = nullptr;   // debug notes per step
};

struct Mismatch {
    uint64_t index = 0;  // element (SAXPY) or block (sum)
    double expected = 0;
    double got = 0;
};

struct KernelRun {
    std::string kernel;        // "envfix_saxpy", "envfix_reduce_sum"
    uint64_t bytes = 0;        // bytes one launch reads and writes
    double time_ms = 0;        // fastest timed launch (CUDA events)
    double bandwidth_gbs = 0;  // bytes / time, 1e9 bytes per second
    bool passed = false;
    uint64_t mismatches = 0;
    std::optional<Mismatch> first_mismatch;
};

struct GpuCheck {
    Gpu gpu;
    double jit_ms = 0;          // cuModuleLoadDataEx as the host timed it (PTX JIT; the
                                // driver's JIT cache makes repeated runs faster)
    std::string jit_info_log;   // CU_JIT_INFO_LOG_BUFFER
    std::string jit_error_log;  // CU_JIT_ERROR_LOG_BUFFER
    std::vector<KernelRun> kernels;
    std::string failed_call;    // the Driver API call that failed, "" when none did
    int cu_result = 0;          // its CUresult
    std::optional<Error> failure;  // in the user's words, ExitCode::VerifyDriverFailed
    bool passed() const { return !failure; }
};

struct DriverCheck {
    uint32_t elements = 0;
    std::vector<GpuCheck> gpus;
    bool passed() const;  // at least one GPU, and every GPU passed
};

// Runs the check on every GPU of `machine`, which must have probed without failure. Fails only
// when the driver library cannot run kernels at all (an entry point missing: DriverBroken; the
// library gone: NoDriver); a GPU that fails is part of the result.
Expected<DriverCheck> run_kernel_check(const MachineProbe& machine, const KernelCheckOptions& opts = {});

// The PTX text embedded in envfix (probe/src/check_kernels.ptx, NUL-terminated).
std::string_view check_kernels_ptx();
inline constexpr std::string_view kSaxpyKernel = "envfix_saxpy";
inline constexpr std::string_view kReduceKernel = "envfix_reduce_sum";
inline constexpr unsigned kBlockSize = 256;  // envfix_reduce_sum's shared array

// The check's data and expected results. Every input, output and partial sum is an integer
// below 2^24, so fp32 holds it exactly and the summation order cannot change the result.
namespace kernel_data {
inline constexpr float kA = 3.0f;
inline float x(uint32_t i) { return static_cast<float>(i & 1023u); }
inline float y(uint32_t i) { return static_cast<float>(i & 3u); }
uint32_t max_elements();  // the largest n whose sum of y stays below 2^24

struct Outcome {
    uint64_t mismatches = 0;
    std::optional<Mismatch> first;
};
// out[i] == kA * x(i) + y(i) for every i < n.
Outcome check_saxpy(const float* out, uint32_t n);
// partials[b] == the sum of y(i) over the i block b visits in a grid-stride loop of `blocks`
// blocks of kBlockSize threads.
Outcome check_reduce(const float* partials, uint32_t blocks, uint32_t n);
}  // namespace kernel_data

}  // namespace envfix::probe
