#include "cuda_api.hpp"

#include "envfix/probe/cuda_errors.hpp"

namespace envfix::probe::cu {

namespace {

Unexpected<Error> missing(const std::string& library, const char* symbol) {
    return fail(ExitCode::DriverBroken, "probe.missing_entry_point", {{"library", library}, {"symbol", symbol}});
}
}  // namespace

std::optional<Opened> open_first(const std::vector<std::string>& names, std::vector<OpenAttempt>& tried) {
    for (const auto& name : names) {
        std::string error;
        if (auto lib = DynLib::open(name, error)) return Opened{*lib, name};
        tried.push_back({name, error});
    }
    return std::nullopt;
}

// Uses the caller's `lib` and `d` (the Driver, for its path in the error).
#define ENVFIX_BIND_REQUIRED(api, fn) \
    if (!lib.bind(#fn, (api).fn)) return missing(d.path, #fn)

Expected<Driver> bind_driver(DynLib lib, const std::string& asked_name) {
    Driver d{lib, lib.path(), {}};
    if (d.path.empty()) d.path = asked_name;
    ProbeApi& a = d.api;
    ENVFIX_BIND_REQUIRED(a, cuInit);
    ENVFIX_BIND_REQUIRED(a, cuDriverGetVersion);
    ENVFIX_BIND_REQUIRED(a, cuDeviceGetCount);
    ENVFIX_BIND_REQUIRED(a, cuDeviceGet);
    ENVFIX_BIND_REQUIRED(a, cuDeviceGetName);
    ENVFIX_BIND_REQUIRED(a, cuDeviceGetAttribute);
    ENVFIX_BIND_REQUIRED(a, cuDeviceTotalMem_v2);
    ENVFIX_BIND_REQUIRED(a, cuDeviceGetPCIBusId);
    lib.bind("cuDeviceGetUuid_v2", a.cuDeviceGetUuid_v2);
    lib.bind("cuDeviceGetUuid", a.cuDeviceGetUuid);
    lib.bind("cuGetErrorName", a.cuGetErrorName);
    lib.bind("cuGetErrorString", a.cuGetErrorString);
    return d;
}

Expected<KernelApi> bind_kernel_api(const Driver& d) {
    KernelApi k;
    const DynLib& lib = d.lib;
    ENVFIX_BIND_REQUIRED(k, cuDevicePrimaryCtxRetain);
    // A driver older than CUDA 11 has only the original; it still gets as far as the JIT, which
    // then says plainly that the driver is too old for the PTX.
    if (!lib.bind("cuDevicePrimaryCtxRelease_v2", k.cuDevicePrimaryCtxRelease))
        ENVFIX_BIND_REQUIRED(k, cuDevicePrimaryCtxRelease);
    ENVFIX_BIND_REQUIRED(k, cuCtxSetCurrent);
    ENVFIX_BIND_REQUIRED(k, cuModuleLoadDataEx);
    ENVFIX_BIND_REQUIRED(k, cuModuleGetFunction);
    ENVFIX_BIND_REQUIRED(k, cuModuleUnload);
    ENVFIX_BIND_REQUIRED(k, cuMemAlloc_v2);
    ENVFIX_BIND_REQUIRED(k, cuMemFree_v2);
    ENVFIX_BIND_REQUIRED(k, cuMemcpyHtoD_v2);
    ENVFIX_BIND_REQUIRED(k, cuMemcpyDtoH_v2);
    ENVFIX_BIND_REQUIRED(k, cuLaunchKernel);
    ENVFIX_BIND_REQUIRED(k, cuCtxSynchronize);
    ENVFIX_BIND_REQUIRED(k, cuEventCreate);
    ENVFIX_BIND_REQUIRED(k, cuEventRecord);
    ENVFIX_BIND_REQUIRED(k, cuEventSynchronize);
    ENVFIX_BIND_REQUIRED(k, cuEventElapsedTime);
    ENVFIX_BIND_REQUIRED(k, cuEventDestroy_v2);
#undef ENVFIX_BIND_REQUIRED
    return k;
}

std::string Driver::error_name(CUresult r) const {
    if (auto known = cu_error_name(r); !known.empty()) return std::string(known);
    const char* s = nullptr;
    if (api.cuGetErrorName && api.cuGetErrorName(r, &s) == kSuccess && s) return s;
    return {};
}

std::string Driver::error_text(CUresult r) const {
    const char* s = nullptr;
    if (api.cuGetErrorString && api.cuGetErrorString(r, &s) == kSuccess && s) return s;
    return {};
}

}  // namespace envfix::probe::cu
