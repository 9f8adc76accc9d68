#pragma once
// `envfix doctor --run`: the seed's minimal reproduction (section 3.3) run in the environment's
// own interpreter: two 1024x1024 random matrices multiplied on the GPU with
// CUDA_LAUNCH_BLOCKING=1, so a missing kernel fails at the call that needs it. The error it gives
// is classified and set beside the diagnosis. The only place doctor runs torch.
#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"
#include "envfix/diagnosis/diagnosis.hpp"

namespace envfix::diagnosis {

// The Python script (argv: python -c SCRIPT); it prints "ENVFIX_REPRO <what> ..." lines.
std::string_view reproduction_script();

enum class ReproOutcome {
    Ok,  // the matmul ran
    NoKernelImage,  // "no kernel image is available for execution on the device"
    DriverTooOld,  // "The NVIDIA driver on your system is too old", "driver version is insufficient"
    NotCompiled,  // "Torch not compiled with CUDA enabled"
    NoTorch,  // import torch failed: not installed
    NoGpu,  // "no CUDA-capable device is detected", "Found no NVIDIA driver"
    CudaError,  // another "CUDA error: ..."
    Failed,  // anything else
    TimedOut,
};
std::string_view repro_outcome_name(ReproOutcome o);  // "ok", "no-kernel-image", ...
// The exit code the outcome points at (Ok for Ok).
ExitCode repro_exit_code(ReproOutcome o);

struct ReproResult {
    ReproOutcome outcome = ReproOutcome::Failed;
    int exit_code = -1;
    std::string error_line;  // the error the run ended with ("RuntimeError: CUDA error: no kernel image ...")
    std::string torch;  // torch.__version__ as the run printed it ("" when it did not get so far)
    std::string device;  // torch.cuda.get_device_name(0) when the matmul ran
    std::chrono::milliseconds elapsed{0};
};

// Pure: the run's exit status and output -> the result.
ReproResult classify_reproduction(int exit_code, bool timed_out, std::string_view out, std::string_view err);

// Runs the script (run_process, argv only, CUDA_LAUNCH_BLOCKING=1, the temporary folder as working
// folder, `timeout`). Errors: ExitCode::EnvBroken when the interpreter cannot start.
Expected<ReproResult> run_reproduction(const std::filesystem::path& python, std::chrono::milliseconds timeout);

// The reproduction beside the diagnosis, as one sentence: it confirms it, it ran although the
// diagnosis expected a failure, or it failed although the diagnosis found nothing.
Message relate(const ReproResult& r, const Diagnosis& d);
// doctor's exit code with --run: the diagnosis's, or VerifyFrameworkFailed (71) when the diagnosis
// found nothing and the reproduction failed.
ExitCode exit_code_with_run(const ReproResult& r, const Diagnosis& d);

}  // namespace envfix::diagnosis
