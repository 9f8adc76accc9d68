#pragma once
// Pretend GPUs for end-to-end tests: the environment that points a built envfix at the stand-in
// libcuda.so.1 / libnvidia-ml.so.1 (tests/standin/*.c) answering as a named machine. Link
// `envfix_standin` and pass the list to test::run_envfix:
//
//   auto r = test::run_envfix({"probe", "--json"}, standin::env("rtx5090-570"));
//
// The list also points envfix away from the real driver's files and tools (ENVFIX_SYSROOT,
// ENVFIX_NVIDIA_SMI), so a test answers the same on a machine with an NVIDIA GPU. README.md.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "support.hpp"

namespace envfix::test::standin {

namespace stdfs = std::filesystem;

struct Gpu {
    std::string name;  // "NVIDIA GeForce RTX 5090"
    std::string cc;    // "12.0"
    std::string mem;   // "32607MiB" (or bytes): the board's, as NVML says
    int sms = 0;
    std::string bus;   // "0000:01:00.0"
    std::string uuid;  // "GPU-…"
    std::string cuda_mem;  // cuDeviceTotalMem's answer when it differs ("" : mem)
    bool cuda = true;  // false: NVML lists it, the CUDA driver does not (a GPU it cannot run)
};

struct Machine {
    std::vector<Gpu> gpus;
    std::string driver;  // what NVML says ("" : NVML cannot tell the version)
    int cuda = 13000;    // what cuDriverGetVersion says
    std::string libcuda_variant = "full";  // the stand-in a driver of that age matches
};

// Named machines: "rtx5090-570", "gtx1080ti-580", "h200-580", "rtx3090-rtx5090-570",
// "none-580" (driver, no GPU), "gtx780-470" (Kepler: no kernel image for sm_50 PTX),
// "rtx2080-440" (CUDA 10.2 driver: too old for PTX ISA 7.0). Throws on an unknown name.
Machine machine(const std::string& name);
std::vector<std::string> machine_names();

// Built stand-ins. Variants of libcuda: "full", "no-uuid-v2", "no-uuid", "no-totalmem",
// "no-launch" (each lacks the entry points its name says), "cuda10" (lacks what CUDA 11 added).
stdfs::path libcuda(const std::string& variant = "full");
stdfs::path libnvml();

struct Options {
    std::string libcuda_variant;             // "" : the machine's
    bool nvml = true;                        // false: ENVFIX_LIBNVML names a missing file
    std::string fail;                        // ENVFIX_STANDIN_FAIL, e.g. "cuInit=803"
    std::string wrong;                       // ENVFIX_STANDIN_WRONG, e.g. "envfix_saxpy"
    std::string jit_log;                     // ENVFIX_STANDIN_JIT_LOG
    std::optional<stdfs::path> sysroot;      // ENVFIX_SYSROOT (default: a folder that does not exist)
    std::optional<stdfs::path> nvidia_smi;   // ENVFIX_NVIDIA_SMI (default: a missing program)
    std::optional<stdfs::path> call_log;     // ENVFIX_STANDIN_CALL_LOG
    std::optional<std::string> cuda_visible_devices;
};

EnvList env(const Machine& m, const Options& o = {});
EnvList env(const std::string& machine_name, const Options& o = {});
// No NVIDIA driver at all: ENVFIX_LIBCUDA and ENVFIX_LIBNVML name missing files, no driver
// files, no nvidia-smi.
EnvList no_driver_env();

// For tests that call envfix's libraries in their own process: sets `env` (and unsets
// CUDA_VISIBLE_DEVICES and every other ENVFIX_* variable) until destroyed. The stand-ins read
// their variables at each cuInit / nvmlInit_v2, so one process can probe several machines.
class ScopedEnv {
public:
    explicit ScopedEnv(const EnvList& env);
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
    void save_and_unset(const std::string& name);
};

// Driver traces for the fallbacks, under `sysroot`: sys/module/nvidia/version,
// proc/driver/nvidia/version (the real texts' form) and proc/driver/nvidia/gpus/<bus>/ per GPU.
struct DriverFiles {
    bool sys_module = true;
    bool proc_version = true;
    int proc_gpus = 0;
};
void write_driver_files(const stdfs::path& sysroot, const std::string& version, const DriverFiles& which = {});
// An executable script that prints `out` and exits with `code`, like nvidia-smi would.
stdfs::path write_fake_nvidia_smi(const stdfs::path& dir, const std::string& out, int code = 0);

}  // namespace envfix::test::standin
