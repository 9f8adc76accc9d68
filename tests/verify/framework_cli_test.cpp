// `envfix verify` and `envfix install` end to end against a fake torch in a real venv
// (fake_torch/README.md) and the stand-in driver (an H200): the framework level's parsing, its
// tie to doctor, and the undo of an install whose framework check fails, byte for byte.
#include <gtest/gtest.h>

#include <chrono>

#include "standin.hpp"
#include "support.hpp"
#include "verify_fixtures.hpp"

using namespace envfix;
namespace standin = envfix::test::standin;
namespace fx = envfix::test::verify;
namespace stdfs = std::filesystem;

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

class FrameworkCheck : public ::testing::Test {
protected:
    test::TempDir dir{"verify"};
    stdfs::path venv = dir / "venv";
    stdfs::path wheels = dir / "wheels";
    stdfs::path python;
    test::EnvList gpu = standin::env("h200-580");

    void SetUp() override { python = test::make_venv(venv, true); }

    test::RunResult envfix(std::vector<std::string> args) { return test::run_envfix(args, gpu, dir / "home"); }
    test::RunResult install(const stdfs::path& wheel, std::vector<std::string> extra = {}) {
        // Options before the wheel, as people write them: --check-module must take one value each.
        std::vector<std::string> args = {"install", "--python", python.string(), "--no-deps", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        args.push_back(wheel.string());
        return envfix(args);
    }
    test::RunResult verify(std::vector<std::string> extra = {}) {
        std::vector<std::string> args = {"verify", "--python", python.string(), "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        return envfix(args);
    }
    void install_unverified(const fx::FakeTorch& t) {
        auto r = install(fx::fake_torch_wheel(t, wheels), {"--no-verify"});
        ASSERT_EQ(r.code, 0) << r.out << r.err;
    }
};

TEST_F(FrameworkCheck, GoodBuildPassesEveryOpOnEveryGpu) {
    auto r = install(fx::fake_torch_wheel({}, wheels));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto ij = r.json();
    EXPECT_TRUE(ij["verification"]["ran"].get<bool>()) << ij["verification"].dump(2);
    EXPECT_TRUE(ij["verification"]["passed"].get<bool>());
    EXPECT_FALSE(ij["rolled_back"].get<bool>());

    r = verify();
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_TRUE(j["passed"].get<bool>());
    EXPECT_TRUE(j["driver_check"]["passed"].get<bool>());
    auto f = j["framework_check"];
    EXPECT_TRUE(f["passed"].get<bool>()) << f.dump(2);
    EXPECT_EQ(f["outcome"], "ok");
    EXPECT_EQ(f["torch"]["version"], "2.7.0+cu128");
    EXPECT_EQ(f["torch"]["cuda"], "12.8");
    EXPECT_EQ(f["torch"]["arch_list"].size(), 5u);
    ASSERT_EQ(f["devices"].size(), 1u);
    EXPECT_EQ(f["devices"][0]["sm"], "sm_90");
    std::vector<std::string> ops;
    for (const auto& op : f["ops"]) {
        EXPECT_EQ(op["status"], "passed") << op.dump();
        ops.push_back(op["op"].get<std::string>() + "/" + op["dtype"].get<std::string>());
    }
    // sm_90 has fp16 and bf16: both matmuls run.
    EXPECT_EQ(ops, (std::vector<std::string>{"elementwise/float32", "matmul/float32", "matmul/float16", "matmul/bfloat16",
                                             "conv2d/float32", "sdpa/float16", "layer_norm/float32"}));

    auto text = envfix({"verify", "--python", python.string()});
    EXPECT_EQ(text.code, 0);
    EXPECT_TRUE(contains(text.out, "CUDA_LAUNCH_BLOCKING=1")) << text.out;
    EXPECT_TRUE(contains(text.out, "framework check passed: torch 2.7.0+cu128 ran 7 operations on 1 GPU(s)")) << text.out;
}

TEST_F(FrameworkCheck, NoKernelImageNamesTheOpTheErrorAndTheBuildsArchitectures) {
    install_unverified({.mode = "no_kernel_image", .arch_list = {"sm_80"}, .fail_op = "conv2d"});
    auto r = verify();
    ASSERT_EQ(r.code, 71) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["error"]["name"], "verify-framework-failed");
    EXPECT_EQ(j["error"]["key"], "verify.framework.op_failed");
    EXPECT_TRUE(contains(j["error"]["message"], "conv2d (float32) failed on GPU 0 (NVIDIA H200, sm_90): RuntimeError: CUDA "
                                                "error: no kernel image is available for execution on the device"))
        << j["error"].dump();
    EXPECT_TRUE(j["driver_error"].is_null());  // envfix's own kernels ran: the build is at fault
    auto f = j["framework_check"];
    EXPECT_EQ(f["outcome"], "no-kernel-image");
    bool seen = false;
    for (const auto& op : f["ops"])
        if (op["op"] == "conv2d") {
            seen = true;
            EXPECT_EQ(op["status"], "failed");
            EXPECT_EQ(op["error_class"], "no-kernel-image");
        } else {
            EXPECT_EQ(op["status"], "passed") << op.dump();
        }
    EXPECT_TRUE(seen);
    ASSERT_FALSE(f["explanation"].empty());
    EXPECT_TRUE(contains(f["explanation"][0], "torch 2.7.0+cu128 was built for sm_80: none of them runs on GPU 0")) << f.dump(2);
    // doctor read the same environment and its words sit beside the failure.
    EXPECT_FALSE(f["diagnosis"].is_null()) << f.dump(2);
    EXPECT_EQ(f["explanation"].size(), 2u + (f["diagnosis"]["fix"].is_null() ? 0u : 1u)) << f.dump(2);

    auto text = envfix({"verify", "--python", python.string()});
    EXPECT_EQ(text.code, 71);
    EXPECT_TRUE(contains(text.out, "conv2d (float32)")) << text.out;
    EXPECT_TRUE(contains(text.out, "FAILED"));
    EXPECT_TRUE(contains(text.out, "no kernel image is available"));
    EXPECT_TRUE(contains(text.out, "was built for sm_80"));

    auto zh = test::run_envfix({"verify", "--python", python.string(), "--lang", "zh"}, gpu, dir / "home");
    EXPECT_TRUE(contains(zh.out, "只为 sm_80 编译")) << zh.out << zh.err;
}

TEST_F(FrameworkCheck, DriverTooOldIsTorchsOwnReason) {
    install_unverified({.mode = "driver_too_old"});
    auto r = verify();
    ASSERT_EQ(r.code, 71) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["error"]["key"], "verify.framework.unavailable");
    EXPECT_TRUE(contains(j["error"]["message"], "The NVIDIA driver on your system is too old")) << j["error"].dump();
    EXPECT_EQ(j["framework_check"]["outcome"], "driver-too-old");
    EXPECT_FALSE(j["framework_check"]["torch"]["cuda_available"].get<bool>());
}

TEST_F(FrameworkCheck, WrongResultsAreAFailure) {
    install_unverified({.mode = "wrong"});
    auto j = verify().json();
    EXPECT_EQ(j["error"]["key"], "verify.framework.op_wrong");
    EXPECT_EQ(j["framework_check"]["ops"][0]["status"], "wrong");
    EXPECT_EQ(j["framework_check"]["ops"][0]["max_error"], 1.0);
}

TEST_F(FrameworkCheck, AnInterpreterThatDiesNamesTheOpItDiedIn) {
    install_unverified({.mode = "crash"});
    auto r = verify();
    ASSERT_EQ(r.code, 71) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["error"]["key"], "verify.framework.op_crashed");
    EXPECT_TRUE(contains(j["error"]["message"], "elementwise (float32)")) << j["error"].dump();
    EXPECT_TRUE(contains(j["error"]["message"], "SIGSEGV"));
    EXPECT_EQ(j["framework_check"]["process"]["signal"], 11);
    EXPECT_FALSE(j["framework_check"]["completed"].get<bool>());
}

TEST_F(FrameworkCheck, AHangIsStoppedByTheTimeout) {
    install_unverified({.mode = "hang"});
    auto started = std::chrono::steady_clock::now();
    auto r = verify({"--timeout", "3"});
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
    ASSERT_EQ(r.code, 71) << r.out << r.err;
    auto j = r.json();
    EXPECT_TRUE(j["framework_check"]["process"]["timed_out"].get<bool>());
    EXPECT_EQ(j["framework_check"]["outcome"], "timed-out");
    EXPECT_EQ(j["framework_check"]["ops"].back()["status"], "crashed");
}

TEST_F(FrameworkCheck, ImportFailureIsReported) {
    install_unverified({.mode = "import_error"});
    auto j = verify().json();
    EXPECT_EQ(j["error"]["key"], "verify.framework.import_failed");
    EXPECT_TRUE(contains(j["error"]["message"], "libcudart.so.12"));
}

TEST_F(FrameworkCheck, WithoutTorchThereIsNoFrameworkUnlessAModuleIsNamed) {
    auto r = verify();
    EXPECT_EQ(r.code, 26) << r.out << r.err;
    EXPECT_EQ(r.json()["error"]["key"], "verify.framework.no_torch");

    ASSERT_EQ(install(fx::selftest_wheel("1.0", true, wheels)).code, 0);
    r = verify({"--check-module", "kernpkg"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto ops = r.json()["framework_check"]["ops"];
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0]["module"], "kernpkg");
    EXPECT_EQ(ops[0]["self_test_returned"], "sm_90 ok");
    EXPECT_EQ(r.json()["framework_check"]["ops_passed"], 1);
    EXPECT_EQ(r.json()["framework_check"]["ops_failed"], 0);

    r = verify({"--check-module", "kernpkg:missing_function"});
    EXPECT_EQ(r.code, 71);
    EXPECT_EQ(r.json()["error"]["key"], "verify.framework.module_failed");
}

TEST_F(FrameworkCheck, DriverOnlyTakesNoTarget) {
    auto r = envfix({"verify", "--driver-only", "--python", python.string()});
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "--driver-only")) << r.err;
}

// The seed's story as envfix install lives it: a build without kernels for this GPU is installed,
// the framework check fails, and the install undoes itself.
TEST_F(FrameworkCheck, InstallUndoesABuildWhoseFrameworkCheckFails) {
    ASSERT_EQ(install(fx::fake_torch_wheel({}, wheels)).code, 0);
    auto before = fx::tree(venv);

    auto bad = fx::fake_torch_wheel({.version = "2.8.0+cu126", .mode = "no_kernel_image", .arch_list = {"sm_80"}}, wheels);
    auto r = install(bad);
    ASSERT_EQ(r.code, 65) << r.out << r.err;
    auto j = r.json();
    EXPECT_TRUE(j["rolled_back"].get<bool>());
    EXPECT_EQ(j["error"]["name"], "rolled-back");
    EXPECT_EQ(j["error"]["key"], "verify.install.rolled_back");
    EXPECT_TRUE(contains(j["error"]["message"], "no kernel image is available")) << j["error"].dump();
    EXPECT_EQ(j["verification"]["framework_check"]["outcome"], "no-kernel-image");
    EXPECT_TRUE(contains(r.err, "undone")) << r.err;
    // The five .py files both builds share stayed in place (a switch), and are still right after the undo.
    EXPECT_EQ(j["transaction"]["files_kept"], 5) << j.dump();
    EXPECT_EQ(fx::tree(venv), before);  // byte for byte, links and folders included

    // The same in text, then the 2.7.0 build still runs.
    auto text = envfix({"install", "--python", python.string(), "--no-deps", bad.string()});
    EXPECT_EQ(text.code, 65) << text.out << text.err;
    EXPECT_TRUE(contains(text.out, "was built for sm_80")) << text.out;
    EXPECT_TRUE(contains(text.out, "undone")) << text.out;
    EXPECT_EQ(fx::tree(venv), before);
    EXPECT_EQ(verify().code, 0);
}

TEST_F(FrameworkCheck, InstallKeepsAFixedBuildAndNoVerifyKeepsAnything) {
    install_unverified({.mode = "no_kernel_image", .arch_list = {"sm_80"}});
    EXPECT_EQ(verify().code, 71);
    auto text = envfix({"install", "--python", python.string(), "--no-deps",
                        fx::fake_torch_wheel({.version = "2.8.0+cu128"}, wheels).string()});
    ASSERT_EQ(text.code, 0) << text.out << text.err;
    EXPECT_TRUE(contains(text.out, "verified: driver check passed on 1 GPU(s); framework check passed")) << text.out;
    EXPECT_EQ(verify().code, 0);

    // --no-verify: the bad build stays, as asked.
    auto r = install(fx::fake_torch_wheel({.version = "2.9.0+cu126", .mode = "no_kernel_image"}, wheels), {"--no-verify"});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_FALSE(r.json()["verification"]["ran"].get<bool>());
    EXPECT_EQ(verify().code, 71);
}

// A framework that already failed is checked before the change too: an unrelated package is kept,
// and the user is told why and how to go on.
TEST_F(FrameworkCheck, AChangeToAFrameworkThatFailedBeforeIsKept) {
    install_unverified({.mode = "no_kernel_image", .arch_list = {"sm_80"}});
    auto r = install(fx::selftest_wheel("1.0", true, wheels));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_FALSE(j["rolled_back"].get<bool>());
    EXPECT_FALSE(j["verification"]["passed"].get<bool>());
    EXPECT_TRUE(contains(j["verification"]["failed_before"]["message"], "no kernel image")) << j["verification"].dump();
    bool kept = false;
    for (const auto& lib : stdfs::directory_iterator(venv / "lib")) kept = kept || stdfs::exists(lib.path() / "site-packages/kernpkg");
    EXPECT_TRUE(kept);
    auto text = envfix({"install", "--python", python.string(), "--no-deps", fx::selftest_wheel("2.0", true, wheels).string()});
    ASSERT_EQ(text.code, 0) << text.out << text.err;
    EXPECT_TRUE(contains(text.out, "the framework already failed before this install")) << text.out;
    EXPECT_TRUE(contains(text.out, "`envfix doctor --python " + python.string() + "`")) << text.out;
    EXPECT_TRUE(contains(text.out, "--no-verify")) << text.out;
    // A framework that ran before and fails after is still undone
    // (InstallUndoesABuildWhoseFrameworkCheckFails).
}

TEST_F(FrameworkCheck, InstallUndoesAPackageWhoseSelfTestFails) {
    ASSERT_EQ(install(fx::selftest_wheel("1.0", true, wheels), {"--check-module", "kernpkg"}).code, 0);
    auto before = fx::tree(venv);
    auto r = install(fx::selftest_wheel("2.0", false, wheels), {"--check-module", "kernpkg"});
    ASSERT_EQ(r.code, 65) << r.out << r.err;
    EXPECT_EQ(r.json()["verification"]["framework_check"]["error"]["key"], "verify.framework.module_failed");
    EXPECT_EQ(fx::tree(venv), before);
}

// envfix killed while it verifies (here by the self-test itself): the change is not final yet, so
// the next envfix gives the old environment back.
TEST_F(FrameworkCheck, AKillDuringTheVerificationIsUndoneByRecovery) {
    ASSERT_EQ(install(fx::selftest_wheel("1.0", true, wheels), {"--check-module", "kernpkg"}).code, 0);
    auto before = fx::tree(venv);
    auto killer = test::build_wheel(
        {{"name", "kernpkg"}, {"version", "2.0"},
         {"files", {{"kernpkg/__init__.py", "import os, signal\n\ndef self_test():\n    os.kill(os.getppid(), signal.SIGKILL)\n"}}}},
        wheels);
    auto r = install(killer, {"--check-module", "kernpkg"});
    EXPECT_EQ(r.code, 128 + 9) << r.out << r.err;
    EXPECT_NE(fx::tree(venv), before);  // mid-change: kernpkg 2.0 in place, the journal says "prepared"
    auto rec = envfix({"recover", "--python", python.string()});
    EXPECT_EQ(rec.code, 0) << rec.out << rec.err;
    EXPECT_EQ(fx::tree(venv), before);
}

TEST_F(FrameworkCheck, WithoutAGpuTheInstallStaysAndSaysItWasNotVerified) {
    auto r = test::run_envfix({"install", "--python", python.string(), "--no-deps", "--json",
                               fx::fake_torch_wheel({.mode = "no_kernel_image"}, wheels).string()},
                              standin::no_driver_env(), dir / "home");
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto v = r.json()["verification"];
    EXPECT_FALSE(v["ran"].get<bool>());
    EXPECT_EQ(v["skipped_key"], "verify.skipped.no_gpu");
}

}  // namespace
