// The framework check's output read back (parse_framework_check), its error in the user's words
// (framework_error) and its tie to doctor (explain_failure): pure, from canned script output.
#include <gtest/gtest.h>

#include "envfix/installer/verify.hpp"

using namespace envfix;
using namespace envfix::installer;
using diagnosis::ReproOutcome;

namespace {

const std::string kStart = R"(ENVFIX_CHECK {"event": "start", "python": "3.12.3", "modules": []})" "\n";
const std::string kTorch =
    R"(ENVFIX_CHECK {"event": "torch", "version": "2.11.0+cu130", "cuda": "13.0", "cudnn": 91300, "available": true, "reason": null, "device_count": 1, "arch_list": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]})" "\n";
const std::string kTorchSm80 =
    R"(ENVFIX_CHECK {"event": "torch", "version": "2.7.0+cu128", "cuda": "12.8", "cudnn": null, "available": true, "reason": null, "device_count": 1, "arch_list": ["sm_80"]})" "\n";
const std::string kDevice = R"(ENVFIX_CHECK {"event": "device", "index": 0, "name": "NVIDIA H200", "capability": "9.0", "memory": 150754820096})" "\n";
const std::string kMatmulOk =
    R"(ENVFIX_CHECK {"event": "op_begin", "device": 0, "op": "matmul", "dtype": "float32"})" "\n"
    R"(ENVFIX_CHECK {"event": "op", "device": 0, "op": "matmul", "dtype": "float32", "status": "passed", "max_error": 0.0001, "tolerance": 0.01, "first_ms": 40.5, "ms": 0.2})" "\n";
const std::string kNoKernel =
    R"(ENVFIX_CHECK {"event": "op_begin", "device": 0, "op": "conv2d", "dtype": "float32"})" "\n"
    R"(ENVFIX_CHECK {"event": "op", "device": 0, "op": "conv2d", "dtype": "float32", "status": "failed", "error": "RuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA kernel errors might be asynchronously reported", "ms": 3.0})" "\n";
const std::string kDone = R"(ENVFIX_CHECK {"event": "done"})" "\n";

probe::Environment env() {
    probe::Environment e;
    e.root = "/v";
    e.interpreter = "/v/bin/python";
    return e;
}

struct Case {
    const char* name;
    int exit_code;
    int signal;
    bool timed_out;
    std::string out;
    std::string err;
    bool passed;
    ReproOutcome outcome;
    ExitCode code;             // framework_error's (Ok: none)
    const char* error_key;     // framework_error's message key
    const char* failed_label;  // first_failure()->label(), "" for none
    OpStatus failed_status;
};

class Parse : public ::testing::TestWithParam<Case> {};

TEST_P(Parse, ReadsTheScriptsLines) {
    const Case& k = GetParam();
    FrameworkCheck c = parse_framework_check(k.exit_code, k.signal, k.timed_out, k.out, k.err);
    EXPECT_EQ(c.passed(), k.passed);
    EXPECT_EQ(c.outcome(), k.outcome) << diagnosis::repro_outcome_name(c.outcome());
    auto e = framework_error(c, env());
    if (k.code == ExitCode::Ok) {
        EXPECT_FALSE(e.has_value()) << e->message.key;
    } else {
        ASSERT_TRUE(e.has_value());
        EXPECT_EQ(e->code, k.code);
        EXPECT_EQ(e->message.key, k.error_key);
    }
    const OpCheck* f = c.first_failure();
    if (std::string(k.failed_label).empty()) {
        EXPECT_EQ(f, nullptr);
    } else {
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->label(), k.failed_label);
        EXPECT_EQ(f->status, k.failed_status);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Parse,
    ::testing::Values(
        Case{"passed", 0, 0, false, kStart + kTorch + kDevice + kMatmulOk + kDone, "", true, ReproOutcome::Ok, ExitCode::Ok, "", "",
             OpStatus::Passed},
        // torch's own prints between the lines are not the script's.
        Case{"noise_ignored", 0, 0, false, "hello from torch\n" + kStart + kTorch + "ENVFIX_CHECK {not json\n" + kDevice + kMatmulOk + kDone,
             "", true, ReproOutcome::Ok, ExitCode::Ok, "", "", OpStatus::Passed},
        Case{"no_kernel_image", 0, 0, false, kStart + kTorchSm80 + kDevice + kMatmulOk + kNoKernel + kDone, "", false,
             ReproOutcome::NoKernelImage, ExitCode::VerifyFrameworkFailed, "verify.framework.op_failed", "conv2d (float32)",
             OpStatus::Failed},
        // Killed by a signal inside conv2d: the op that was running is the one that crashed.
        Case{"segfault", -1, 11, false,
             kStart + kTorch + kDevice + R"(ENVFIX_CHECK {"event": "op_begin", "device": 0, "op": "conv2d", "dtype": "float32"})" "\n",
             "Fatal Python error: Segmentation fault\n", false, ReproOutcome::Failed, ExitCode::VerifyFrameworkFailed,
             "verify.framework.op_crashed", "conv2d (float32)", OpStatus::Crashed},
        // A line cut off by the kill is dropped, the op_begin before it still counts.
        Case{"timeout", -1, 9, true,
             kStart + kTorch + kDevice + R"(ENVFIX_CHECK {"event": "op_begin", "device": 0, "op": "sdpa", "dtype": "float16"})" "\n" +
                 R"(ENVFIX_CHECK {"event": "op", "dev)",
             "", false, ReproOutcome::TimedOut, ExitCode::VerifyFrameworkFailed, "verify.framework.op_crashed", "sdpa (float16)",
             OpStatus::Crashed},
        Case{"no_torch", 0, 0, false,
             kStart + R"(ENVFIX_CHECK {"event": "import", "ok": false, "missing": true, "error": "ModuleNotFoundError: No module named 'torch'"})" "\n" + kDone,
             "", false, ReproOutcome::NoTorch, ExitCode::NoFramework, "verify.framework.no_torch", "", OpStatus::Passed},
        Case{"import_fails", 0, 0, false,
             kStart + R"(ENVFIX_CHECK {"event": "import", "ok": false, "missing": false, "error": "ImportError: libcudart.so.12: cannot open shared object file"})" "\n" + kDone,
             "", false, ReproOutcome::Failed, ExitCode::VerifyFrameworkFailed, "verify.framework.import_failed", "", OpStatus::Passed},
        Case{"driver_too_old", 0, 0, false,
             kStart + R"(ENVFIX_CHECK {"event": "torch", "version": "2.7.0+cu128", "cuda": "12.8", "available": false, "reason": "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).", "device_count": 0, "arch_list": []})" "\n" + kDone,
             "", false, ReproOutcome::DriverTooOld, ExitCode::VerifyFrameworkFailed, "verify.framework.unavailable", "", OpStatus::Passed},
        Case{"cpu_build", 0, 0, false,
             kStart + R"(ENVFIX_CHECK {"event": "torch", "version": "2.7.0+cpu", "cuda": null, "available": false, "reason": "AssertionError: Torch not compiled with CUDA enabled", "device_count": 0, "arch_list": []})" "\n" + kDone,
             "", false, ReproOutcome::NotCompiled, ExitCode::VerifyFrameworkFailed, "verify.framework.unavailable", "", OpStatus::Passed},
        // The interpreter died before the script printed anything.
        Case{"died_at_start", 1, 0, false, "", "python: can't open file\n", false, ReproOutcome::Failed,
             ExitCode::VerifyFrameworkFailed, "verify.framework.died", "", OpStatus::Passed},
        Case{"module_failed", 0, 0, false,
             R"(ENVFIX_CHECK {"event": "start", "python": "3.12.3", "modules": ["kernpkg"]})" "\n"
             R"(ENVFIX_CHECK {"event": "import", "ok": false, "missing": true, "error": "ModuleNotFoundError: No module named 'torch'"})" "\n"
             R"(ENVFIX_CHECK {"event": "op_begin", "device": null, "op": "module", "module": "kernpkg"})" "\n"
             R"(ENVFIX_CHECK {"event": "op", "device": null, "op": "module", "module": "kernpkg", "status": "failed", "error": "RuntimeError: CUDA error: no kernel image is available for execution on the device", "at": "kernpkg/__init__.py:20 in self_test"})" "\n" + kDone,
             "", false, ReproOutcome::NoKernelImage, ExitCode::VerifyFrameworkFailed, "verify.framework.module_failed",
             "module kernpkg", OpStatus::Failed},
        Case{"module_only_passes", 0, 0, false,
             R"(ENVFIX_CHECK {"event": "start", "python": "3.12.3", "modules": ["kernpkg"]})" "\n"
             R"(ENVFIX_CHECK {"event": "import", "ok": false, "missing": true, "error": "ModuleNotFoundError: No module named 'torch'"})" "\n"
             R"(ENVFIX_CHECK {"event": "op", "device": null, "op": "module", "module": "kernpkg", "status": "passed", "detail": "sm_90"})" "\n" + kDone,
             "", true, ReproOutcome::Ok, ExitCode::Ok, "", "", OpStatus::Passed},
        Case{"wrong_result", 0, 0, false,
             kStart + kTorch + kDevice +
                 R"(ENVFIX_CHECK {"event": "op", "device": 0, "op": "matmul", "dtype": "float16", "status": "wrong", "max_error": 0.9, "tolerance": 0.02})" "\n" + kDone,
             "", false, ReproOutcome::Failed, ExitCode::VerifyFrameworkFailed, "verify.framework.op_wrong", "matmul (float16)",
             OpStatus::Wrong},
        Case{"companion_broken", 0, 0, false,
             kStart + kTorch + R"(ENVFIX_CHECK {"event": "companion", "name": "torchvision", "version": null, "error": "RuntimeError: operator torchvision::nms does not exist"})" "\n" +
                 kDevice + kMatmulOk + kDone,
             "", false, ReproOutcome::Failed, ExitCode::VerifyFrameworkFailed, "verify.framework.companion_broken",
             "import torchvision", OpStatus::Failed}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

TEST(Parse, KeepsTorchsView) {
    FrameworkCheck c = parse_framework_check(0, 0, false, kStart + kTorch + kDevice + kMatmulOk + kDone, "");
    EXPECT_EQ(c.python_version, "3.12.3");
    EXPECT_EQ(c.torch_version, "2.11.0+cu130");
    EXPECT_EQ(c.torch_cuda, "13.0");
    EXPECT_EQ(c.cudnn, 91300);
    ASSERT_EQ(c.devices.size(), 1u);
    EXPECT_EQ(c.devices[0].capability, "9.0");
    EXPECT_EQ(c.devices[0].memory, 150754820096ull);
    EXPECT_EQ(c.arch_list.size(), 6u);
    ASSERT_EQ(c.ops.size(), 1u);
    EXPECT_EQ(c.ops[0].first_ms, 40.5);
    EXPECT_EQ(c.ops[0].ms, 0.2);
    EXPECT_EQ(torch_gpu_label(c, 0), "GPU 0 (NVIDIA H200, sm_90)");
    EXPECT_EQ(torch_gpu_label(c, 3), "GPU 3");
}

TEST(Explain, ArchListThatMissesTheGpuIsNamed) {
    FrameworkCheck c = parse_framework_check(0, 0, false, kStart + kTorchSm80 + kDevice + kNoKernel + kDone, "");
    auto lines = explain_failure(c, nullptr, false);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].key, "verify.explain.arch_list");
    EXPECT_EQ(lines[0].arg("archs"), "sm_80");
    EXPECT_EQ(lines[0].arg("gpu"), "GPU 0 (NVIDIA H200, sm_90)");
}

TEST(Explain, DiagnosisThatPredictedItIsConfirmedWithItsFix) {
    FrameworkCheck c = parse_framework_check(0, 0, false, kStart + kTorchSm80 + kDevice + kNoKernel + kDone, "");
    diagnosis::Diagnosis d;
    d.code = ExitCode::GpuNotServed;
    d.verdict = msg("verify.result.failed");
    d.fix = diagnosis::FixCommand{};
    d.fix->argv = {"envfix", "install", "--python", "/v/bin/python", "torch"};
    auto lines = explain_failure(c, &d, false);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[1].key, "verify.explain.confirms");
    EXPECT_EQ(lines[2].key, "verify.explain.fix");
    EXPECT_EQ(lines[2].arg("command"), "envfix install --python /v/bin/python torch");
}

TEST(Explain, KernelMissingWhereDoctorReadsNothingWrong) {
    // torch's arch list covers the GPU, doctor finds nothing: the kernel is in code doctor does not read.
    FrameworkCheck c = parse_framework_check(0, 0, false, kStart + kTorch + kDevice + kNoKernel + kDone, "");
    diagnosis::Diagnosis d;
    auto lines = explain_failure(c, &d, false);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].key, "verify.explain.kernel_not_predicted");
}

TEST(Script, IsEmbeddedWhole) {
    auto s = framework_check_script();
    EXPECT_NE(s.find("ENVFIX_CHECK "), std::string_view::npos);
    EXPECT_NE(s.find("def main(argv)"), std::string_view::npos);
    EXPECT_NE(s.find("main(sys.argv[1:])"), std::string_view::npos);
}

}  // namespace
