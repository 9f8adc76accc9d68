// probe_machine / inspect_machine as other areas call them, in this process, against the
// stand-in driver libraries loaded through the real dlopen path.
#include <gtest/gtest.h>

#include "envfix/probe/gpu_probe.hpp"
#include "standin.hpp"

using namespace envfix;
using namespace envfix::probe;
namespace standin = envfix::test::standin;

namespace {
class Recorder final : public Reporter {
public:
    void note(Severity, const Message& m) override { notes.push_back(render(m, Lang::En)); }
    bool confirm(const Message&, bool fallback) override { return fallback; }
    int task_begin(const Message&, uint64_t) override { return 0; }
    void task_advance(int, uint64_t) override {}
    void task_end(int, bool) override {}
    bool saw(std::string_view part) const {
        for (const auto& n : notes)
            if (n.find(part) != std::string::npos) return true;
        return false;
    }
    std::vector<std::string> notes;
};

bool has_warning(const MachineProbe& m, std::string_view key) {
    for (const auto& w : m.warnings)
        if (w.key == key) return true;
    return false;
}
}  // namespace

TEST(GpuProbe, H200AsTheDriverAndNvmlDescribeIt) {
    standin::ScopedEnv env(standin::env("h200-580"));
    auto m = probe_machine();
    ASSERT_TRUE(m) << render(m.error().message, Lang::En);
    EXPECT_EQ(m->driver.version->to_string(), "580.159.04");
    EXPECT_EQ(m->driver.version_source, VersionSource::Nvml);
    EXPECT_EQ(m->driver.cuda->to_string(), "13.0");
    EXPECT_EQ(m->driver.cuda_raw, 13000);
    EXPECT_EQ(m->driver.library, standin::libcuda().string());
    EXPECT_EQ(m->driver.nvml_library, standin::libnvml().string());
    EXPECT_EQ(m->driver.nvml_gpu_count, 1);
    ASSERT_EQ(m->gpus.size(), 1u);
    const Gpu& g = m->gpus[0];
    EXPECT_EQ(g.index, 0);
    EXPECT_EQ(g.name, "NVIDIA H200");
    EXPECT_EQ(g.cc, (ComputeCapability{9, 0}));
    EXPECT_EQ(g.memory_bytes, 143771ull << 20);
    EXPECT_EQ(g.sm_count, 132);
    EXPECT_EQ(g.pci_bus_id, "0000:18:00.0");
    EXPECT_EQ(g.uuid, "GPU-20020020-4444-4000-8000-000000000200");
    EXPECT_TRUE(m->warnings.empty());
    EXPECT_TRUE(m->hidden.empty());
    EXPECT_FALSE(m->cuda_visible_devices);
}

// NVML's total is what nvidia-smi shows; cuDeviceTotalMem's smaller figure only without NVML.
TEST(GpuProbe, MemoryIsTheBoardsAsNvmlSaysElseWhatCudaSays) {
    {
        standin::ScopedEnv env(standin::env("h200-580", {.nvml = false}));
        auto m = probe_machine();
        ASSERT_TRUE(m);
        EXPECT_EQ(m->gpus.at(0).memory_bytes, 143155ull << 20);
    }
    standin::ScopedEnv env(standin::env("h200-580", {.fail = "nvmlDeviceGetMemoryInfo=999"}));
    auto m = probe_machine();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->gpus.at(0).memory_bytes, 143155ull << 20);
}

TEST(GpuProbe, MixedGpusKeepTheDriversOrder) {
    standin::ScopedEnv env(standin::env("rtx3090-rtx5090-570"));
    auto m = probe_machine();
    ASSERT_TRUE(m);
    ASSERT_EQ(m->gpus.size(), 2u);
    EXPECT_EQ(m->gpus[0].name, "NVIDIA GeForce RTX 3090");
    EXPECT_EQ(m->gpus[0].cc.sm_tag(), "sm_86");
    EXPECT_EQ(m->gpus[1].index, 1);
    EXPECT_EQ(m->gpus[1].cc.sm_tag(), "sm_120");
    EXPECT_EQ(m->gpus[1].pci_bus_id, "0000:02:00.0");
    EXPECT_EQ(m->driver.cuda->to_string(), "12.8");
}

TEST(GpuProbe, OlderDriverWithoutUuidV2FallsBackToTheFirstUuidCall) {
    standin::Options o;
    o.libcuda_variant = "no-uuid-v2";
    standin::ScopedEnv env(standin::env("rtx5090-570", o));
    auto m = probe_machine();
    ASSERT_TRUE(m);
    EXPECT_EQ(m->gpus[0].uuid, "GPU-50905090-1111-4000-8000-000000005090");
    o.libcuda_variant = "no-uuid";
    standin::ScopedEnv env2(standin::env("rtx5090-570", o));
    auto m2 = probe_machine();
    ASSERT_TRUE(m2);
    EXPECT_EQ(m2->gpus[0].uuid, "");
}

TEST(GpuProbe, LibraryLackingAnEntryPointIsBroken) {
    standin::Options o;
    o.libcuda_variant = "no-totalmem";
    standin::ScopedEnv env(standin::env("rtx5090-570", o));
    auto m = inspect_machine();
    ASSERT_TRUE(m.failure);
    EXPECT_EQ(m.failure->code, ExitCode::DriverBroken);
    EXPECT_EQ(m.failure->message.key, "probe.missing_entry_point");
    EXPECT_EQ(m.failure->message.arg("symbol"), "cuDeviceTotalMem_v2");
    EXPECT_EQ(m.driver.library, standin::libcuda("no-totalmem").string());
    EXPECT_EQ(m.driver.version->to_string(), "570.133.07");  // NVML still answered
}

TEST(GpuProbe, FailureKeepsWhatWasLearned) {
    test::TempDir root;
    standin::write_driver_files(root.path(), "575.57.08");
    standin::Options o;
    o.fail = "cuInit=803,nvmlInit_v2=18";  // NVML: Driver/library version mismatch, as with a real one
    o.sysroot = root.path();
    standin::ScopedEnv env(standin::env("rtx5090-570", o));
    auto m = inspect_machine();
    ASSERT_TRUE(m.failure);
    EXPECT_EQ(m.failure->code, ExitCode::DriverMismatch);
    EXPECT_EQ(m.failure->message.arg("module_version"), "575.57.08");
    EXPECT_EQ(m.driver.cuda->to_string(), "12.8");  // cuDriverGetVersion works before cuInit
    EXPECT_EQ(m.driver.version->to_string(), "575.57.08");
    EXPECT_EQ(m.driver.version_source, VersionSource::SysModule);
    EXPECT_TRUE(m.gpus.empty());
    EXPECT_FALSE(probe_machine());
}

TEST(GpuProbe, VersionFallsBackFromNvmlToSysToProcToNvidiaSmi) {
    test::TempDir root;
    standin::Options o;
    o.nvml = false;
    o.sysroot = root.path();
    o.nvidia_smi = standin::write_fake_nvidia_smi(root.path(), "580.95.05\n");

    standin::write_driver_files(root.path(), "580.95.01", {.sys_module = true, .proc_version = true});
    {
        standin::ScopedEnv env(standin::env("gtx1080ti-580", o));
        auto m = probe_machine();
        ASSERT_TRUE(m);
        EXPECT_EQ(m->driver.version_source, VersionSource::SysModule);
        EXPECT_EQ(m->driver.version->to_string(), "580.95.01");
        EXPECT_EQ(m->driver.nvml_library, "");
    }
    std::filesystem::remove(root / "sys/module/nvidia/version");
    standin::write_driver_files(root.path(), "580.95.02", {.sys_module = false, .proc_version = true});
    {
        standin::ScopedEnv env(standin::env("gtx1080ti-580", o));
        auto m = probe_machine();
        ASSERT_TRUE(m);
        EXPECT_EQ(m->driver.version_source, VersionSource::ProcDriver);
        EXPECT_EQ(m->driver.version->to_string(), "580.95.02");
    }
    std::filesystem::remove(root / "proc/driver/nvidia/version");
    {
        standin::ScopedEnv env(standin::env("gtx1080ti-580", o));
        Recorder rec;
        auto m = probe_machine({.reporter = &rec});
        ASSERT_TRUE(m);
        EXPECT_EQ(m->driver.version_source, VersionSource::NvidiaSmi);
        EXPECT_EQ(m->driver.version->to_string(), "580.95.05");
        EXPECT_TRUE(rec.saw("/sys/module/nvidia/version")) << testing::PrintToString(rec.notes);
        EXPECT_TRUE(rec.saw("/proc/driver/nvidia/version"));
    }
    o.nvidia_smi = standin::write_fake_nvidia_smi(root.path(), "NVIDIA-SMI has failed because it couldn't "
                                                               "communicate with the NVIDIA driver.\n", 9);
    {
        standin::ScopedEnv env(standin::env("gtx1080ti-580", o));
        auto m = probe_machine();
        ASSERT_TRUE(m);  // the GPUs are known; only the version string is missing
        EXPECT_EQ(m->driver.version_source, VersionSource::None);
        EXPECT_FALSE(m->driver.version);
        EXPECT_TRUE(has_warning(*m, "probe.no_version_string"));
    }
}

TEST(GpuProbe, VisibleDevicesHidingSomeGpusIsAWarning) {
    standin::Options o;
    o.cuda_visible_devices = "1";
    standin::ScopedEnv env(standin::env("rtx3090-rtx5090-570", o));
    auto m = probe_machine();
    ASSERT_TRUE(m);
    ASSERT_EQ(m->gpus.size(), 1u);
    EXPECT_EQ(m->gpus[0].index, 0);  // CUDA renumbers
    EXPECT_EQ(m->gpus[0].name, "NVIDIA GeForce RTX 5090");
    EXPECT_EQ(m->cuda_visible_devices, "1");
    ASSERT_EQ(m->hidden.size(), 1u);
    EXPECT_EQ(m->hidden[0].name, "NVIDIA GeForce RTX 3090");
    ASSERT_EQ(m->warnings.size(), 1u);
    EXPECT_EQ(m->warnings[0].key, "probe.hidden_some");
    EXPECT_EQ(m->warnings[0].arg("hidden"), "1");
}

TEST(GpuProbe, HiddenGpusAreMatchedByBusIdWithoutUuids) {
    standin::Options o;
    o.cuda_visible_devices = "0";
    o.libcuda_variant = "no-uuid";  // CUDA cannot say UUIDs: NVML's PCI bus ids tell the GPUs apart
    standin::ScopedEnv env(standin::env("rtx3090-rtx5090-570", o));
    auto m = probe_machine();
    ASSERT_TRUE(m);
    ASSERT_EQ(m->hidden.size(), 1u);
    EXPECT_EQ(m->hidden[0].uuid, "GPU-50905090-1111-4000-8000-000000005090");
}

TEST(GpuProbe, VisibleDevicesByUuid) {
    standin::Options o;
    o.cuda_visible_devices = "GPU-30903090";  // a unique prefix is enough, as for the real driver
    standin::ScopedEnv env(standin::env("rtx3090-rtx5090-570", o));
    auto m = probe_machine();
    ASSERT_TRUE(m);
    ASSERT_EQ(m->gpus.size(), 1u);
    EXPECT_EQ(m->gpus[0].name, "NVIDIA GeForce RTX 3090");
}

TEST(GpuProbe, VisibleDevicesHidingEveryGpu) {
    for (const char* value : {"", "5", "-1", "GPU-nope"}) {
        standin::Options o;
        o.cuda_visible_devices = value;
        standin::ScopedEnv env(standin::env("rtx3090-rtx5090-570", o));
        auto m = inspect_machine();
        ASSERT_TRUE(m.failure) << value;
        EXPECT_EQ(m.failure->code, ExitCode::DevicesHidden) << value;
        EXPECT_EQ(m.failure->message.arg("count"), "2");
    }
}

TEST(GpuProbe, WithoutNvmlHiddenGpusAreCountedFromProc) {
    test::TempDir root;
    standin::write_driver_files(root.path(), "570.133.07", {.proc_gpus = 2});
    standin::Options o;
    o.nvml = false;
    o.sysroot = root.path();
    o.cuda_visible_devices = "";
    standin::ScopedEnv env(standin::env("rtx3090-rtx5090-570", o));
    auto m = inspect_machine();
    ASSERT_TRUE(m.failure);
    EXPECT_EQ(m.failure->code, ExitCode::DevicesHidden);
    std::filesystem::remove_all(root / "proc/driver/nvidia/gpus");
    auto unknown = inspect_machine();
    ASSERT_TRUE(unknown.failure);
    EXPECT_EQ(unknown.failure->code, ExitCode::NoDevice);
    EXPECT_EQ(unknown.failure->message.key, "probe.no_device_maybe_hidden");
}

TEST(GpuProbe, GpuTheDriverCannotRunIsNamed) {
    standin::Machine mach = standin::machine("rtx3090-rtx5090-570");
    mach.gpus[0].cuda = false;  // NVML lists it, CUDA does not
    standin::ScopedEnv env(standin::env(mach));
    auto m = probe_machine();
    ASSERT_TRUE(m);
    ASSERT_EQ(m->gpus.size(), 1u);
    ASSERT_EQ(m->warnings.size(), 1u);
    EXPECT_EQ(m->warnings[0].key, "probe.cuda_sees_fewer");
    EXPECT_NE(m->warnings[0].arg("names").find("RTX 3090"), std::string_view::npos);
}

TEST(GpuProbe, DeviceQueryFailureNamesTheCall) {
    standin::Options o;
    o.fail = "cuDeviceGetPCIBusId=999";
    standin::ScopedEnv env(standin::env("h200-580", o));
    auto m = inspect_machine();
    ASSERT_TRUE(m.failure);
    EXPECT_EQ(m.failure->code, ExitCode::DriverBroken);
    EXPECT_EQ(m.failure->message.key, "probe.device_query_failed");
    EXPECT_EQ(m.failure->message.arg("call"), "cuDeviceGetPCIBusId");
    EXPECT_EQ(m.failure->message.arg("error"), "CUDA_ERROR_UNKNOWN (999): unknown error");
}

TEST(GpuProbe, NoDriverAtAll) {
    standin::ScopedEnv env(standin::no_driver_env());
    Recorder rec;
    auto m = inspect_machine({.reporter = &rec});
    ASSERT_TRUE(m.failure);
    EXPECT_EQ(m.failure->code, ExitCode::NoDriver);
    EXPECT_EQ(m.failure->message.key, "probe.libcuda_override_failed");  // ENVFIX_LIBCUDA named it
    EXPECT_EQ(m.driver.library, "");
    EXPECT_FALSE(m.driver.cuda);
    EXPECT_TRUE(rec.saw("/nonexistent/envfix-standin/libcuda.so.1"));
}
