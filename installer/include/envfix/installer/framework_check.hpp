#pragma once
// The framework level of `envfix verify`: the framework's own GPU operations, run in the target
// interpreter by an embedded script (installer/src/framework_check.py) with
// CUDA_LAUNCH_BLOCKING=1, each compared with the CPU's result. The script reports one JSON line
// per event as it goes, so a crash, a kill or a timeout still leaves every result before it and
// names the operation that was running. docs/verify.md#framework-level.
//
//   auto run = run_framework_check(env.interpreter, {.modules = {"kernpkg"}});
//   run->passed();  run->first_failure();  // the op, the GPU, the exception text, its class
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/diagnosis/reproduction.hpp"

namespace envfix::installer {

// The script, as embedded (python -B -c SCRIPT [--module NAME[:FUNCTION]]...).
std::string_view framework_check_script();

enum class OpStatus {
    Passed,
    Failed,   // raised an exception
    Wrong,    // ran, but the result differs from the CPU's beyond the tolerance
    Crashed,  // the interpreter died (signal, exit) or was stopped (timeout) while it ran
    Skipped,  // not applicable (no scaled_dot_product_attention before torch 2.0)
};
std::string_view op_status_name(OpStatus s);  // "passed", "failed", "wrong", "crashed", "skipped"

struct OpCheck {
    std::string op;      // "elementwise", "matmul", "conv2d", "sdpa", "layer_norm", "nms",
                         // "xformers_attention", "device" (torch could not query the GPU),
                         // "import" (a companion that fails to import), "module" (--check-module)
    std::string dtype;   // "float32", "float16", "bfloat16"; "" when not applicable
    int device = -1;     // torch's device index; -1 for imports and modules
    std::string module;  // "kernpkg", "kernpkg:check" (op "module"); the companion (op "import")
    OpStatus status = OpStatus::Passed;
    std::string error;   // the exception ("RuntimeError: CUDA error: no kernel image ..."), or how it died
    std::string at;      // where a module's self-test raised ("file:line in function")
    std::string reason;  // why it was skipped
    std::string detail;  // what a module's self-test returned
    std::optional<double> max_error;  // largest difference from the CPU, relative to the result's scale
    double tolerance = 0;
    std::optional<double> first_ms;   // first call: lazy loading, library handles, PTX JIT included
    std::optional<double> ms;         // best of three later calls (failed ops: time until the error)
    diagnosis::ReproOutcome error_class = diagnosis::ReproOutcome::Ok;  // doctor's classes of the error
    bool ok() const { return status == OpStatus::Passed || status == OpStatus::Skipped; }
    std::string label() const;        // "matmul (float16)", "module kernpkg", "import torchvision"
};

struct TorchDevice {
    int index = 0;
    std::string name;        // as torch names it
    std::string capability;  // "9.0"
    std::optional<uint64_t> memory;
};

struct Companion {
    std::string name;     // "torchvision", "xformers"
    std::string version;  // "" when its import failed (then an OpCheck "import" says why)
};

struct FrameworkCheck {
    // What the script learned.
    bool started = false;              // the script printed its first line
    std::string python_version;        // of the interpreter that ran it
    bool torch_imported = false;
    bool torch_missing = false;        // `import torch`: no module named torch
    std::string import_error;          // why `import torch` failed otherwise
    std::string torch_version;         // torch.__version__
    std::optional<std::string> torch_cuda;  // torch.version.cuda (nullopt: a CPU build)
    std::optional<long long> cudnn;
    bool cuda_available = false;
    std::string unavailable_reason;    // torch's own words when is_available() is False
    int device_count = 0;
    std::vector<std::string> arch_list;
    std::vector<TorchDevice> devices;
    std::vector<Companion> companions;
    std::vector<std::string> modules;  // --check-module as asked
    std::vector<OpCheck> ops;          // in the order they ran
    bool completed = false;            // the script reached its end
    // How the process ended.
    int exit_code = -1;
    int signal = 0;
    bool timed_out = false;
    std::chrono::milliseconds elapsed{0};
    std::string stderr_tail;           // the last lines of stderr (a traceback, a fatal error)

    // The framework ran everything it was asked to: torch imported and sees a GPU (or, without
    // torch, only --check-module tests were asked for), and every operation passed.
    bool passed() const;
    const OpCheck* first_failure() const;
    const TorchDevice* device(int index) const;
    // The failure in doctor's classes (no kernel image, driver too old, ...); Ok when passed.
    diagnosis::ReproOutcome outcome() const;
    // The error text that classified it ("" when passed).
    std::string error_line() const;
};

// Pure: the process's exit status and output -> the check. Lines that are not the script's
// (torch's own prints) are ignored; a line cut off by a kill is dropped.
FrameworkCheck parse_framework_check(int exit_code, int signal, bool timed_out, std::string_view out, std::string_view err);

struct FrameworkCheckOptions {
    std::chrono::seconds timeout{300};
    std::vector<std::string> modules;  // --check-module NAME[:FUNCTION] (default function self_test)
};

// Runs the script through run_process (argv only; CUDA_LAUNCH_BLOCKING=1, no bytecode written,
// the temporary folder as working folder so a stray torch.py cannot shadow torch). Errors:
// EnvBroken ("verify.framework.start_failed") when the interpreter cannot be started.
Expected<FrameworkCheck> run_framework_check(const std::filesystem::path& python, const FrameworkCheckOptions& options);

}  // namespace envfix::installer
