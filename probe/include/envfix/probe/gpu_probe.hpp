#pragma once
// The machine as the CUDA driver sees it: the driver (version, highest CUDA it runs, which
// library answered) and every GPU a CUDA program can use. doctor, plan and verify start here.
//
//   auto m = probe::probe_machine({});          // Expected<MachineProbe>
//   for (const auto& g : m->gpus) use(g.cc);    // ComputeCapability from arch.hpp
//
// Sources (docs/probe.md): libcuda.so.1 / nvcuda.dll through the Driver API (ENVFIX_LIBCUDA
// overrides the path); the driver version string from NVML, then /sys/module/nvidia/version,
// /proc/driver/nvidia/version, then `nvidia-smi`.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/message.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/probe/arch.hpp"

namespace envfix::probe {

// Where the driver version string came from.
enum class VersionSource { None, Nvml, SysModule, ProcDriver, NvidiaSmi };
// "none", "nvml", "sys-module", "proc-driver", "nvidia-smi" (the JSON values).
std::string_view version_source_id(VersionSource s);
// What a user can look at: "NVML", "/sys/module/nvidia/version", ..., "nvidia-smi".
std::string_view version_source_label(VersionSource s);

struct DriverInfo {
    std::optional<DriverVersion> version;  // 580.159.04
    VersionSource version_source = VersionSource::None;
    std::optional<CudaVersion> cuda;       // cuDriverGetVersion: the newest CUDA this driver runs
    int cuda_raw = 0;                      // 13000
    std::string library;                   // the CUDA driver library loaded ("" when none)
    std::optional<DriverVersion> library_version;  // from its file name (libcuda.so.580.159.04)
    std::string nvml_library;              // "" when NVML was not loaded
    std::optional<int> nvml_gpu_count;     // GPUs NVML lists (it ignores CUDA_VISIBLE_DEVICES)
};

struct Gpu {
    int index = 0;               // CUDA device ordinal, after CUDA_VISIBLE_DEVICES
    std::string name;            // "NVIDIA GeForce RTX 5090"
    ComputeCapability cc;        // 12.0
    uint64_t memory_bytes = 0;   // cuDeviceTotalMem
    int sm_count = 0;            // multiprocessors
    std::string pci_bus_id;      // "0000:01:00.0"
    std::string uuid;            // "GPU-5a1c…" as nvidia-smi prints it ("" when unknown)
    std::string driver_model;  // Windows, from NVML: "WDDM", "TCC", "MCDM" ("" on Linux, unknown)
};

// A GPU NVML lists that CUDA programs do not see (hidden by CUDA_VISIBLE_DEVICES, or unusable).
struct HiddenGpu {
    std::string name;
    std::string uuid;
};

struct MachineProbe {
    DriverInfo driver;
    std::vector<Gpu> gpus;
    std::vector<HiddenGpu> hidden;
    std::optional<std::string> cuda_visible_devices;  // its value when set (even empty)
    std::vector<Message> warnings;                    // things to tell the user; not printed here
    // Set when the GPUs could not be listed (no driver, mismatch, ...): the answer the user gets,
    // with its exit code. `driver` still holds whatever was learned.
    std::optional<Error> failure;
    bool ok() const { return !failure; }
};

struct ProbeOptions {
    Reporter* reporter = nullptr;  // debug notes: which libraries and files were tried
    bool use_nvml = true;          // NVML for the version string and the count of all GPUs
    // Take the answer remembered from an earlier probe in this boot when nothing it depends on
    // changed (probe_cache.cpp): cuInit alone costs ~250 ms on a real GPU, and doctor/plan must
    // answer in tens of ms. `envfix probe` itself always asks the driver (and refreshes it).
    bool use_cache = false;
};

// Never fails: a failure is part of the answer (MachineProbe::failure).
MachineProbe inspect_machine(const ProbeOptions& opts = {});
// The same, with the failure as the error: for callers that need GPUs to go on.
Expected<MachineProbe> probe_machine(const ProbeOptions& opts = {});

}  // namespace envfix::probe
