#pragma once
// How `envfix doctor` shows its answer: the text (verdict, the three layers as a table, other
// findings, the fix in one line) and the JSON document (docs/json.md#envfix-doctor).
#include <optional>
#include <string>

#include "envfix/diagnosis/diagnosis.hpp"
#include "envfix/diagnosis/reproduction.hpp"
#include "envfix/probe/environment.hpp"
#include "envfix/probe/gpu_probe.hpp"
#include "output.hpp"

namespace envfix::cli {

struct DoctorView {
    const probe::Environment* env = nullptr;
    const probe::MachineProbe* machine = nullptr;
    const diagnosis::EnvironmentStack* stack = nullptr;
    const diagnosis::Diagnosis* diagnosis = nullptr;
    bool windows_command = false;                     // quote the fix for cmd.exe
    bool run_requested = false;
    std::optional<diagnosis::ReproResult> run;  // --run's result
    std::optional<Error> run_error;                   // --run could not run (not runnable, start failed)
    ExitCode code = ExitCode::Ok;                     // what the command exits with
};

std::string doctor_text(const DoctorView& v);
// The machine's half alone (driver, GPUs, or why the probe failed): shown when no Python is found.
std::string doctor_machine_text(const probe::MachineProbe& m);
Json doctor_json(const DoctorView& v);

}  // namespace envfix::cli
