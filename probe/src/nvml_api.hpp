#pragma once
// The few NVML entry points envfix uses (libnvidia-ml.so.1 / nvml.dll), declared here instead of
// including nvml.h. Signatures and values follow nvml.h (NVML_API_VERSION 12/13, as reproduced
// in NVIDIA/go-nvml gen/nvml/nvml.h); the suffixed names are what the unversioned macros expand
// to, so they are the ones to look up.
#include <optional>
#include <string>
#include <vector>

#include "dynlib.hpp"

namespace envfix::probe::nvml {

using nvmlReturn_t = int;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

inline constexpr nvmlReturn_t kSuccess = 0;
inline constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
inline constexpr unsigned kDeviceNameBufferSize = 96;     // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kDeviceUuidBufferSize = 96;     // NVML_DEVICE_UUID_V2_BUFFER_SIZE

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it.
struct PciInfo {
    char busIdLegacy[16];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
    unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];        // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, "00000000:01:00.0"
};

// nvmlMemory_t (v1) as nvmlDeviceGetMemoryInfo fills it.
struct Memory {
    unsigned long long total, free, used;
};

struct Api {
    nvmlReturn_t (*nvmlInit_v2)() = nullptr;
    nvmlReturn_t (*nvmlShutdown)() = nullptr;
    nvmlReturn_t (*nvmlSystemGetDriverVersion)(char*, unsigned) = nullptr;
    nvmlReturn_t (*nvmlDeviceGetCount_v2)(unsigned*) = nullptr;
    nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2)(unsigned, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*nvmlDeviceGetName)(nvmlDevice_t, char*, unsigned) = nullptr;
    nvmlReturn_t (*nvmlDeviceGetUUID)(nvmlDevice_t, char*, unsigned) = nullptr;
    nvmlReturn_t (*nvmlDeviceGetPciInfo_v3)(nvmlDevice_t, PciInfo*) = nullptr;
    nvmlReturn_t (*nvmlDeviceGetMemoryInfo)(nvmlDevice_t, Memory*) = nullptr;
    // nvmlDriverModel_t current, pending (Windows only; _v2 since NVML 12.5, the older name before).
    nvmlReturn_t (*nvmlDeviceGetDriverModel)(nvmlDevice_t, int*, int*) = nullptr;
    const char* (*nvmlErrorString)(nvmlReturn_t) = nullptr;
};

struct Device {
    std::string name;
    std::string uuid;    // "GPU-…"
    std::string bus_id;  // "00000000:01:00.0"
    std::optional<unsigned long long> memory_bytes;  // the board's, as nvidia-smi shows it
    std::optional<int> driver_model;  // Windows: 0 WDDM, 1 WDM (TCC), 2 MCDM; none on Linux
};

// What NVML told: each part is empty when its call failed (NVML answers what it can).
struct Facts {
    std::string library;                 // the file loaded
    std::string driver_version;          // "580.159.04"
    std::optional<int> gpu_count;        // all GPUs, whatever CUDA_VISIBLE_DEVICES says
    std::vector<Device> devices;         // names, UUIDs, bus ids as far as NVML gives them
    std::string error;                   // why NVML could not answer, for debug notes
};

// Loads NVML (ENVFIX_LIBNVML, else the usual places), asks, shuts it down. nullopt when no
// NVML library can be loaded; `error` then says why.
std::optional<Facts> query(std::string& error);

}  // namespace envfix::probe::nvml
