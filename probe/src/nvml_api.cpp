#include "nvml_api.hpp"

#include <cstring>

#include "cuda_api.hpp"
#include "envfix/common/env.hpp"

namespace envfix::probe::nvml {

namespace {

std::string describe(const Api& api, nvmlReturn_t r) {
    std::string out = "NVML error " + std::to_string(r);
    if (api.nvmlErrorString)
        if (const char* s = api.nvmlErrorString(r)) out += ": " + std::string(s);
    return out;
}
}  // namespace

std::optional<Facts> query(std::string& error) {
    std::vector<std::string> names;
    if (auto override_path = env::get(EnvVar::EnvfixLibnvml)) names.push_back(*override_path);
    else names = default_libnvml_names();
    std::vector<cu::OpenAttempt> tried;
    auto opened = cu::open_first(names, tried);
    if (!opened) {
        for (const auto& t : tried) error += (error.empty() ? "" : "; ") + t.name + ": " + t.error;
        return std::nullopt;
    }

    const DynLib* lib = &opened->lib;
    Facts f;
    f.library = lib->path().empty() ? opened->name : lib->path();
    Api api;
    lib->bind("nvmlErrorString", api.nvmlErrorString);
    if (!lib->bind("nvmlInit_v2", api.nvmlInit_v2) || !lib->bind("nvmlShutdown", api.nvmlShutdown)) {
        f.error = f.library + " lacks nvmlInit_v2/nvmlShutdown";
        return f;
    }
    if (nvmlReturn_t r = api.nvmlInit_v2(); r != kSuccess) {
        f.error = "nvmlInit_v2: " + describe(api, r);
        return f;
    }
    if (lib->bind("nvmlSystemGetDriverVersion", api.nvmlSystemGetDriverVersion)) {
        char buf[kDriverVersionBufferSize] = {};
        if (nvmlReturn_t r = api.nvmlSystemGetDriverVersion(buf, sizeof buf); r == kSuccess) f.driver_version = buf;
        else f.error = "nvmlSystemGetDriverVersion: " + describe(api, r);
    }
    unsigned count = 0;
    if (lib->bind("nvmlDeviceGetCount_v2", api.nvmlDeviceGetCount_v2) && api.nvmlDeviceGetCount_v2(&count) == kSuccess) {
        f.gpu_count = static_cast<int>(count);
        bool per_device = lib->bind("nvmlDeviceGetHandleByIndex_v2", api.nvmlDeviceGetHandleByIndex_v2) &&
                          lib->bind("nvmlDeviceGetName", api.nvmlDeviceGetName);
        lib->bind("nvmlDeviceGetUUID", api.nvmlDeviceGetUUID);
        lib->bind("nvmlDeviceGetPciInfo_v3", api.nvmlDeviceGetPciInfo_v3);
        lib->bind("nvmlDeviceGetMemoryInfo", api.nvmlDeviceGetMemoryInfo);
        if (!lib->bind("nvmlDeviceGetDriverModel_v2", api.nvmlDeviceGetDriverModel))
            lib->bind("nvmlDeviceGetDriverModel", api.nvmlDeviceGetDriverModel);
        for (unsigned i = 0; per_device && i < count; ++i) {
            nvmlDevice_t dev = nullptr;
            Device d;
            char name[kDeviceNameBufferSize] = {};
            char uuid[kDeviceUuidBufferSize] = {};
            PciInfo pci{};
            if (api.nvmlDeviceGetHandleByIndex_v2(i, &dev) != kSuccess) continue;  // e.g. a GPU lost
            if (api.nvmlDeviceGetName(dev, name, sizeof name) == kSuccess) d.name = name;
            if (api.nvmlDeviceGetUUID && api.nvmlDeviceGetUUID(dev, uuid, sizeof uuid) == kSuccess) d.uuid = uuid;
            if (api.nvmlDeviceGetPciInfo_v3 && api.nvmlDeviceGetPciInfo_v3(dev, &pci) == kSuccess)
                d.bus_id = std::string(pci.busId, strnlen(pci.busId, sizeof pci.busId));
            if (Memory mem{}; api.nvmlDeviceGetMemoryInfo && api.nvmlDeviceGetMemoryInfo(dev, &mem) == kSuccess)
                d.memory_bytes = mem.total;
            if (int current = -1, pending = -1;
                api.nvmlDeviceGetDriverModel && api.nvmlDeviceGetDriverModel(dev, &current, &pending) == kSuccess)
                d.driver_model = current;
            f.devices.push_back(std::move(d));
        }
    }
    api.nvmlShutdown();
    return f;
}

}  // namespace envfix::probe::nvml
