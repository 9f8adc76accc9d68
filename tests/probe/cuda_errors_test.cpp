// cuInit's and the kernel check's failures become the user's answers: key and exit code.
#include <gtest/gtest.h>

#include "envfix/common/message.hpp"
#include "envfix/probe/cuda_errors.hpp"

using namespace envfix;
using namespace envfix::probe;

TEST(CudaErrors, NamesAndDescriptions) {
    EXPECT_EQ(cu_error_name(209), "CUDA_ERROR_NO_BINARY_FOR_GPU");
    EXPECT_EQ(cu_error_name(803), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
    EXPECT_EQ(cu_error_name(12345), "");
    EXPECT_EQ(describe_cu_error(100, "", "no CUDA-capable device is detected"),
              "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected");
    EXPECT_EQ(describe_cu_error(12345, "CUDA_ERROR_FUTURE", ""), "CUDA_ERROR_FUTURE (12345)");
    EXPECT_EQ(describe_cu_error(12345), "CUresult (12345)");
}

TEST(CudaErrors, InitFailuresMapToTheirExitCodes) {
    struct Case {
        int code;
        std::optional<std::string> visible;
        std::optional<int> present;
        ExitCode want;
        const char* key;
    } cases[] = {
        {100, std::nullopt, std::nullopt, ExitCode::NoDevice, "probe.no_device"},
        {100, std::nullopt, 2, ExitCode::NoDevice, "probe.no_device"},
        {100, std::string(""), 2, ExitCode::DevicesHidden, "probe.devices_hidden_all"},
        {100, std::string("7"), 1, ExitCode::DevicesHidden, "probe.devices_hidden_all"},
        {100, std::string("7"), std::nullopt, ExitCode::NoDevice, "probe.no_device_maybe_hidden"},
        {100, std::string("7"), 0, ExitCode::NoDevice, "probe.no_device_maybe_hidden"},
        {803, std::nullopt, std::nullopt, ExitCode::DriverMismatch, "probe.driver_mismatch"},
        {804, std::nullopt, std::nullopt, ExitCode::CompatNotSupported, "probe.compat_not_supported"},
        {34, std::nullopt, std::nullopt, ExitCode::NoDriver, "probe.stub_library"},
        {802, std::nullopt, std::nullopt, ExitCode::DriverBroken, "probe.system_not_ready"},
        {999, std::nullopt, std::nullopt, ExitCode::DriverBroken, "probe.init_failed"},
        {304, std::nullopt, std::nullopt, ExitCode::DriverBroken, "probe.init_failed"},
    };
    for (const auto& c : cases) {
        InitFailureContext ctx;
        ctx.library = "/usr/lib/libcuda.so.1";
        ctx.visible_devices = c.visible;
        ctx.gpus_present = c.present;
        Error e = cuda_init_failure(c.code, ctx);
        EXPECT_EQ(e.code, c.want) << c.code;
        EXPECT_EQ(e.message.key, c.key) << c.code;
    }
}

TEST(CudaErrors, MismatchNamesBothVersions) {
    InitFailureContext ctx;
    ctx.library = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
    ctx.library_version = "580.95.05";
    ctx.module_version = "575.57.08";
    std::string text = render(cuda_init_failure(803, ctx).message, Lang::En);
    EXPECT_NE(text.find("580.95.05"), std::string::npos) << text;
    EXPECT_NE(text.find("575.57.08"), std::string::npos) << text;
    ctx.module_version.clear();
    text = render(cuda_init_failure(803, ctx).message, Lang::En);
    EXPECT_NE(text.find("version ?"), std::string::npos) << text;
}

TEST(CudaErrors, KernelFailuresSpeakTheUsersWords) {
    struct Case {
        int code;
        const char* key;
        const char* says;
    } cases[] = {
        {209, "verify.no_kernel_image", "no kernel image is available"},
        {222, "verify.ptx_too_new", "too old"},
        {218, "verify.invalid_ptx", "CUDA_ERROR_INVALID_PTX"},
        {221, "verify.jit_missing", "libnvidia-ptxjitcompiler"},
        {223, "verify.jit_disabled", "CUDA_DISABLE_PTX_JIT"},
        {2, "verify.out_of_memory", "96.0 MiB"},
        {214, "verify.ecc_error", "ECC"},
        {700, "verify.kernel_crashed", "Xid"},
        {719, "verify.kernel_crashed", "Xid"},
        {702, "verify.launch_timeout", "watchdog"},
        {46, "verify.device_unavailable", "exclusive"},
        {1, "verify.call_failed", "cuMemAlloc"},
    };
    for (const auto& c : cases) {
        KernelFailureContext ctx;
        ctx.gpu_index = 1;
        ctx.gpu_name = "NVIDIA GeForce RTX 5090";
        ctx.sm = "sm_120";
        ctx.call = "cuMemAlloc";
        ctx.error = describe_cu_error(c.code);
        ctx.cuda_version = "12.8";
        ctx.need = "96.0 MiB";
        Error e = kernel_call_failure(c.code, ctx);
        EXPECT_EQ(e.code, ExitCode::VerifyDriverFailed) << c.code;
        EXPECT_EQ(e.message.key, c.key) << c.code;
        std::string text = render(e.message, Lang::En);
        EXPECT_NE(text.find(c.says), std::string::npos) << text;
        EXPECT_NE(text.find("GPU 1"), std::string::npos) << text;
        EXPECT_EQ(render(e.message, Lang::Zh).find(e.message.key), std::string::npos) << "untranslated " << c.key;
    }
}
