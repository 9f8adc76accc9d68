#pragma once
// The machine probe remembered for the current boot. A GPU, its driver and CUDA_VISIBLE_DEVICES
// do not change while the machine runs the same loaded driver module, so doctor and plan can take
// the last answer instead of paying cuInit (~250 ms on an H200) on every run. The key is read from
// files only: the boot id, the loaded kernel module's version where it can be read (containers
// often hide it), the environment variables that change what CUDA shows or which library loads,
// and the identity of the driver and NVML libraries the probe loaded. Without a boot id (Windows,
// macOS) nothing is cached.
#include <filesystem>
#include <optional>
#include <string>

#include "envfix/probe/gpu_probe.hpp"

namespace envfix::probe {

struct MachineCacheKey {
    std::string boot_id;          // /proc/sys/kernel/random/boot_id
    std::string module_version;   // /sys/module/nvidia/version, else /proc/driver/nvidia/version ("" : neither)
    std::string visible_devices;  // CUDA_VISIBLE_DEVICES as set ("\x01" when unset)
    std::string libcuda;          // ENVFIX_LIBCUDA
    std::string libnvml;          // ENVFIX_LIBNVML
    std::string ld_library_path;  // LD_LIBRARY_PATH (which libcuda.so.1 the loader finds)
    bool operator==(const MachineCacheKey&) const = default;
};

std::optional<MachineCacheKey> machine_cache_key();
std::filesystem::path machine_cache_file();
// The remembered probe when the key matches and the driver library is still the same file.
std::optional<MachineProbe> load_cached_probe(const MachineCacheKey& key);
// Remembers a successful probe (failures are always probed again; they are cheap).
void save_cached_probe(const MachineCacheKey& key, const MachineProbe& m);

}  // namespace envfix::probe
