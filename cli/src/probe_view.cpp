#include "probe_view.hpp"

#include <algorithm>
#include <cstdio>

#include "style.hpp"

namespace envfix::cli {

namespace {
template <class T>
Json or_null(const std::optional<T>& v) {
    return v ? Json(v->to_string()) : Json(nullptr);
}
Json text_or_null(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
}  // namespace

Json driver_json(const probe::DriverInfo& d) {
    Json j;
    j["version"] = or_null(d.version);
    j["source"] = std::string(probe::version_source_id(d.version_source));
    j["cuda_version"] = or_null(d.cuda);
    j["cuda_version_raw"] = d.cuda ? Json(d.cuda_raw) : Json(nullptr);
    j["library"] = text_or_null(d.library);
    j["library_version"] = or_null(d.library_version);
    j["nvml_library"] = text_or_null(d.nvml_library);
    j["nvml_gpu_count"] = d.nvml_gpu_count ? Json(*d.nvml_gpu_count) : Json(nullptr);
    return j;
}

Json gpu_json(const probe::Gpu& g) {
    return Json{{"index", g.index},
                {"name", g.name},
                {"compute_capability", g.cc.to_string()},
                {"sm", g.cc.sm_tag()},
                {"memory_bytes", g.memory_bytes},
                {"sm_count", g.sm_count},
                {"pci_bus_id", g.pci_bus_id},
                {"uuid", text_or_null(g.uuid)},
                {"driver_model", text_or_null(g.driver_model)}};
}

Json messages_json(const std::vector<Message>& list) {
    Json out = Json::array();
    for (const auto& m : list) out.push_back({{"key", m.key}, {"message", render(m)}});
    return out;
}

Json probe_json(const probe::MachineProbe& m) {
    Json j;
    j["schema_version"] = kJsonSchemaVersion;
    j["driver"] = driver_json(m.driver);
    j["cuda_visible_devices"] = m.cuda_visible_devices ? Json(*m.cuda_visible_devices) : Json(nullptr);
    j["devices"] = Json::array();
    for (const auto& g : m.gpus) j["devices"].push_back(gpu_json(g));
    j["hidden_devices"] = Json::array();
    for (const auto& h : m.hidden) j["hidden_devices"].push_back({{"name", h.name}, {"uuid", text_or_null(h.uuid)}});
    j["warnings"] = messages_json(m.warnings);
    j["error"] = m.failure ? error_json(*m.failure) : Json(nullptr);
    return j;
}

std::string driver_summary(const probe::DriverInfo& d) {
    std::string source(probe::version_source_label(d.version_source));
    if (d.cuda && d.version)
        return t(msg("probe.driver_line", {{"version", d.version->to_string()}, {"source", source}, {"cuda", d.cuda->to_string()}}));
    if (d.cuda) return t(msg("probe.driver_line_no_version", {{"cuda", d.cuda->to_string()}}));
    if (d.version) return t(msg("probe.driver_found_line", {{"version", d.version->to_string()}, {"source", source}}));
    return {};
}

std::string memory_mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

std::string gpu_table(const std::vector<probe::Gpu>& gpus) {
    // The driver model column only where NVML gives one (Windows): WDDM or TCC.
    bool models = std::any_of(gpus.begin(), gpus.end(), [](const probe::Gpu& g) { return !g.driver_model.empty(); });
    std::vector<std::string> head{t(msg("probe.col.gpu")),    t(msg("probe.col.name")), t(msg("probe.col.cc")),  t(msg("probe.col.sms")),
                                  t(msg("probe.col.memory")), t(msg("probe.col.bus")),  t(msg("probe.col.uuid"))};
    if (models) head.push_back(t(msg("probe.col.driver_model")));
    Table table(head);
    for (const auto& g : gpus) {
        std::vector<std::string> row{std::to_string(g.index),
                                     g.name,
                                     g.cc.to_string() + " (" + g.cc.sm_tag() + ")",
                                     std::to_string(g.sm_count),
                                     memory_mib(g.memory_bytes),
                                     g.pci_bus_id,
                                     g.uuid.empty() ? "-" : g.uuid};
        if (models) row.push_back(g.driver_model.empty() ? "-" : g.driver_model);
        table.add(row);
    }
    return table.str();
}

void print_error_line(const Error& e) {
    std::string line = "envfix: " + labelled_err("cli.label.error", Tone::Bad, render(e.message)) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace envfix::cli
