#include "envfix/probe/cuda_errors.hpp"

#include <array>
#include <utility>

namespace envfix::probe {

namespace {
// The codes envfix talks about, with cuda.h 13.0's names, so messages name them even when the
// driver cannot (cuGetErrorName missing, or cuInit failed before it could answer).
constexpr std::array<std::pair<int, std::string_view>, 40> kNames{{
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {226, "CUDA_ERROR_CONTAINED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {909, "CUDA_ERROR_TIMEOUT"},
    {999, "CUDA_ERROR_UNKNOWN"},
}};

std::string or_unknown(const std::string& s) { return s.empty() ? "?" : s; }
}  // namespace

std::string_view cu_error_name(int code) {
    for (const auto& [c, name] : kNames)
        if (c == code) return name;
    return {};
}

std::string describe_cu_error(int code, std::string_view driver_name, std::string_view driver_text) {
    std::string name(cu_error_name(code));
    if (name.empty()) name = driver_name.empty() ? "CUresult" : std::string(driver_name);
    std::string out = name + " (" + std::to_string(code) + ")";
    if (!driver_text.empty()) out += ": " + std::string(driver_text);
    return out;
}

Error cuda_init_failure(int code, const InitFailureContext& c) {
    switch (code) {
        case 100: {  // CUDA_ERROR_NO_DEVICE
            if (c.visible_devices && c.gpus_present && *c.gpus_present > 0)
                return make_error(ExitCode::DevicesHidden, "probe.devices_hidden_all",
                                  {{"value", *c.visible_devices}, {"count", std::to_string(*c.gpus_present)}});
            if (c.visible_devices)
                return make_error(ExitCode::NoDevice, "probe.no_device_maybe_hidden", {{"value", *c.visible_devices}});
            return make_error(ExitCode::NoDevice, "probe.no_device", {{"library", c.library}});
        }
        case 803:  // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
            return make_error(ExitCode::DriverMismatch, "probe.driver_mismatch",
                              {{"library", c.library},
                               {"library_version", or_unknown(c.library_version)},
                               {"module_version", or_unknown(c.module_version)}});
        case 804:  // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
            return make_error(ExitCode::CompatNotSupported, "probe.compat_not_supported", {{"library", c.library}});
        case 34:  // CUDA_ERROR_STUB_LIBRARY
            return make_error(ExitCode::NoDriver, "probe.stub_library", {{"library", c.library}});
        case 802:  // CUDA_ERROR_SYSTEM_NOT_READY
            return make_error(ExitCode::DriverBroken, "probe.system_not_ready", {{"error", c.error}});
        default:
            return make_error(ExitCode::DriverBroken, "probe.init_failed", {{"library", c.library}, {"error", c.error}});
    }
}

Error kernel_call_failure(int code, const KernelFailureContext& c) {
    auto with_gpu = [&](std::string key, MessageArgs more = {}) {
        Message m = msg(std::move(key), {{"index", std::to_string(c.gpu_index)}, {"name", c.gpu_name}});
        for (const auto& [k, v] : more) m.with(k, v);
        return Error{ExitCode::VerifyDriverFailed, std::move(m)};
    };
    switch (code) {
        case 209: return with_gpu("verify.no_kernel_image", {{"sm", c.sm}});
        case 222: return with_gpu("verify.ptx_too_new", {{"cuda", or_unknown(c.cuda_version)}});
        case 218: return with_gpu("verify.invalid_ptx");
        case 221: return with_gpu("verify.jit_missing");
        case 223: return with_gpu("verify.jit_disabled");
        case 2: return with_gpu("verify.out_of_memory", {{"need", c.need}});
        case 214: return with_gpu("verify.ecc_error");
        case 702: return with_gpu("verify.launch_timeout");
        case 46: return with_gpu("verify.device_unavailable");
        case 700:
        case 714:
        case 715:
        case 716:
        case 717:
        case 718:
        case 719:
        case 999: return with_gpu("verify.kernel_crashed", {{"call", c.call}, {"error", c.error}});
        default: return with_gpu("verify.call_failed", {{"call", c.call}, {"error", c.error}});
    }
}

}  // namespace envfix::probe
