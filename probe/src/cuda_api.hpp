#pragma once
// The few CUDA Driver API entry points envfix uses, declared here instead of including cuda.h
// (no toolkit at build time). Types, values and signatures follow CUDA 13.0's cuda.h
// (CUDA_VERSION 13000) and are ABI-stable since the versions noted. The API's calling
// convention (CUDAAPI = __stdcall on Windows) is the platform default on x86-64 and arm64.
#include <cstddef>
#include <string>
#include <vector>

#include "dynlib.hpp"
#include "envfix/common/error.hpp"

namespace envfix::probe::cu {

using CUresult = int;                       // enum cudaError_enum
using CUdevice = int;                       // CUdevice_v1
using CUdeviceptr = unsigned long long;     // CUdeviceptr_v2 (64-bit hosts)
struct CUctx_st;
using CUcontext = CUctx_st*;
struct CUmod_st;
using CUmodule = CUmod_st*;
struct CUfunc_st;
using CUfunction = CUfunc_st*;
struct CUevent_st;
using CUevent = CUevent_st*;
struct CUstream_st;
using CUstream = CUstream_st*;
struct CUuuid {
    unsigned char bytes[16];
};
using CUjit_option = int;  // enum CUjit_option_enum

// CUresult values (cuda.h, enum cudaError_enum).
inline constexpr CUresult kSuccess = 0;
inline constexpr CUresult kInvalidValue = 1;
inline constexpr CUresult kOutOfMemory = 2;
inline constexpr CUresult kNotInitialized = 3;
inline constexpr CUresult kStubLibrary = 34;
inline constexpr CUresult kDeviceUnavailable = 46;
inline constexpr CUresult kNoDevice = 100;
inline constexpr CUresult kInvalidDevice = 101;
inline constexpr CUresult kInvalidImage = 200;
inline constexpr CUresult kNoBinaryForGpu = 209;
inline constexpr CUresult kEccUncorrectable = 214;
inline constexpr CUresult kInvalidPtx = 218;
inline constexpr CUresult kJitCompilerNotFound = 221;
inline constexpr CUresult kUnsupportedPtxVersion = 222;
inline constexpr CUresult kJitCompilationDisabled = 223;
inline constexpr CUresult kOperatingSystem = 304;
inline constexpr CUresult kNotFound = 500;
inline constexpr CUresult kIllegalAddress = 700;
inline constexpr CUresult kLaunchOutOfResources = 701;
inline constexpr CUresult kLaunchTimeout = 702;
inline constexpr CUresult kHardwareStackError = 714;
inline constexpr CUresult kIllegalInstruction = 715;
inline constexpr CUresult kMisalignedAddress = 716;
inline constexpr CUresult kInvalidAddressSpace = 717;
inline constexpr CUresult kInvalidPc = 718;
inline constexpr CUresult kLaunchFailed = 719;
inline constexpr CUresult kSystemNotReady = 802;
inline constexpr CUresult kSystemDriverMismatch = 803;
inline constexpr CUresult kCompatNotSupportedOnDevice = 804;
inline constexpr CUresult kUnknown = 999;

// CUdevice_attribute values.
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;

// CUjit_option values.
inline constexpr CUjit_option kJitWallTime = 2;          // out: float ms
inline constexpr CUjit_option kJitInfoLogBuffer = 3;     // char*
inline constexpr CUjit_option kJitInfoLogBufferSizeBytes = 4;  // in: size, out: bytes written
inline constexpr CUjit_option kJitErrorLogBuffer = 5;
inline constexpr CUjit_option kJitErrorLogBufferSizeBytes = 6;
inline constexpr CUjit_option kJitLogVerbose = 12;       // int 1: ptxas -v style info log

// The entry points the probe needs; a library lacking any of them is not a usable driver.
struct ProbeApi {
    CUresult (*cuInit)(unsigned int) = nullptr;                                  // CUDA 2.0
    CUresult (*cuDriverGetVersion)(int*) = nullptr;                              // 2.2
    CUresult (*cuDeviceGetCount)(int*) = nullptr;                                // 2.0
    CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;                           // 2.0
    CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;                 // 2.0
    CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;             // 2.0
    CUresult (*cuDeviceTotalMem_v2)(size_t*, CUdevice) = nullptr;                // 3.2
    CUresult (*cuDeviceGetPCIBusId)(char*, int, CUdevice) = nullptr;             // 4.1
    // UUID: _v2 (11.4) first, else the original (9.2); neither is required.
    CUresult (*cuDeviceGetUuid_v2)(CUuuid*, CUdevice) = nullptr;
    CUresult (*cuDeviceGetUuid)(CUuuid*, CUdevice) = nullptr;
    // Optional: the driver's own names and sentences for error codes (6.0).
    CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
    CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
};

// The entry points the kernel check (verify) needs on top of ProbeApi.
struct KernelApi {
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;          // 7.0
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;  // _v2 (11.0), else the 7.0 original
    CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;                              // 4.0
    CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned int, CUjit_option*, void**) = nullptr;
    CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
    CUresult (*cuModuleUnload)(CUmodule) = nullptr;
    CUresult (*cuMemAlloc_v2)(CUdeviceptr*, size_t) = nullptr;
    CUresult (*cuMemFree_v2)(CUdeviceptr) = nullptr;
    CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void*, size_t) = nullptr;
    CUresult (*cuMemcpyDtoH_v2)(void*, CUdeviceptr, size_t) = nullptr;
    CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                               unsigned int, unsigned int, CUstream, void**, void**) = nullptr;  // 4.0
    CUresult (*cuCtxSynchronize)() = nullptr;
    CUresult (*cuEventCreate)(CUevent*, unsigned int) = nullptr;
    CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*cuEventSynchronize)(CUevent) = nullptr;
    CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;  // the 2.0 name; _v2 is 12.8+
    CUresult (*cuEventDestroy_v2)(CUevent) = nullptr;                    // 4.0
};

// An opened driver library with its probe entry points bound.
struct Driver {
    DynLib lib;
    std::string path;  // as the loader reports it ("" when unknown: then the name asked for)
    ProbeApi api;

    std::string error_name(CUresult r) const;  // "CUDA_ERROR_NO_DEVICE" (envfix's table, else the driver's)
    std::string error_text(CUresult r) const;  // the driver's sentence, "" when it has none
};

// Binds ProbeApi; names the first missing required entry point.
Expected<Driver> bind_driver(DynLib lib, const std::string& asked_name);
// Binds KernelApi (DriverBroken naming the first missing entry point).
Expected<KernelApi> bind_kernel_api(const Driver& d);

// Opens the first of `names` that loads; `tried` gets each one that did not, with the reason.
struct OpenAttempt {
    std::string name;
    std::string error;
};
struct Opened {
    DynLib lib;
    std::string name;  // the name that worked
};
std::optional<Opened> open_first(const std::vector<std::string>& names, std::vector<OpenAttempt>& tried);

}  // namespace envfix::probe::cu
