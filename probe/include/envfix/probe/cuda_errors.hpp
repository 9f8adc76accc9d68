#pragma once
// CUDA Driver API result codes turned into the user's answers: a plain sentence (a Message
// in common/messages/probe.cpp or verify.cpp) and an exit code. Pure: the caller passes what it
// learned about the machine.
#include <optional>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"

namespace envfix::probe {

// "CUDA_ERROR_NO_DEVICE" for the codes envfix knows (cuda.h 13.0), "" for others.
std::string_view cu_error_name(int code);

// "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected". `driver_name` and
// `driver_text` are cuGetErrorName / cuGetErrorString's answers ("" when unavailable).
std::string describe_cu_error(int code, std::string_view driver_name = {}, std::string_view driver_text = {});

// What the probe knew when cuInit failed (or no GPU was left to list).
struct InitFailureContext {
    std::string library;          // the libcuda / nvcuda.dll that answered
    std::string library_version;  // from its file name, "" unknown
    std::string module_version;   // the loaded kernel module's version, "" unknown
    std::optional<std::string> visible_devices;  // CUDA_VISIBLE_DEVICES when set
    std::optional<int> gpus_present;             // GPUs NVML or /proc list, nullopt unknown
    std::string error;            // describe_cu_error(...)
};

// cuInit's failure as the user's answer: 100 -> NoDevice or DevicesHidden, 803 ->
// DriverMismatch, 804 -> CompatNotSupported, 34 (stub library) -> NoDriver, the rest ->
// DriverBroken.
Error cuda_init_failure(int code, const InitFailureContext& c);

// What the kernel check knew when a Driver API call failed on one GPU.
struct KernelFailureContext {
    int gpu_index = 0;
    std::string gpu_name;
    std::string sm;            // "sm_90"
    std::string call;          // "cuModuleLoadDataEx"
    std::string error;         // describe_cu_error(...)
    std::string cuda_version;  // the driver's, "12.8"
    std::string need;          // memory the check asked for, "96.0 MiB"
};

// A failed call of the kernel check, in the user's words (ExitCode::VerifyDriverFailed): 209
// "no kernel image", 222 driver too old for the PTX, 218 invalid PTX, 221/223 JIT missing or
// disabled, 2 out of memory, 214 ECC, 700/714-719 a crashed kernel (Xid), 702 watchdog, 46 busy.
Error kernel_call_failure(int code, const KernelFailureContext& c);

}  // namespace envfix::probe
