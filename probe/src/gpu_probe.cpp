// The probe: NVML for the version string and the count of all GPUs, the Driver API for what
// CUDA programs see, the driver's files and nvidia-smi when NVML is missing. docs/probe.md.
#include "envfix/probe/gpu_probe.hpp"
#include "probe_cache.hpp"

#include <filesystem>

#include "cuda_api.hpp"
#include "driver_files.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/cuda_errors.hpp"
#include "envfix/probe/driver_text.hpp"
#include "nvml_api.hpp"

namespace envfix::probe {

std::string_view version_source_id(VersionSource s) {
    switch (s) {
        case VersionSource::Nvml: return "nvml";
        case VersionSource::SysModule: return "sys-module";
        case VersionSource::ProcDriver: return "proc-driver";
        case VersionSource::NvidiaSmi: return "nvidia-smi";
        default: return "none";
    }
}

std::string_view version_source_label(VersionSource s) {
    switch (s) {
        case VersionSource::Nvml: return "NVML";
        case VersionSource::SysModule: return "/sys/module/nvidia/version";
        case VersionSource::ProcDriver: return "/proc/driver/nvidia/version";
        case VersionSource::NvidiaSmi: return "nvidia-smi";
        default: return "-";
    }
}

namespace {

namespace stdfs = std::filesystem;

std::string version_text(const std::optional<DriverVersion>& v) { return v ? v->to_string() : std::string(); }

// nvmlDriverModel_t as nvidia-smi names it; TCC is NVML's "WDM".
std::string driver_model_name(int model) {
    switch (model) {
        case 0: return "WDDM";
        case 1: return "TCC";
        case 2: return "MCDM";
        default: return "";
    }
}

// The version in the file name the library resolves to (libcuda.so.1 -> libcuda.so.580.159.04).
std::optional<DriverVersion> library_file_version(const std::string& path) {
    std::error_code ec;
    auto real = stdfs::canonical(path, ec);
    return driver_version_from_library_name((ec ? stdfs::path(path) : real).filename().string());
}

Error no_driver_error(bool overridden, const std::vector<cu::OpenAttempt>& tried, const DriverInfo& d) {
    const cu::OpenAttempt& first = tried.front();
    if (overridden)
        return make_error(ExitCode::NoDriver, "probe.libcuda_override_failed",
                          {{"library", first.name}, {"reason", first.error}});
    if (d.version)
        return make_error(ExitCode::NoDriver, "probe.no_libcuda_with_module",
                          {{"version", d.version->to_string()},
                           {"source", std::string(version_source_label(d.version_source))},
                           {"library", first.name},
                           {"reason", first.error}});
    return make_error(ExitCode::NoDriver, "probe.no_driver", {{"library", first.name}, {"reason", first.error}});
}

class Prober {
public:
    explicit Prober(const ProbeOptions& o) : opts_(o), rep_(o.reporter ? *o.reporter : null_reporter()) {}

    MachineProbe run() {
        m_.cuda_visible_devices = env::get_raw(EnvVar::CudaVisibleDevices);
        if (opts_.use_nvml) ask_nvml();
        if (auto failure = probe_cuda()) m_.failure = std::move(failure);
        ensure_version();
        if (!m_.failure) {
            if (!m_.driver.version) m_.warnings.push_back(msg("probe.no_version_string"));
            note_hidden_gpus();
            take_board_memory();
        }
        return std::move(m_);
    }

private:
    // NVML did not say: the files, then nvidia-smi (once; it costs a process).
    void ensure_version() {
        if (m_.driver.version || fallbacks_tried_) return;
        fallbacks_tried_ = true;
        fill_version(driver_version_without_nvml(rep_));
    }

    void fill_version(const VersionAnswer& a) {
        if (!a.version) return;
        m_.driver.version = a.version;
        m_.driver.version_source = a.source;
    }

    void ask_nvml() {
        std::string error;
        nvml_ = nvml::query(error);
        if (!nvml_) {
            rep_.debug(msg("probe.debug.nvml", {{"detail", error}}));
            return;
        }
        if (!nvml_->error.empty()) rep_.debug(msg("probe.debug.nvml", {{"detail", nvml_->error}}));
        m_.driver.nvml_library = nvml_->library;
        m_.driver.nvml_gpu_count = nvml_->gpu_count;
        fill_version({DriverVersion::parse(nvml_->driver_version), VersionSource::Nvml});
    }

    // Lists the GPUs through the Driver API; the error is the user's answer when it cannot.
    std::optional<Error> probe_cuda() {
        auto override_path = env::get(EnvVar::EnvfixLibcuda);
        std::vector<std::string> names = override_path ? std::vector<std::string>{*override_path} : default_libcuda_names();
        std::vector<cu::OpenAttempt> tried;
        auto opened = cu::open_first(names, tried);
        for (const auto& t : tried)
            rep_.debug(msg("probe.debug.open_failed", {{"library", t.name}, {"reason", t.error}}));
        if (!opened) {
            ensure_version();
            return no_driver_error(override_path.has_value(), tried, m_.driver);
        }
        auto driver = cu::bind_driver(opened->lib, opened->name);
        m_.driver.library = driver ? driver->path : (opened->lib.path().empty() ? opened->name : opened->lib.path());
        m_.driver.library_version = library_file_version(m_.driver.library);
        if (!driver) return std::move(driver).error();
        rep_.debug(msg("probe.debug.loaded", {{"library", m_.driver.library}}));
        const cu::Driver& d = *driver;

        int raw = 0;
        if (auto r = d.api.cuDriverGetVersion(&raw); r != cu::kSuccess) return call_failed(d, "cuDriverGetVersion", r);
        m_.driver.cuda_raw = raw;
        m_.driver.cuda = CudaVersion::decode(raw);

        int count = 0;
        cu::CUresult r = d.api.cuInit(0);
        if (r == cu::kSuccess) {
            if (auto rc = d.api.cuDeviceGetCount(&count); rc != cu::kSuccess) return call_failed(d, "cuDeviceGetCount", rc);
            if (count == 0) r = cu::kNoDevice;
        }
        if (r != cu::kSuccess) return init_failure(d, r);

        for (int i = 0; i < count; ++i) {
            Gpu g;
            if (auto e = query_gpu(d, i, g)) return e;
            m_.gpus.push_back(std::move(g));
        }
        return std::nullopt;
    }

    Error call_failed(const cu::Driver& d, const char* call, cu::CUresult r) {
        // The toolkit's stub libcuda answers every call, even cuDriverGetVersion, this way.
        if (r == cu::kStubLibrary) return init_failure(d, r);
        return make_error(ExitCode::DriverBroken, "probe.call_failed",
                          {{"library", d.path}, {"call", call}, {"error", describe(d, r)}});
    }

    static std::string describe(const cu::Driver& d, cu::CUresult r) {
        return describe_cu_error(r, d.error_name(r), d.error_text(r));
    }

    Error init_failure(const cu::Driver& d, cu::CUresult r) {
        InitFailureContext c;
        c.library = d.path;
        c.library_version = version_text(m_.driver.library_version);
        // The kernel module's own word, not NVML's: NVML is user space too and may be the
        // side that does not match.
        if (r == cu::kSystemDriverMismatch) c.module_version = version_text(kernel_module_version(rep_).version);
        c.visible_devices = m_.cuda_visible_devices;
        c.gpus_present = m_.driver.nvml_gpu_count ? m_.driver.nvml_gpu_count : gpus_in_proc();
        c.error = describe(d, r);
        return cuda_init_failure(r, c);
    }

    std::optional<Error> query_gpu(const cu::Driver& d, int index, Gpu& g) {
        auto failed = [&](const char* call, cu::CUresult r) {
            return make_error(ExitCode::DriverBroken, "probe.device_query_failed",
                              {{"call", call}, {"index", std::to_string(index)}, {"error", describe(d, r)}});
        };
        cu::CUdevice dev = 0;
        if (auto r = d.api.cuDeviceGet(&dev, index); r != cu::kSuccess) return failed("cuDeviceGet", r);
        g.index = index;
        char name[256] = {};
        if (auto r = d.api.cuDeviceGetName(name, sizeof name - 1, dev); r != cu::kSuccess) return failed("cuDeviceGetName", r);
        g.name = name;
        int major = 0, minor = 0, sms = 0;
        if (auto r = d.api.cuDeviceGetAttribute(&major, cu::kAttrComputeCapabilityMajor, dev); r != cu::kSuccess)
            return failed("cuDeviceGetAttribute", r);
        if (auto r = d.api.cuDeviceGetAttribute(&minor, cu::kAttrComputeCapabilityMinor, dev); r != cu::kSuccess)
            return failed("cuDeviceGetAttribute", r);
        if (auto r = d.api.cuDeviceGetAttribute(&sms, cu::kAttrMultiprocessorCount, dev); r != cu::kSuccess)
            return failed("cuDeviceGetAttribute", r);
        g.cc = {major, minor};
        g.sm_count = sms;
        size_t bytes = 0;
        if (auto r = d.api.cuDeviceTotalMem_v2(&bytes, dev); r != cu::kSuccess) return failed("cuDeviceTotalMem_v2", r);
        g.memory_bytes = bytes;
        char bus[64] = {};
        if (auto r = d.api.cuDeviceGetPCIBusId(bus, sizeof bus - 1, dev); r != cu::kSuccess)
            return failed("cuDeviceGetPCIBusId", r);
        g.pci_bus_id = bus;
        cu::CUuuid uuid{};
        auto get_uuid = d.api.cuDeviceGetUuid_v2 ? d.api.cuDeviceGetUuid_v2 : d.api.cuDeviceGetUuid;
        if (get_uuid && get_uuid(&uuid, dev) == cu::kSuccess) g.uuid = format_gpu_uuid(uuid.bytes);
        return std::nullopt;
    }

    // NVML and CUDA number GPUs differently; the UUID, else the PCI bus id, names one GPU.
    static bool same_gpu(const nvml::Device& dev, const Gpu& g) {
        if (!dev.uuid.empty() && !g.uuid.empty()) return str::iequals(dev.uuid, g.uuid);
        return !dev.bus_id.empty() && normalize_pci_bus_id(dev.bus_id) == normalize_pci_bus_id(g.pci_bus_id);
    }

    // cuDeviceTotalMem leaves out what the driver reserves (an H200: 143155 of 143771 MiB); users
    // compare with nvidia-smi, which shows NVML's total, so that one is reported where NVML has it.
    // The Windows driver model comes from NVML too.
    void take_board_memory() {
        if (!nvml_) return;
        for (auto& g : m_.gpus)
            for (const auto& dev : nvml_->devices)
                if (same_gpu(dev, g)) {
                    if (dev.memory_bytes) g.memory_bytes = *dev.memory_bytes;
                    if (dev.driver_model) g.driver_model = driver_model_name(*dev.driver_model);
                }
    }

    // NVML lists every GPU; CUDA only those CUDA_VISIBLE_DEVICES lets through and the driver
    // can run. Say which ones a CUDA program will not see.
    void note_hidden_gpus() {
        if (!nvml_ || !nvml_->gpu_count || *nvml_->gpu_count <= static_cast<int>(m_.gpus.size())) return;
        int total = *nvml_->gpu_count;
        int hidden_count = total - static_cast<int>(m_.gpus.size());
        std::vector<std::string> names;
        for (const auto& dev : nvml_->devices) {
            bool visible = false;
            for (const auto& g : m_.gpus) visible = visible || same_gpu(dev, g);
            if (visible) continue;
            m_.hidden.push_back({dev.name, dev.uuid});
            names.push_back(dev.name + (dev.uuid.empty() ? "" : " (" + dev.uuid + ")"));
        }
        if (names.empty()) names.push_back("?");
        std::string listed = str::join(names, ", ");
        if (m_.cuda_visible_devices)
            m_.warnings.push_back(msg("probe.hidden_some", {{"value", *m_.cuda_visible_devices},
                                                             {"hidden", std::to_string(hidden_count)},
                                                             {"count", std::to_string(total)},
                                                             {"names", listed}}));
        else
            m_.warnings.push_back(msg("probe.cuda_sees_fewer", {{"count", std::to_string(total)},
                                                                 {"visible", std::to_string(m_.gpus.size())},
                                                                 {"names", listed}}));
    }

    const ProbeOptions& opts_;
    Reporter& rep_;
    MachineProbe m_;
    std::optional<nvml::Facts> nvml_;
    bool fallbacks_tried_ = false;
};

}  // namespace

MachineProbe inspect_machine(const ProbeOptions& opts) {
    Reporter& rep = opts.reporter ? *opts.reporter : null_reporter();
    auto key = machine_cache_key();
    if (opts.use_cache && key)
        if (auto remembered = load_cached_probe(*key)) {
            rep.debug(msg("probe.debug.cached", {{"file", machine_cache_file().string()}}));
            return std::move(*remembered);
        }
    MachineProbe m = Prober(opts).run();
    if (key && m.ok()) save_cached_probe(*key, m);
    return m;
}

Expected<MachineProbe> probe_machine(const ProbeOptions& opts) {
    MachineProbe m = inspect_machine(opts);
    if (m.failure) return unexpected(std::move(*m.failure));
    return m;
}

}  // namespace envfix::probe
