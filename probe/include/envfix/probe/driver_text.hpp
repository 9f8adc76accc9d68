#pragma once
// Pure readers of the texts the NVIDIA driver leaves around: /sys and /proc files, nvidia-smi's
// output, library file names, UUID bytes. No I/O here: the probe reads, these decode.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "envfix/probe/arch.hpp"

namespace envfix::probe {

// /sys/module/nvidia/version: the whole content is the version ("580.159.04\n").
std::optional<DriverVersion> parse_sys_module_version(std::string_view text);

// /proc/driver/nvidia/version, first line, for example
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Jul 10 ... 2025
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.07  Release Build  (...)
// The version is the first token after "Kernel Module" that reads as one (two or more parts).
std::optional<DriverVersion> parse_proc_driver_version(std::string_view text);

// `nvidia-smi --query-gpu=driver_version --format=csv,noheader`: one line per GPU, all equal;
// anything else (an error text) is not a version.
std::optional<DriverVersion> parse_nvidia_smi_driver_version(std::string_view out);

// "libcuda.so.580.159.04" -> 580.159.04; "libcuda.so.1", "nvcuda.dll" -> nullopt.
std::optional<DriverVersion> driver_version_from_library_name(std::string_view file_name);

// 16 UUID bytes -> "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (nvidia-smi's and
// CUDA_VISIBLE_DEVICES' form).
std::string format_gpu_uuid(const unsigned char* bytes16);

// "0000:01:00.0", "00000000:01:00.0" (NVML) and upper/lower case name the same device.
std::string normalize_pci_bus_id(std::string_view id);

}  // namespace envfix::probe
