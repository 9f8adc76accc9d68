#include "standin.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

extern char** environ;

namespace envfix::test::standin {

namespace {
const Gpu kRtx5090{"NVIDIA GeForce RTX 5090", "12.0", "32607MiB", 170, "0000:01:00.0",
                   "GPU-50905090-1111-4000-8000-000000005090"};
const Gpu kRtx3090{"NVIDIA GeForce RTX 3090", "8.6", "24576MiB", 82, "0000:01:00.0",
                   "GPU-30903090-2222-4000-8000-000000003090"};
const Gpu kGtx1080Ti{"NVIDIA GeForce GTX 1080 Ti", "6.1", "11264MiB", 28, "0000:01:00.0",
                     "GPU-10801080-3333-4000-8000-000000001080"};
// As the project's H200 answers: NVML (and nvidia-smi) 143771 MiB, cuDeviceTotalMem 143155 MiB.
const Gpu kH200{"NVIDIA H200", "9.0", "143771MiB", 132, "0000:18:00.0", "GPU-20020020-4444-4000-8000-000000000200",
                "143155MiB"};
const Gpu kGtx780{"NVIDIA GeForce GTX 780", "3.5", "3072MiB", 12, "0000:01:00.0",
                  "GPU-07800780-5555-4000-8000-000000000780"};
const Gpu kRtx2080{"NVIDIA GeForce RTX 2080", "7.5", "8192MiB", 46, "0000:01:00.0",
                   "GPU-20802080-6666-4000-8000-000000002080"};

const std::map<std::string, Machine>& machines() {
    static const std::map<std::string, Machine> m = [] {
        Gpu second5090 = kRtx5090;
        second5090.bus = "0000:02:00.0";
        return std::map<std::string, Machine>{
            {"rtx5090-570", {{kRtx5090}, "570.133.07", 12080}},
            {"gtx1080ti-580", {{kGtx1080Ti}, "580.95.05", 13000}},
            {"h200-580", {{kH200}, "580.159.04", 13000}},
            {"rtx3090-rtx5090-570", {{kRtx3090, second5090}, "570.133.07", 12080}},
            {"none-580", {{}, "580.95.05", 13000}},
            {"gtx780-470", {{kGtx780}, "470.256.02", 11040}},
            {"rtx2080-440", {{kRtx2080}, "440.100", 10020, "cuda10"}},
        };
    }();
    return m;
}

std::string gpus_value(const std::vector<Gpu>& gpus) {
    std::string out;
    for (const auto& g : gpus) {
        if (!out.empty()) out += ';';
        out += "name=" + g.name + ",cc=" + g.cc + ",mem=" + g.mem + ",sms=" + std::to_string(g.sms) + ",bus=" + g.bus +
               ",uuid=" + g.uuid + (g.cuda_mem.empty() ? "" : ",cuda_mem=" + g.cuda_mem) + (g.cuda ? "" : ",cuda=0");
    }
    return out;
}
}  // namespace

Machine machine(const std::string& name) {
    auto it = machines().find(name);
    if (it == machines().end()) throw std::invalid_argument("no stand-in machine named " + name);
    return it->second;
}

std::vector<std::string> machine_names() {
    std::vector<std::string> out;
    for (const auto& [name, m] : machines()) out.push_back(name);
    return out;
}

stdfs::path libcuda(const std::string& variant) { return stdfs::path(ENVFIX_STANDIN_DIR) / variant / "libcuda.so.1"; }
stdfs::path libnvml() { return ENVFIX_STANDIN_NVML; }

EnvList env(const Machine& m, const Options& o) {
    EnvList e{
        {"ENVFIX_LIBCUDA", libcuda(o.libcuda_variant.empty() ? m.libcuda_variant : o.libcuda_variant).string()},
        {"ENVFIX_LIBNVML", o.nvml ? libnvml().string() : "/nonexistent/envfix-standin/libnvidia-ml.so.1"},
        {"ENVFIX_SYSROOT", o.sysroot ? o.sysroot->string() : "/nonexistent/envfix-standin-sysroot"},
        {"ENVFIX_NVIDIA_SMI", o.nvidia_smi ? o.nvidia_smi->string() : "/nonexistent/envfix-standin/nvidia-smi"},
        {"ENVFIX_STANDIN_GPUS", gpus_value(m.gpus)},
        {"ENVFIX_STANDIN_DRIVER", m.driver},
        {"ENVFIX_STANDIN_CUDA", std::to_string(m.cuda)},
    };
    if (!o.fail.empty()) e.push_back({"ENVFIX_STANDIN_FAIL", o.fail});
    if (!o.wrong.empty()) e.push_back({"ENVFIX_STANDIN_WRONG", o.wrong});
    if (!o.jit_log.empty()) e.push_back({"ENVFIX_STANDIN_JIT_LOG", o.jit_log});
    if (o.call_log) e.push_back({"ENVFIX_STANDIN_CALL_LOG", o.call_log->string()});
    if (o.cuda_visible_devices) e.push_back({"CUDA_VISIBLE_DEVICES", *o.cuda_visible_devices});
    return e;
}

EnvList env(const std::string& machine_name, const Options& o) { return env(machine(machine_name), o); }

EnvList no_driver_env() {
    return {{"ENVFIX_LIBCUDA", "/nonexistent/envfix-standin/libcuda.so.1"},
            {"ENVFIX_LIBNVML", "/nonexistent/envfix-standin/libnvidia-ml.so.1"},
            {"ENVFIX_SYSROOT", "/nonexistent/envfix-standin-sysroot"},
            {"ENVFIX_NVIDIA_SMI", "/nonexistent/envfix-standin/nvidia-smi"}};
}

ScopedEnv::ScopedEnv(const EnvList& env) {
    std::vector<std::string> names{"CUDA_VISIBLE_DEVICES"};
    for (char** e = environ; e && *e; ++e) {
        std::string kv(*e);
        if (kv.rfind("ENVFIX_", 0) == 0 && kv.rfind("ENVFIX_KEEP_TEST_DIRS", 0) != 0) names.push_back(kv.substr(0, kv.find('=')));
    }
    for (const auto& [k, v] : env) names.push_back(k);
    for (const auto& n : names) save_and_unset(n);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
}

void ScopedEnv::save_and_unset(const std::string& name) {
    for (const auto& [k, v] : saved_)
        if (k == name) return;
    const char* v = std::getenv(name.c_str());
    saved_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
    ::unsetenv(name.c_str());
}

ScopedEnv::~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
        if (v) ::setenv(k.c_str(), v->c_str(), 1);
        else ::unsetenv(k.c_str());
    }
}

void write_driver_files(const stdfs::path& sysroot, const std::string& version, const DriverFiles& which) {
    if (which.sys_module) write_text(sysroot / "sys/module/nvidia/version", version + "\n");
    if (which.proc_version)
        write_text(sysroot / "proc/driver/nvidia/version",
                   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " + version +
                       "  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Sep 23 09:10:41 UTC 2025\n"
                       "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
    for (int i = 0; i < which.proc_gpus; ++i) {
        char bus[32];
        std::snprintf(bus, sizeof bus, "0000:%02x:00.0", i + 1);
        write_text(sysroot / "proc/driver/nvidia/gpus" / bus / "information", "Model: stand-in\n");
    }
}

stdfs::path write_fake_nvidia_smi(const stdfs::path& dir, const std::string& out, int code) {
    stdfs::path script = dir / "nvidia-smi";
    std::string quoted;
    for (char c : out) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    write_text(script, "#!/bin/sh\nprintf '%s' '" + quoted + "'\nexit " + std::to_string(code) + "\n");
    stdfs::permissions(script, stdfs::perms::owner_all | stdfs::perms::group_read | stdfs::perms::group_exec);
    return script;
}

}  // namespace envfix::test::standin
