#pragma once
// `envfix verify` as one library call, for the command and for `envfix install` (which runs it
// after installing and undoes the install when the framework level fails; verified_install.hpp):
//   1. driver level: envfix's own PTX kernels on every GPU (probe/kernel_check.hpp);
//   2. framework level: the framework's GPU operations in the target interpreter
//      (framework_check.hpp);
//   3. when the framework fails: doctor's diagnosis of the same environment (read from its
//      files) beside the failure, in doctor's words, with doctor's fix.
// docs/verify.md.
//
//   auto report = verify_environment(env, probe::inspect_machine(), {.reporter = &r});
//   report.passed();  report.error();  report.failed_op();  report.framework.explanation;
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/diagnosis/diagnosis.hpp"
#include "envfix/installer/framework_check.hpp"
#include "envfix/probe/environment.hpp"
#include "envfix/probe/gpu_probe.hpp"
#include "envfix/probe/kernel_check.hpp"

namespace envfix::installer {

struct VerifyOptions {
    bool driver = true;                      // run the driver level
    bool framework = true;                   // run the framework level
    FrameworkCheckOptions framework_options; // timeout, --check-module
    probe::KernelCheckOptions kernel;        // the driver check's sizes (its reporter is set from `reporter`)
    bool diagnose = true;                    // explain a framework failure with doctor's diagnosis
    std::optional<std::filesystem::path> profiles;  // the matrix to diagnose with (default: built in)
    std::vector<std::string> target_args;    // how the fix names the environment ({"--python", "/v/bin/python"})
    Reporter* reporter = nullptr;
};

struct DriverLevel {
    bool ran = false;                        // the kernels ran (the probe found GPUs, the driver has the entry points)
    std::optional<probe::DriverCheck> check;
    // The probe's failure (10-15), a driver that cannot run kernels (14), or VerifyDriverFailed (70).
    std::optional<Error> error;
};

struct FrameworkLevel {
    bool ran = false;                        // the script ran (whatever it found)
    std::optional<FrameworkCheck> check;
    // VerifyFrameworkFailed (71) naming the operation, the GPU and the error; NoFramework (26)
    // when torch is not installed and no --check-module was asked for; EnvBroken (24) when the
    // interpreter cannot start.
    std::optional<Error> error;
    std::optional<diagnosis::Diagnosis> diagnosis;  // made when it failed (and options.diagnose)
    // What ties the failure to the build and the diagnosis: torch's own arch list against the
    // GPU, doctor's verdict (confirmed or not), doctor's fix. Empty when it passed.
    std::vector<Message> explanation;
};

struct VerifyReport {
    DriverLevel driver;
    FrameworkLevel framework;
    bool passed() const { return !driver.error && !framework.error; }
    // The most basic failure: the driver level's, then the framework level's.
    std::optional<Error> error() const;
    const OpCheck* failed_op() const;
};

// Runs the levels `options` asks for, the framework level beside the driver level (its
// interpreter starts while the kernels run). `machine` is the probe's answer; a failed probe is
// the driver level's error, and the framework level still runs (torch says what it sees).
VerifyReport verify_environment(const probe::Environment& env, const probe::MachineProbe& machine, const VerifyOptions& options);

// Pure pieces, for tests and for the CLI's words.
// The framework level's error from its check (nullopt when it passed).
std::optional<Error> framework_error(const FrameworkCheck& c, const probe::Environment& env);
// The explanation of a failed check; `d` may be null (no diagnosis could be made).
std::vector<Message> explain_failure(const FrameworkCheck& c, const diagnosis::Diagnosis* d, bool windows_command);
// "GPU 0 (NVIDIA H200, sm_90)" as torch named it; "GPU 3" when the check never listed it.
std::string torch_gpu_label(const FrameworkCheck& c, int index);

}  // namespace envfix::installer
