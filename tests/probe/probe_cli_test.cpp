// `envfix probe` end to end: the built binary against the stand-in driver libraries, checked
// through its JSON, its text and its exit codes (docs/probe.md, docs/json.md).
#include <gtest/gtest.h>

#include "standin.hpp"
#include "support.hpp"

using namespace envfix;
namespace standin = envfix::test::standin;

namespace {
bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

test::RunResult probe_json(const test::EnvList& env) { return test::run_envfix({"probe", "--json"}, env); }

void expect_error(const test::RunResult& r, int code, const char* name, const char* key) {
    EXPECT_EQ(r.code, code) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    ASSERT_TRUE(j["error"].is_object()) << r.out;
    EXPECT_EQ(j["error"]["exit_code"], code);
    EXPECT_EQ(j["error"]["name"], name);
    EXPECT_EQ(j["error"]["key"], key);
    EXPECT_TRUE(j["devices"].empty());
    // The same sentence on stderr, on one line.
    std::string line = "envfix: error: " + j["error"]["message"].get<std::string>() + "\n";
    EXPECT_TRUE(contains(r.err, line)) << r.err;
}
}  // namespace

TEST(ProbeCli, Rtx5090OnDriver570) {
    auto r = probe_json(standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["driver"]["version"], "570.133.07");
    EXPECT_EQ(j["driver"]["source"], "nvml");
    EXPECT_EQ(j["driver"]["cuda_version"], "12.8");
    EXPECT_EQ(j["driver"]["cuda_version_raw"], 12080);
    EXPECT_EQ(j["driver"]["library"], standin::libcuda().string());
    EXPECT_EQ(j["driver"]["nvml_gpu_count"], 1);
    ASSERT_EQ(j["devices"].size(), 1u);
    auto d = j["devices"][0];
    EXPECT_EQ(d["index"], 0);
    EXPECT_EQ(d["name"], "NVIDIA GeForce RTX 5090");
    EXPECT_EQ(d["compute_capability"], "12.0");
    EXPECT_EQ(d["sm"], "sm_120");
    EXPECT_EQ(d["memory_bytes"], 32607ull << 20);
    EXPECT_EQ(d["sm_count"], 170);
    EXPECT_EQ(d["pci_bus_id"], "0000:01:00.0");
    EXPECT_EQ(d["uuid"], "GPU-50905090-1111-4000-8000-000000005090");
    EXPECT_TRUE(j["warnings"].empty());
    EXPECT_TRUE(j["error"].is_null());
    EXPECT_TRUE(j["cuda_visible_devices"].is_null());
}

TEST(ProbeCli, Gtx1080TiOnDriver580) {
    auto r = probe_json(standin::env("gtx1080ti-580"));
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["driver"]["version"], "580.95.05");
    EXPECT_EQ(j["driver"]["cuda_version"], "13.0");
    EXPECT_EQ(j["devices"][0]["compute_capability"], "6.1");
    EXPECT_EQ(j["devices"][0]["sm"], "sm_61");
}

TEST(ProbeCli, H200TableReadsLikeNvidiaSmi) {
    auto r = test::run_envfix({"probe"}, standin::env("h200-580"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "NVIDIA driver 580.159.04 (from NVML), runs CUDA 13.0 and older")) << r.out;
    EXPECT_TRUE(contains(r.out, "driver library: " + standin::libcuda().string()));
    EXPECT_TRUE(contains(r.out, "NVIDIA H200")) << r.out;
    EXPECT_TRUE(contains(r.out, "9.0 (sm_90)"));
    EXPECT_TRUE(contains(r.out, "143771 MiB"));
    EXPECT_TRUE(contains(r.out, "132"));
    EXPECT_TRUE(contains(r.out, "0000:18:00.0"));
    EXPECT_EQ(r.err, "");
}

TEST(ProbeCli, H200InChinese) {
    auto r = test::run_envfix({"--lang", "zh", "probe"}, standin::env("h200-580"));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "NVIDIA 驱动 580.159.04（来自 NVML），支持 CUDA 13.0 及更早版本")) << r.out;
    EXPECT_TRUE(contains(r.out, "计算能力"));
}

TEST(ProbeCli, TwoMixedGpus) {
    auto r = probe_json(standin::env("rtx3090-rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    ASSERT_EQ(j["devices"].size(), 2u);
    EXPECT_EQ(j["devices"][0]["name"], "NVIDIA GeForce RTX 3090");
    EXPECT_EQ(j["devices"][0]["sm"], "sm_86");
    EXPECT_EQ(j["devices"][1]["index"], 1);
    EXPECT_EQ(j["devices"][1]["sm"], "sm_120");
    EXPECT_EQ(j["driver"]["nvml_gpu_count"], 2);
}

TEST(ProbeCli, DriverWithoutDevice) {
    expect_error(probe_json(standin::env("none-580")), 11, "no-device", "probe.no_device");
}

TEST(ProbeCli, DriverAndKernelModuleDiffer) {
    test::TempDir root;
    standin::write_driver_files(root.path(), "575.57.08");
    standin::Options o;
    o.fail = "cuInit=803,nvmlInit_v2=18";
    o.sysroot = root.path();
    auto r = probe_json(standin::env("rtx5090-570", o));
    expect_error(r, 12, "driver-mismatch", "probe.driver_mismatch");
    auto j = r.json();
    EXPECT_TRUE(contains(j["error"]["message"], "575.57.08")) << j.dump();
    EXPECT_EQ(j["driver"]["version"], "575.57.08");
    EXPECT_EQ(j["driver"]["source"], "sys-module");
    EXPECT_EQ(j["driver"]["cuda_version"], "12.8");
}

TEST(ProbeCli, ForwardCompatibilityOnAGpuThatDoesNotTakeIt) {
    expect_error(probe_json(standin::env("rtx5090-570", {.fail = "cuInit=804"})), 13, "compat-not-supported",
                 "probe.compat_not_supported");
}

TEST(ProbeCli, NoDriverLibrary) {
    auto r = probe_json(standin::no_driver_env());
    expect_error(r, 10, "no-driver", "probe.libcuda_override_failed");
    EXPECT_TRUE(contains(r.err, "/nonexistent/envfix-standin/libcuda.so.1")) << r.err;
    EXPECT_TRUE(r.json()["driver"]["library"].is_null());
}

TEST(ProbeCli, NoDriverLibraryInText) {
    auto r = test::run_envfix({"probe"}, standin::no_driver_env());
    EXPECT_EQ(r.code, 10);
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(contains(r.err, "envfix: error: cannot load /nonexistent/envfix-standin/libcuda.so.1")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(ProbeCli, KernelModuleLoadedButNoLibcuda) {
    // A container started without GPU access: the host's module shows in /proc, no libcuda.
    test::TempDir root;
    standin::write_driver_files(root.path(), "580.95.05", {.sys_module = false, .proc_version = true});
    auto env = standin::no_driver_env();
    for (auto& [k, v] : env)
        if (k == "ENVFIX_SYSROOT") v = root.path().string();
    // The default library names, as on a user's machine: none of them exists here.
    std::erase_if(env, [](const auto& kv) { return kv.first == "ENVFIX_LIBCUDA"; });
    if (std::filesystem::exists("/usr/lib/wsl/lib/libcuda.so.1") || test::run_program({"/sbin/ldconfig", "-p"}).out.find("libcuda.so.1") != std::string::npos)
        GTEST_SKIP() << "this machine has a real libcuda.so.1";
    auto r = probe_json(env);
    expect_error(r, 10, "no-driver", "probe.no_libcuda_with_module");
    auto j = r.json();
    EXPECT_EQ(j["driver"]["version"], "580.95.05");
    EXPECT_EQ(j["driver"]["source"], "proc-driver");
    EXPECT_TRUE(contains(j["error"]["message"], "--gpus all"));
}

TEST(ProbeCli, LibraryLackingAnEntryPoint) {
    auto r = probe_json(standin::env("rtx5090-570", {.libcuda_variant = "no-totalmem"}));
    expect_error(r, 14, "driver-broken", "probe.missing_entry_point");
    EXPECT_TRUE(contains(r.json()["error"]["message"], "cuDeviceTotalMem_v2"));
}

TEST(ProbeCli, CuInitFailing) {
    auto r = probe_json(standin::env("h200-580", {.fail = "cuInit=999"}));
    expect_error(r, 14, "driver-broken", "probe.init_failed");
    EXPECT_TRUE(contains(r.json()["error"]["message"], "CUDA_ERROR_UNKNOWN (999): unknown error"));
}

TEST(ProbeCli, FabricManagerNotRunning) {
    auto r = probe_json(standin::env("h200-580", {.fail = "cuInit=802"}));
    expect_error(r, 14, "driver-broken", "probe.system_not_ready");
    EXPECT_TRUE(contains(r.json()["error"]["message"], "nvidia-fabricmanager"));
}

// The CUDA toolkit's own stub libcuda.so, loaded by mistake (LD_LIBRARY_PATH with stubs/).
TEST(ProbeCli, ToolkitStubLibrary) {
    const std::filesystem::path stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
    if (!std::filesystem::exists(stub)) GTEST_SKIP() << "no CUDA toolkit stub here";
    auto env = standin::no_driver_env();
    for (auto& [k, v] : env)
        if (k == "ENVFIX_LIBCUDA") v = stub.string();
    auto r = probe_json(env);
    expect_error(r, 10, "no-driver", "probe.stub_library");
}

TEST(ProbeCli, VisibleDevicesHidingEveryGpu) {
    auto r = probe_json(standin::env("rtx3090-rtx5090-570", {.cuda_visible_devices = ""}));
    expect_error(r, 15, "devices-hidden", "probe.devices_hidden_all");
    EXPECT_EQ(r.json()["cuda_visible_devices"], "");
    auto text = test::run_envfix({"probe"}, standin::env("rtx3090-rtx5090-570", {.cuda_visible_devices = "7"}));
    EXPECT_EQ(text.code, 15);
    EXPECT_TRUE(contains(text.err, "CUDA_VISIBLE_DEVICES=\"7\" hides every GPU")) << text.err;
}

TEST(ProbeCli, VisibleDevicesHidingSomeGpus) {
    auto env = standin::env("rtx3090-rtx5090-570", {.cuda_visible_devices = "1"});
    auto r = probe_json(env);
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    ASSERT_EQ(j["devices"].size(), 1u);
    EXPECT_EQ(j["devices"][0]["name"], "NVIDIA GeForce RTX 5090");
    EXPECT_EQ(j["cuda_visible_devices"], "1");
    ASSERT_EQ(j["hidden_devices"].size(), 1u);
    EXPECT_EQ(j["hidden_devices"][0]["name"], "NVIDIA GeForce RTX 3090");
    EXPECT_EQ(j["hidden_devices"][0]["uuid"], "GPU-30903090-2222-4000-8000-000000003090");
    ASSERT_EQ(j["warnings"].size(), 1u);
    EXPECT_EQ(j["warnings"][0]["key"], "probe.hidden_some");
    EXPECT_EQ(r.err, "");  // --json: the warning is in the document

    auto text = test::run_envfix({"probe"}, env);
    EXPECT_EQ(text.code, 0);
    EXPECT_TRUE(contains(text.err, "warning: CUDA_VISIBLE_DEVICES=\"1\" hides 1 of 2 GPUs from CUDA programs: "
                                   "NVIDIA GeForce RTX 3090 (GPU-30903090-2222-4000-8000-000000003090)"))
        << text.err;
}

TEST(ProbeCli, VersionFromSysModuleWithoutNvml) {
    test::TempDir root;
    standin::write_driver_files(root.path(), "580.95.05");
    auto j = probe_json(standin::env("gtx1080ti-580", {.nvml = false, .sysroot = root.path()})).json();
    EXPECT_EQ(j["driver"]["version"], "580.95.05");
    EXPECT_EQ(j["driver"]["source"], "sys-module");
    EXPECT_TRUE(j["driver"]["nvml_library"].is_null());
}

TEST(ProbeCli, VersionFromProcWithoutNvml) {
    test::TempDir root;
    standin::write_driver_files(root.path(), "580.95.05", {.sys_module = false, .proc_version = true});
    auto j = probe_json(standin::env("gtx1080ti-580", {.nvml = false, .sysroot = root.path()})).json();
    EXPECT_EQ(j["driver"]["version"], "580.95.05");
    EXPECT_EQ(j["driver"]["source"], "proc-driver");
}

TEST(ProbeCli, VersionFromNvidiaSmiWithoutNvml) {
    test::TempDir root;
    auto smi = standin::write_fake_nvidia_smi(root.path(), "580.95.05\n");
    auto r = test::run_envfix({"probe"}, standin::env("gtx1080ti-580", {.nvml = false, .nvidia_smi = smi}));
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "NVIDIA driver 580.95.05 (from nvidia-smi)")) << r.out;
}

TEST(ProbeCli, NoVersionStringAnywhere) {
    auto r = probe_json(standin::env("gtx1080ti-580", {.nvml = false}));
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_TRUE(j["driver"]["version"].is_null());
    EXPECT_EQ(j["driver"]["source"], "none");
    EXPECT_EQ(j["driver"]["cuda_version"], "13.0");
    EXPECT_EQ(j["warnings"][0]["key"], "probe.no_version_string");
}

TEST(ProbeCli, ProbeCallsCuInitWithZeroAndRunsNoKernel) {
    test::TempDir dir;
    auto log = dir / "calls.log";
    auto r = test::run_envfix({"probe"}, standin::env("h200-580", {.call_log = log}));
    ASSERT_EQ(r.code, 0) << r.err;
    std::string calls = test::read_text(log);
    EXPECT_TRUE(contains(calls, "cuInit 0\n")) << calls;
    EXPECT_TRUE(contains(calls, "nvmlInit_v2\n"));
    EXPECT_TRUE(contains(calls, "nvmlShutdown\n"));
    EXPECT_FALSE(contains(calls, "cuModuleLoadDataEx"));
    EXPECT_FALSE(contains(calls, "cuDevicePrimaryCtxRetain"));
}

TEST(ProbeCli, EveryNamedStandInMachineProbes) {
    for (const auto& name : standin::machine_names()) {
        auto m = standin::machine(name);
        auto r = probe_json(standin::env(m));
        EXPECT_EQ(r.code, m.gpus.empty() ? 11 : 0) << name << r.err;
        EXPECT_EQ(r.json()["devices"].size(), m.gpus.size()) << name;
    }
}
