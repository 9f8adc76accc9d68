#pragma once
// The diagnosis behind `envfix doctor`: for each GPU, can the installed framework build run on
// it, and what else in the stack is wrong. Pure: the probe's answer, the environment's stack
// (framework_stack.hpp) and the matrix in, findings out; the coverage rules (coverage.hpp), the
// driver rules (driver_rules.hpp) and the policy (policy.hpp, for the fix) decide.
// docs/doctor.md describes the rules and the exit-code precedence.
//
//   auto d = diagnose({.matrix = &m, .machine = &probe, .stack = &stack, .platform = p,
//                      .python = "3.12", .markers = marker_environment(facts),
//                      .target_args = {"--python", "/srv/venv/bin/python"}});
//   d.verdict;   // one sentence; d.layers: driver / CUDA runtime / framework; d.fix: the command
//   d.code;      // 0 or the exit code of the most basic problem
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/diagnosis/framework_stack.hpp"
#include "envfix/matrix/coverage.hpp"
#include "envfix/matrix/driver_rules.hpp"
#include "envfix/matrix/matrix.hpp"
#include "envfix/matrix/policy.hpp"
#include "envfix/matrix/rule_names.hpp"
#include "envfix/probe/gpu_probe.hpp"
#include "envfix/standards/marker.hpp"

namespace envfix::diagnosis {

enum class Layer { Driver, Runtime, Framework };
std::string_view layer_name(Layer l);  // "driver", "cuda-runtime", "framework"

enum class LayerStatus { Ok, Warning, Problem, Unknown, NotNeeded };
std::string_view layer_status_name(LayerStatus s);  // "ok", "warning", "problem", "unknown", "not-needed"

enum class FindingSeverity { Error, Warning, Info };
std::string_view severity_name(FindingSeverity s);  // "error", "warning", "info"

struct Finding {
    std::string id;  // "gpu-not-served", "driver-too-old", "cpu-only", "companion-mismatch", ...
    FindingSeverity severity = FindingSeverity::Error;
    Layer layer = Layer::Framework;
    ExitCode code = ExitCode::Ok;  // what it makes the exit code (Ok: nothing)
    Message text;
};

// A library without code for one GPU.
struct LibraryGap {
    std::string library;  // as shown: "torch/lib/libtorch_cuda.so"
    std::string package;  // "torch", "nvidia/cublas", "xformers"
    LibraryRole role = LibraryRole::Framework;
    std::vector<std::string> archs;  // what it holds that counts (arch_list() style)
    Message why;  // coverage's reason
};

struct GpuReport {
    probe::Gpu gpu;
    std::string label;  // "GeForce RTX 5090 (sm_120)"
    bool served = false;  // every library that counts has code that runs on it
    // torch's own coverage, from its main library (the one with the most GPU code):
    matrix::CoverageKind kind = matrix::CoverageKind::None;
    std::optional<probe::ArchTarget> target;
    bool jit_blocked = false;
    Message reason;
    std::vector<LibraryGap> gaps;  // libraries without code for it (torch's first)
    std::vector<std::string> jit_libraries;  // libraries that run on it only through PTX JIT
};

struct LayerReport {
    Layer layer = Layer::Driver;
    LayerStatus status = LayerStatus::Unknown;
    Message found;  // what is there
    Message note;  // why the status (empty when nothing to add)
};

// `envfix install` as the fix; docs/cli.md has the syntax. The command leaves the choice to plan,
// which reads the user's index; only the same build again (`reinstall`) names its version.
struct FixCommand {
    std::vector<std::string> argv;  // {"envfix", "install", "--python", "/x/bin/python"}
    std::string torch;  // what the matrix expects plan to pick: "2.11.0" ("" for a nightly: the newest)
    std::string variant;  // "cu128"
    matrix::Channel channel = matrix::Channel::Stable;
    bool reinstall = false;  // the installed build again, to bring the rest in line
};

struct Diagnosis {
    Message verdict;  // the short answer, first thing shown
    std::vector<LayerReport> layers;  // driver, CUDA runtime, framework (in that order)
    std::vector<GpuReport> gpus;
    std::vector<Finding> findings;  // errors first, then warnings, then notes
    std::optional<FixCommand> fix;
    Message fix_text;  // when no command fixes it: what to do (empty otherwise)
    std::vector<Message> fix_notes;  // about the fix: the policy's warnings, the driver alternative
    std::optional<matrix::RuntimeVerdict> runtime;  // how this driver runs the build's CUDA runtime
    std::optional<probe::CudaVersion> runtime_cuda;  // the CUDA runtime torch loads
    std::string runtime_package;  // "nvidia-cuda-runtime-cu12 12.8.90" when one is installed
    ExitCode code = ExitCode::Ok;
};

struct DiagnosisInput {
    const matrix::Matrix* matrix = nullptr;
    const probe::MachineProbe* machine = nullptr;
    const EnvironmentStack* stack = nullptr;
    matrix::Platform platform;  // the environment's OS/CPU (a Windows layout read on Linux: Windows)
    std::optional<std::string> python;  // "3.12", "3.13t"; nullopt: unknown
    standards::MarkerEnvironment markers;  // the interpreter's, for requirements' markers
    std::vector<std::string> target_args;  // how the fix names the environment: {"--python", "/x/bin/python"}
    std::string environment;  // how messages name it: its root folder
};

Diagnosis diagnose(const DiagnosisInput& in);

// Exit-code precedence (docs/doctor.md): the lowest broken layer first.
// NoFramework, the probe's failure (10-15), DriverTooOld, CpuOnlyBuild, GpuNotServed, EnvBroken
// (torch's own libraries unreadable), EnvInconsistent, then Ok. Returns the most basic of `codes` (Ok when empty or all Ok).
ExitCode most_basic(const std::vector<ExitCode>& codes);

// The policy's view of this machine.
matrix::Machine policy_machine(const probe::MachineProbe& m, const matrix::Platform& platform, const std::optional<std::string>& python);

// "GeForce RTX 5090 (sm_120)": the driver's name without the vendor word.
std::string gpu_label(const probe::Gpu& g);
// "sm_50–sm_90" (one target: "sm_90"; none: "").
std::string arch_range(const std::vector<probe::ArchTarget>& sass);
// The command as a user types it: arguments with spaces or shell characters quoted (POSIX
// single quotes; `windows`: double quotes).
std::string format_command(const std::vector<std::string>& argv, bool windows = false);

// Libraries of vendor role with fewer entries than this are not evidence that a GPU lacks
// kernels (cuFFT 12 keeps its kernels outside the fatbin sections: one sm_75 cubin).
inline constexpr int kVendorEvidenceEntries = 8;

}  // namespace envfix::diagnosis
