// Where Linux puts the NVIDIA driver's user-space pieces.
#include "dynlib.hpp"

namespace envfix::probe {

// The bare SONAME first (ld.so.cache, LD_LIBRARY_PATH, container runtimes' mounts), then WSL2's
// folder, which Windows' driver maps into the Linux guest and which is often not in the cache.
std::vector<std::string> default_libcuda_names() { return {"libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"}; }
std::vector<std::string> default_libnvml_names() {
    return {"libnvidia-ml.so.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1"};
}
std::vector<std::string> default_nvidia_smi_paths() { return {"nvidia-smi", "/usr/lib/wsl/lib/nvidia-smi"}; }

}  // namespace envfix::probe
