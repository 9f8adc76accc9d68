// The machine probe remembered for this boot (probe/src/probe_cache.cpp): doctor and plan take it
// instead of paying cuInit, and anything it depends on changing makes them probe again.
#include <gtest/gtest.h>

#include "envfix/probe/gpu_probe.hpp"
#include "standin.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::probe;
namespace standin = envfix::test::standin;

namespace {
test::EnvList with(test::EnvList env, const test::TempDir& d) {
    env.push_back({"ENVFIX_CACHE_DIR", (d / "cache").string()});
    return env;
}
}  // namespace

TEST(ProbeCache, RememberedForTheBootUntilSomethingChanges) {
    test::TempDir d;
    auto sysroot = d / "root";
    standin::write_driver_files(sysroot, "580.159.04");
    test::write_text(sysroot / "proc/sys/kernel/random/boot_id", "11111111-2222-3333-4444-555555555555\n");

    {   // First a live probe (an H200), remembered.
        standin::ScopedEnv env(with(standin::env("h200-580", {.sysroot = sysroot}), d));
        auto m = inspect_machine({.use_cache = true});
        ASSERT_TRUE(m.ok());
        EXPECT_EQ(m.gpus.at(0).name, "NVIDIA H200");
    }
    {   // The driver now answers differently, but the key did not change: the remembered answer.
        standin::ScopedEnv env(with(standin::env("rtx5090-570", {.libcuda_variant = "full", .sysroot = sysroot}), d));
        auto m = inspect_machine({.use_cache = true});
        ASSERT_TRUE(m.ok());
        EXPECT_EQ(m.gpus.at(0).name, "NVIDIA H200");
        EXPECT_EQ(m.driver.version->to_string(), "580.159.04");
        EXPECT_EQ(m.gpus.at(0).cc, (ComputeCapability{9, 0}));
        // Without use_cache (envfix probe) the driver is asked, and the cache refreshed.
        auto live = inspect_machine({});
        EXPECT_EQ(live.gpus.at(0).cc, (ComputeCapability{12, 0}));
        EXPECT_EQ(inspect_machine({.use_cache = true}).gpus.at(0).cc, (ComputeCapability{12, 0}));
    }
    {   // A reboot (new boot id) or CUDA_VISIBLE_DEVICES changing: probe again.
        test::write_text(sysroot / "proc/sys/kernel/random/boot_id", "99999999-2222-3333-4444-555555555555\n");
        standin::ScopedEnv env(with(standin::env("h200-580", {.sysroot = sysroot}), d));
        EXPECT_EQ(inspect_machine({.use_cache = true}).gpus.at(0).name, "NVIDIA H200");
    }
    {
        standin::ScopedEnv env(with(standin::env("rtx3090-rtx5090-570", {.sysroot = sysroot, .cuda_visible_devices = "1"}), d));
        auto m = inspect_machine({.use_cache = true});
        ASSERT_EQ(m.gpus.size(), 1u);
        EXPECT_EQ(m.gpus.at(0).cc, (ComputeCapability{12, 0}));
    }
}

TEST(ProbeCache, NothingIsRememberedWithoutABootId) {
    test::TempDir d;
    auto sysroot = d / "root";
    standin::write_driver_files(sysroot, "580.159.04");  // no boot id
    {
        standin::ScopedEnv env(with(standin::env("h200-580", {.sysroot = sysroot}), d));
        ASSERT_TRUE(inspect_machine({.use_cache = true}).ok());
    }
    standin::ScopedEnv env(with(standin::env("rtx5090-570", {.sysroot = sysroot}), d));
    EXPECT_EQ(inspect_machine({.use_cache = true}).gpus.at(0).cc, (ComputeCapability{12, 0}));
    EXPECT_FALSE(std::filesystem::exists(d / "cache/machine-v2.json"));
}

// A container shows no module version (/sys/module/nvidia, /proc/driver/nvidia are the host's and
// hidden): the driver library's identity stands for the driver.
TEST(ProbeCache, InAContainerTheDriverLibraryStandsForTheDriver) {
    test::TempDir d;
    auto sysroot = d / "root";
    test::write_text(sysroot / "proc/sys/kernel/random/boot_id", "11111111-2222-3333-4444-555555555555\n");
    auto lib = d / "lib" / "libcuda.so.1";
    std::filesystem::create_directories(lib.parent_path());
    std::filesystem::copy_file(standin::libcuda(), lib);
    auto machine = [&](const std::string& name) {
        auto env = with(standin::env(name, {.sysroot = sysroot}), d);
        env.push_back({"ENVFIX_LIBCUDA", lib.string()});
        return env;
    };
    {
        standin::ScopedEnv env(machine("h200-580"));
        ASSERT_TRUE(inspect_machine({.use_cache = true}).ok());
    }
    {
        standin::ScopedEnv env(machine("rtx5090-570"));
        EXPECT_EQ(inspect_machine({.use_cache = true}).gpus.at(0).name, "NVIDIA H200");  // remembered
    }
    // A driver update replaces the library: probed again.
    std::filesystem::remove(lib);
    std::filesystem::copy_file(standin::libcuda(), lib);
    standin::ScopedEnv env(machine("rtx5090-570"));
    EXPECT_EQ(inspect_machine({.use_cache = true}).gpus.at(0).cc, (ComputeCapability{12, 0}));
}
