// `envfix verify --driver-only` end to end: envfix's PTX kernels through the stand-in driver,
// which JIT-checks the PTX header and really computes the kernels, so results are checked for real.
#include <gtest/gtest.h>

#include "standin.hpp"
#include "support.hpp"

using namespace envfix;
namespace standin = envfix::test::standin;

namespace {
bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

test::RunResult verify_json(const test::EnvList& env) { return test::run_envfix({"verify", "--driver-only", "--json"}, env); }

// The one GPU's entry of driver_check, after checking the failure the command reports.
nlohmann::ordered_json expect_gpu_failure(const test::RunResult& r, const char* key) {
    EXPECT_EQ(r.code, 70) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["error"]["name"], "verify-driver-failed");
    EXPECT_EQ(j["error"]["key"], "verify.driver_failed");
    EXPECT_FALSE(j["driver_check"]["passed"].get<bool>());
    auto gpu = j["driver_check"]["devices"][0];
    EXPECT_FALSE(gpu["passed"].get<bool>());
    EXPECT_EQ(gpu["error"]["key"], key) << gpu.dump(2);
    EXPECT_EQ(gpu["error"]["exit_code"], 70);
    return gpu;
}
}  // namespace

TEST(VerifyCli, H200PassesWithTimings) {
    auto r = verify_json(standin::env("h200-580"));
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["driver"]["version"], "580.159.04");
    EXPECT_TRUE(j["error"].is_null());
    EXPECT_FALSE(j.contains("framework_check"));  // --driver-only
    auto check = j["driver_check"];
    EXPECT_TRUE(check["passed"].get<bool>());
    EXPECT_EQ(check["ptx"]["isa"], "7.0");
    EXPECT_EQ(check["ptx"]["target"], "sm_50");
    EXPECT_EQ(check["elements_per_array"], 1u << 23);
    EXPECT_EQ(check["gpus_checked"], 1);
    EXPECT_EQ(check["gpus_passed"], 1);
    ASSERT_EQ(check["devices"].size(), 1u);
    auto gpu = check["devices"][0];
    EXPECT_EQ(gpu["name"], "NVIDIA H200");
    EXPECT_EQ(gpu["sm"], "sm_90");
    EXPECT_TRUE(gpu["passed"].get<bool>());
    EXPECT_GE(gpu["jit_ms"].get<double>(), 0.0);
    EXPECT_TRUE(contains(gpu["jit_info_log"], "sm_90")) << gpu.dump(2);
    EXPECT_TRUE(gpu["error"].is_null());
    EXPECT_TRUE(gpu["failed_call"].is_null());
    ASSERT_EQ(gpu["kernels"].size(), 2u);
    EXPECT_EQ(gpu["kernels"][0]["name"], "envfix_saxpy");
    EXPECT_EQ(gpu["kernels"][0]["bytes"], 3ull * 4 * (1u << 23));
    EXPECT_EQ(gpu["kernels"][1]["name"], "envfix_reduce_sum");
    for (const auto& k : gpu["kernels"]) {
        EXPECT_TRUE(k["passed"].get<bool>());
        EXPECT_EQ(k["mismatches"], 0);
        EXPECT_GT(k["time_ms"].get<double>(), 0.0);
        EXPECT_GT(k["bandwidth_gbs"].get<double>(), 0.0);
    }
}

TEST(VerifyCli, TextSaysWhatRan) {
    auto r = test::run_envfix({"verify", "--driver-only"}, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "envfix_saxpy")) << r.out;
    EXPECT_TRUE(contains(r.out, "envfix_reduce_sum"));
    EXPECT_TRUE(contains(r.out, "GB/s"));
    EXPECT_TRUE(contains(r.out, "passed"));
    EXPECT_TRUE(contains(r.out, "driver check passed on 1 GPU(s)"));
}

// Without --driver-only the framework level runs in the target (here python3 on PATH, without
// torch): the driver level's result stays, the command says there is no framework (26).
// tests/verify has the framework level itself.
TEST(VerifyCli, FrameworkLevelNeedsAFramework) {
    auto r = test::run_envfix({"verify", "--json"}, standin::env("rtx5090-570"));
    EXPECT_EQ(r.code, 26) << r.out << r.err;
    auto j = r.json();
    EXPECT_TRUE(j["driver_check"]["passed"].get<bool>());
    EXPECT_TRUE(j["driver_error"].is_null());
    EXPECT_EQ(j["framework_check"]["error"]["key"], "verify.framework.no_torch");
    EXPECT_EQ(j["error"]["name"], "no-framework");
}

TEST(VerifyCli, EveryGpuIsChecked) {
    auto r = verify_json(standin::env("rtx3090-rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.err;
    auto devices = r.json()["driver_check"]["devices"];
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_EQ(devices[0]["sm"], "sm_86");
    EXPECT_EQ(devices[1]["sm"], "sm_120");
    EXPECT_TRUE(devices[1]["passed"].get<bool>());
}

TEST(VerifyCli, NoKernelImageWhenTheDriverSaysSo) {
    auto r = verify_json(standin::env("rtx5090-570", {.fail = "cuModuleLoadDataEx=209"}));
    auto gpu = expect_gpu_failure(r, "verify.no_kernel_image");
    EXPECT_EQ(gpu["failed_call"], "cuModuleLoadDataEx");
    EXPECT_EQ(gpu["cu_result"], 209);
    EXPECT_TRUE(contains(gpu["error"]["message"], "no kernel image is available for GPU 0 (NVIDIA GeForce RTX 5090, sm_120)"));
    EXPECT_TRUE(gpu["kernels"].empty());
}

TEST(VerifyCli, NoKernelImageOnAGpuOlderThanThePtx) {
    // Kepler (3.5) cannot take PTX written for sm_50: the stand-in JIT refuses, as the driver does.
    auto r = test::run_envfix({"verify", "--driver-only"}, standin::env("gtx780-470"));
    EXPECT_EQ(r.code, 70);
    EXPECT_TRUE(contains(r.out, "no kernel image is available for GPU 0 (NVIDIA GeForce GTX 780, sm_35)")) << r.out;
    EXPECT_TRUE(contains(r.out, "FAILED"));
    EXPECT_TRUE(contains(r.err, "envfix: error: driver check failed on 1 of 1 GPU(s)")) << r.err;
}

TEST(VerifyCli, DriverTooOldForThePtx) {
    // A CUDA 10.2 driver: PTX ISA 7.0 is newer than it knows.
    auto r = verify_json(standin::env("rtx2080-440"));
    auto gpu = expect_gpu_failure(r, "verify.ptx_too_new");
    EXPECT_EQ(gpu["cu_result"], 222);
    EXPECT_TRUE(contains(gpu["jit_error_log"], "Unsupported .version 7.0; current version is '6.5'")) << gpu.dump(2);
    EXPECT_TRUE(contains(gpu["error"]["message"], "CUDA 10.2"));
    EXPECT_TRUE(contains(gpu["error"]["message"], "450"));
}

TEST(VerifyCli, UnsupportedPtxVersionShowsTheJitLog) {
    auto r = test::run_envfix({"verify", "--driver-only"},
                              standin::env("rtx5090-570", {.fail = "cuModuleLoadDataEx=222", .jit_log = "ptxas fatal: from the test"}));
    EXPECT_EQ(r.code, 70);
    EXPECT_TRUE(contains(r.out, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION")) << r.out;
    EXPECT_TRUE(contains(r.out, "JIT log of GPU 0:\nptxas fatal: from the test")) << r.out;
}

TEST(VerifyCli, InvalidPtx) {
    auto gpu = expect_gpu_failure(verify_json(standin::env("h200-580", {.fail = "cuModuleLoadDataEx=218"})),
                                  "verify.invalid_ptx");
    EXPECT_EQ(gpu["cu_result"], 218);
}

TEST(VerifyCli, WrongSaxpyResultIsFound) {
    auto gpu = expect_gpu_failure(verify_json(standin::env("h200-580", {.wrong = "envfix_saxpy"})), "verify.wrong_results");
    ASSERT_EQ(gpu["kernels"].size(), 1u);  // the sum is not run after a wrong SAXPY
    auto k = gpu["kernels"][0];
    EXPECT_FALSE(k["passed"].get<bool>());
    EXPECT_EQ(k["mismatches"], 1);
    const uint32_t at = (1u << 23) / 2;
    EXPECT_EQ(k["first_mismatch"]["index"], at);
    EXPECT_EQ(k["first_mismatch"]["expected"], 3.0 * (at & 1023) + (at & 3));
    EXPECT_EQ(k["first_mismatch"]["got"], 3.0 * (at & 1023) + (at & 3) + 1);
    EXPECT_TRUE(gpu["failed_call"].is_null());
}

TEST(VerifyCli, WrongSumIsFound) {
    auto gpu = expect_gpu_failure(verify_json(standin::env("h200-580", {.wrong = "envfix_reduce_sum"})),
                                  "verify.wrong_results");
    ASSERT_EQ(gpu["kernels"].size(), 2u);
    EXPECT_TRUE(gpu["kernels"][0]["passed"].get<bool>());
    EXPECT_FALSE(gpu["kernels"][1]["passed"].get<bool>());
    EXPECT_EQ(gpu["kernels"][1]["first_mismatch"]["index"], 0);  // block 0
}

TEST(VerifyCli, OutOfMemory) {
    standin::Machine small = standin::machine("h200-580");
    small.gpus[0].mem = "64MiB";  // less than the check's 3 x 32 MiB
    auto gpu = expect_gpu_failure(verify_json(standin::env(small)), "verify.out_of_memory");
    EXPECT_EQ(gpu["failed_call"], "cuMemAlloc");
    EXPECT_TRUE(contains(gpu["error"]["message"], "96.0 MiB")) << gpu.dump(2);
}

TEST(VerifyCli, LaunchFailureAndCrashAfterTheLaunch) {
    auto gpu = expect_gpu_failure(verify_json(standin::env("h200-580", {.fail = "cuLaunchKernel=719"})),
                                  "verify.kernel_crashed");
    EXPECT_EQ(gpu["failed_call"], "cuLaunchKernel");
    EXPECT_TRUE(contains(gpu["error"]["message"], "CUDA_ERROR_LAUNCH_FAILED (719)"));
    gpu = expect_gpu_failure(verify_json(standin::env("h200-580", {.fail = "cuCtxSynchronize=700"})),
                             "verify.kernel_crashed");
    EXPECT_EQ(gpu["failed_call"], "cuCtxSynchronize");
    EXPECT_TRUE(contains(gpu["error"]["message"], "Xid"));
}

TEST(VerifyCli, UncorrectableEcc) {
    auto gpu = expect_gpu_failure(verify_json(standin::env("h200-580", {.fail = "cuMemcpyDtoH_v2=214"})),
                                  "verify.ecc_error");
    EXPECT_EQ(gpu["failed_call"], "cuMemcpyDtoH");
}

TEST(VerifyCli, OneGoodGpuOneBad) {
    standin::Machine m = standin::machine("rtx3090-rtx5090-570");
    m.gpus[0] = standin::machine("gtx780-470").gpus[0];  // Kepler beside an RTX 5090
    auto r = verify_json(standin::env(m));
    EXPECT_EQ(r.code, 70);
    auto j = r.json();
    auto devices = j["driver_check"]["devices"];
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_FALSE(devices[0]["passed"].get<bool>());
    EXPECT_TRUE(devices[1]["passed"].get<bool>());
    EXPECT_TRUE(contains(j["error"]["message"], "failed on 1 of 2 GPU(s)"));
}

TEST(VerifyCli, DriverThatCannotLaunch) {
    auto r = verify_json(standin::env("h200-580", {.libcuda_variant = "no-launch"}));
    EXPECT_EQ(r.code, 14);
    auto j = r.json();
    EXPECT_EQ(j["error"]["key"], "probe.missing_entry_point");
    EXPECT_TRUE(contains(j["error"]["message"], "cuLaunchKernel"));
    EXPECT_TRUE(j["driver_check"].is_null());
}

TEST(VerifyCli, NoDriverIsTheProbesAnswer) {
    auto r = verify_json(standin::no_driver_env());
    EXPECT_EQ(r.code, 10);
    EXPECT_EQ(r.json()["error"]["name"], "no-driver");
    auto text = test::run_envfix({"verify", "--driver-only"}, standin::no_driver_env());
    EXPECT_EQ(text.code, 10);
    EXPECT_TRUE(contains(text.err, "envfix: error: cannot load")) << text.err;
}

TEST(VerifyCli, ReleasesWhatItTook) {
    test::TempDir dir;
    auto log = dir / "calls.log";
    auto r = test::run_envfix({"verify", "--driver-only"}, standin::env("rtx3090-rtx5090-570", {.call_log = log}));
    ASSERT_EQ(r.code, 0) << r.err;
    std::string calls = test::read_text(log);
    auto count = [&](std::string_view what) {
        size_t n = 0;
        for (size_t at = calls.find(what); at != std::string::npos; at = calls.find(what, at + 1)) ++n;
        return n;
    };
    EXPECT_EQ(count("cuDevicePrimaryCtxRetain\n"), 2u);
    EXPECT_EQ(count("cuDevicePrimaryCtxRelease_v2\n"), 2u);
    EXPECT_EQ(count("cuModuleLoadDataEx\n"), 2u);
    EXPECT_EQ(count("cuModuleUnload\n"), 2u);
    EXPECT_EQ(count("cuMemAlloc_v2\n"), count("cuMemFree_v2\n"));
    EXPECT_EQ(count("cuEventCreate\n"), count("cuEventDestroy_v2\n"));
}

TEST(VerifyCli, ChineseFailure) {
    auto r = test::run_envfix({"--lang", "zh", "verify", "--driver-only"}, standin::env("gtx780-470"));
    EXPECT_EQ(r.code, 70);
    EXPECT_TRUE(contains(r.out, "没有可执行的内核映像")) << r.out;
    EXPECT_TRUE(contains(r.err, "驱动级检查在 1 块 GPU 中的 1 块上失败")) << r.err;
}
