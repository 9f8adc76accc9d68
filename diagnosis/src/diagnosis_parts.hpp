#pragma once
// The steps of diagnose() (diagnosis.cpp), one file each: the driver and CUDA runtime layers,
// the GPU coverage of every library, the consistency of the installed stack, and the fix.
#include "envfix/diagnosis/diagnosis.hpp"

namespace envfix::diagnosis::diag {

struct Context {
    const DiagnosisInput& in;
    Diagnosis& d;
    const matrix::Matrix& mx;
    const probe::MachineProbe& machine;
    const EnvironmentStack& stack;
    const TorchBuild* torch = nullptr;  // nullptr: no torch
    std::string torch_name;  // "torch 2.11.0+cu130"
    std::optional<probe::DriverVersion> driver;
    std::optional<probe::CudaVersion> driver_cuda;
    bool gpu_machine = false;  // the probe listed at least one GPU
    bool cuda_build() const { return torch && torch->kind == BuildKind::Cuda; }
    void add(Finding f) { d.findings.push_back(std::move(f)); }
};

// Driver layer, CUDA runtime layer; sets d.runtime, d.runtime_cuda.
void judge_driver_and_runtime(Context& c);
// d.gpus and the findings about GPU code.
void judge_gpus(Context& c);
// Companions, torch's own pins on its CUDA libraries, mixed CUDA runtimes, duplicates.
void judge_stack(Context& c);
// d.fix / d.fix_text / d.fix_notes, once d.code is known.
void propose_fix(Context& c);

}  // namespace envfix::diagnosis::diag
