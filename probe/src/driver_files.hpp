#pragma once
// The driver's traces outside the Driver API: /sys and /proc files (under ENVFIX_SYSROOT in
// tests) and nvidia-smi (ENVFIX_NVIDIA_SMI). The texts are decoded by driver_text.hpp.
#include <filesystem>
#include <optional>
#include <string_view>

#include "envfix/common/reporter.hpp"
#include "envfix/probe/gpu_probe.hpp"

namespace envfix::probe {

// A /sys or /proc path, under ENVFIX_SYSROOT when tests set it.
std::filesystem::path system_path(std::string_view absolute);

struct VersionAnswer {
    std::optional<DriverVersion> version;
    VersionSource source = VersionSource::None;
};

// The loaded kernel module's version: /sys/module/nvidia/version, then /proc/driver/nvidia/version.
VersionAnswer kernel_module_version(Reporter& rep);
// The same, then `nvidia-smi --query-gpu=driver_version --format=csv,noheader`.
VersionAnswer driver_version_without_nvml(Reporter& rep);
// GPUs the kernel module knows: entries of /proc/driver/nvidia/gpus (nullopt when absent).
std::optional<int> gpus_in_proc();

}  // namespace envfix::probe
