#include "probe_cache.hpp"

#include "driver_files.hpp"

#include <nlohmann/json.hpp>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::probe {

namespace {

constexpr int kFormatVersion = 2;
using Json = nlohmann::json;

std::optional<std::string> boot_id() { return platform::boot_id(system_path("/proc/sys/kernel/random/boot_id")); }

std::string library_identity(const std::string& path) {
    if (path.empty()) return "";
    auto id = fs::identity(path);
    return id ? id->to_string() : "";
}

Json key_json(const MachineCacheKey& k) {
    return {{"boot_id", k.boot_id}, {"module_version", k.module_version}, {"visible_devices", k.visible_devices},
            {"libcuda", k.libcuda}, {"libnvml", k.libnvml}, {"ld_library_path", k.ld_library_path}};
}

Json message_json(const Message& m) {
    Json args = Json::array();
    for (const auto& [k, v] : m.args) args.push_back({k, v});
    return {{"key", m.key}, {"args", args}};
}
Message message_from(const Json& j) {
    Message m{j.at("key").get<std::string>(), {}};
    for (const auto& a : j.at("args")) m.args.emplace_back(a.at(0).get<std::string>(), a.at(1).get<std::string>());
    return m;
}

std::optional<DriverVersion> version_from(const Json& j) {
    if (!j.is_string()) return std::nullopt;
    return DriverVersion::parse(j.get<std::string>());
}

}  // namespace

std::filesystem::path machine_cache_file() { return fs::cache_dir() / "machine-v2.json"; }

std::optional<MachineCacheKey> machine_cache_key() {
    MachineCacheKey k;
    auto boot = boot_id();
    if (!boot) return std::nullopt;
    k.boot_id = *boot;
    // Containers often hide the module's version; the driver library's identity, checked on
    // load, then stands for the driver (a driver update replaces the library).
    if (auto module = kernel_module_version(null_reporter()).version) k.module_version = module->to_string();
    auto cvd = env::get_raw(EnvVar::CudaVisibleDevices);
    k.visible_devices = cvd ? *cvd : std::string("\x01");
    k.libcuda = env::get_or(EnvVar::EnvfixLibcuda, "");
    k.libnvml = env::get_or(EnvVar::EnvfixLibnvml, "");
    k.ld_library_path = env::get_or(EnvVar::LdLibraryPath, "");
    return k;
}

std::optional<MachineProbe> load_cached_probe(const MachineCacheKey& key) {
    auto text = fs::read_file(machine_cache_file());
    if (!text) return std::nullopt;
    try {
        Json j = Json::parse(*text);
        if (j.value("version", 0) != kFormatVersion || j.at("key") != key_json(key)) return std::nullopt;
        const Json& d = j.at("driver");
        MachineProbe m;
        m.driver.library = d.at("library").get<std::string>();
        if (d.at("library_identity").get<std::string>() != library_identity(m.driver.library)) return std::nullopt;
        m.driver.version = version_from(d.at("version"));
        m.driver.version_source = static_cast<VersionSource>(d.at("version_source").get<int>());
        m.driver.cuda_raw = d.at("cuda_raw").get<int>();
        if (m.driver.cuda_raw > 0) m.driver.cuda = CudaVersion::decode(m.driver.cuda_raw);
        m.driver.library_version = version_from(d.at("library_version"));
        m.driver.nvml_library = d.at("nvml_library").get<std::string>();
        if (d.at("nvml_identity").get<std::string>() != library_identity(m.driver.nvml_library)) return std::nullopt;
        if (d.at("nvml_gpu_count").is_number()) m.driver.nvml_gpu_count = d.at("nvml_gpu_count").get<int>();
        for (const auto& g : j.at("gpus")) {
            Gpu gpu;
            gpu.index = g.at("index").get<int>();
            gpu.name = g.at("name").get<std::string>();
            gpu.cc = {g.at("cc_major").get<int>(), g.at("cc_minor").get<int>()};
            gpu.memory_bytes = g.at("memory_bytes").get<uint64_t>();
            gpu.sm_count = g.at("sm_count").get<int>();
            gpu.pci_bus_id = g.at("pci_bus_id").get<std::string>();
            gpu.uuid = g.at("uuid").get<std::string>();
            m.gpus.push_back(std::move(gpu));
        }
        for (const auto& h : j.at("hidden")) m.hidden.push_back({h.at(0).get<std::string>(), h.at(1).get<std::string>()});
        if (j.at("cuda_visible_devices").is_string()) m.cuda_visible_devices = j.at("cuda_visible_devices").get<std::string>();
        for (const auto& w : j.at("warnings")) m.warnings.push_back(message_from(w));
        return m;
    } catch (const std::exception&) {
        return std::nullopt;  // damaged or from another build: probe again
    }
}

void save_cached_probe(const MachineCacheKey& key, const MachineProbe& m) {
    Json gpus = Json::array();
    for (const auto& g : m.gpus)
        gpus.push_back({{"index", g.index}, {"name", g.name}, {"cc_major", g.cc.major}, {"cc_minor", g.cc.minor},
                        {"memory_bytes", g.memory_bytes}, {"sm_count", g.sm_count}, {"pci_bus_id", g.pci_bus_id},
                        {"uuid", g.uuid}});
    Json hidden = Json::array();
    for (const auto& h : m.hidden) hidden.push_back({h.name, h.uuid});
    Json warnings = Json::array();
    for (const auto& w : m.warnings) warnings.push_back(message_json(w));
    const auto& d = m.driver;
    Json j = {
        {"version", kFormatVersion},
        {"key", key_json(key)},
        {"driver",
         {{"library", d.library},
          {"library_identity", library_identity(d.library)},
          {"version", d.version ? Json(d.version->to_string()) : Json(nullptr)},
          {"version_source", static_cast<int>(d.version_source)},
          {"cuda_raw", d.cuda_raw},
          {"library_version", d.library_version ? Json(d.library_version->to_string()) : Json(nullptr)},
          {"nvml_library", d.nvml_library},
          {"nvml_identity", library_identity(d.nvml_library)},
          {"nvml_gpu_count", d.nvml_gpu_count ? Json(*d.nvml_gpu_count) : Json(nullptr)}}},
        {"gpus", gpus},
        {"hidden", hidden},
        {"cuda_visible_devices", m.cuda_visible_devices ? Json(*m.cuda_visible_devices) : Json(nullptr)},
        {"warnings", warnings},
    };
    std::error_code ec;
    std::filesystem::create_directories(machine_cache_file().parent_path(), ec);
    (void)fs::write_file_atomic(machine_cache_file(), j.dump(), fs::Sync::Cache);  // a cache: failing to write costs only time
}

}  // namespace envfix::probe
