#pragma once
// Values for the diagnosis unit tests: machines as the probe would report them, stacks as
// read_environment_stack would read them, the built-in matrix. No disk, no driver.
#include <string>
#include <vector>

#include "envfix/diagnosis/diagnosis.hpp"
#include "envfix/probe/gpu_probe.hpp"

namespace envfix::test {

const matrix::Matrix& builtin_matrix();

// "sm_50 sm_60 sm_90a:2 compute_90@8.4": SASS and PTX targets (":N" containers, default 100;
// "@isa" a PTX ISA, default 8.4), classified into primary and extras as the reader does.
probe::BinaryArchs archs(const std::string& spec);

// A machine: driver "570.133.07" ("" unknown), its CUDA ("12.8"), GPUs as {name, "12.0"}.
probe::MachineProbe machine(const std::string& driver, const std::string& cuda,
                            const std::vector<std::pair<std::string, std::string>>& gpus);
// The probe's answer on a machine without driver (NoDriver).
probe::MachineProbe no_driver_machine();

// Builds an EnvironmentStack step by step.
class StackBuilder {
public:
    explicit StackBuilder(std::string site_packages = "/env/lib/python3.12/site-packages");
    // A distribution with Requires-Dist lines (in `folder`, default the site-packages).
    StackBuilder& dist(const std::string& name, const std::string& version, const std::vector<std::string>& requires_dist = {},
                       const std::string& folder = "");
    // torch: its dist-info and the build read from a version.py with `cuda` ("" = None).
    StackBuilder& torch(const std::string& version, const std::string& cuda, const std::vector<std::string>& requires_dist = {});
    // A library with GPU code, at site-packages/<shown>, of `package`.
    StackBuilder& library(const std::string& shown, const std::string& package, const probe::BinaryArchs& a);
    diagnosis::EnvironmentStack build() const;

private:
    std::string sp_;
    diagnosis::EnvironmentStack stack_;
    std::string torch_version_, torch_cuda_;
    bool has_torch_ = false;
};

struct DiagnoseArgs {
    std::string python = "3.12";
    matrix::OsKind os = matrix::OsKind::Linux;
};
diagnosis::Diagnosis run_diagnosis(const probe::MachineProbe& m, const diagnosis::EnvironmentStack& s, const DiagnoseArgs& a = {});

bool has_finding(const diagnosis::Diagnosis& d, const std::string& id);

}  // namespace envfix::test
