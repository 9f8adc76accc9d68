#include "doctor_view.hpp"

#include "env_json.hpp"
#include "envfix/common/strings.hpp"
#include "probe_view.hpp"
#include "style.hpp"

namespace envfix::cli {

namespace {

using diagnosis::Diagnosis;
using diagnosis::FindingSeverity;
using diagnosis::LayerStatus;

Json msg_json(const Message& m) {
    if (m.empty()) return nullptr;
    return Json{{"key", m.key}, {"message", t(m)}};
}

std::string layer_label(diagnosis::Layer l) {
    switch (l) {
        case diagnosis::Layer::Driver: return t(msg("doctor.layer.driver"));
        case diagnosis::Layer::Runtime: return t(msg("doctor.layer.runtime"));
        case diagnosis::Layer::Framework: return t(msg("doctor.layer.framework"));
    }
    return "";
}

std::string status_label(LayerStatus s) {
    std::string label = t(msg("doctor.status." + std::string(diagnosis::layer_status_name(s))));
    switch (s) {
        case LayerStatus::Ok: return paint_out(label, Tone::Good);
        case LayerStatus::Warning: return paint_out(label, Tone::Warn);
        case LayerStatus::Problem: return paint_out(label, Tone::Bad);
        default: return label;
    }
}

std::string python_of(const probe::PythonFacts& f) {
    if (!f.version.empty()) return f.version;
    if (f.major > 0) return std::to_string(f.major) + "." + std::to_string(f.minor);
    return "?";
}

std::string fix_command(const DoctorView& v) {
    const auto& d = *v.diagnosis;
    return d.fix ? diagnosis::format_command(d.fix->argv, v.windows_command) : "";
}

std::string gpu_lines(const std::vector<probe::Gpu>& gpus) {
    std::string out;
    for (const auto& g : gpus)
        out += t(msg("doctor.gpu_line",
                     {{"index", std::to_string(g.index)}, {"gpu", diagnosis::gpu_label(g)}, {"memory", memory_mib(g.memory_bytes)}})) +
               "\n";
    return out;
}

}  // namespace

std::string doctor_machine_text(const probe::MachineProbe& m) {
    std::string out;
    if (auto line = driver_summary(m.driver); !line.empty()) out += line + "\n";
    if (m.failure) out += t(m.failure->message) + "\n";
    out += gpu_lines(m.gpus);
    if (!out.empty()) out.pop_back();
    return out;
}

std::string doctor_text(const DoctorView& v) {
    const Diagnosis& d = *v.diagnosis;
    const bool served = d.code == ExitCode::Ok;
    std::string out = paint_out(t(d.verdict), served ? Tone::Good : Tone::Bad) + "\n\n";
    out += t(msg("doctor.environment", {{"root", v.env->root.string()},
                                        {"kind", std::string(probe::env_kind_name(v.env->kind))},
                                        {"python", python_of(v.env->facts)}})) +
           "\n";
    if (v.env->problem && v.env->status != probe::EnvStatus::Ok) out += "  " + t(v.env->problem->message) + "\n";
    out += gpu_lines(v.machine->gpus) + "\n";

    Table table({t(msg("doctor.col.layer")), t(msg("doctor.col.found")), t(msg("doctor.col.status"))});
    for (const auto& l : d.layers) table.add({layer_label(l.layer), t(l.found), status_label(l.status)});
    out += table.str();
    for (const auto& l : d.layers)
        if (!l.note.empty() && l.status != LayerStatus::Ok && l.status != LayerStatus::NotNeeded && t(l.note) != t(d.verdict))
            out += "  " + layer_label(l.layer) + ": " + t(l.note) + "\n";

    // Per GPU, when there is more than one to tell apart.
    if (d.gpus.size() > 1)
        for (const auto& g : d.gpus) out += "  " + t(g.reason) + "\n";

    std::vector<std::string> more;
    for (const auto& f : d.findings) {
        if (t(f.text) == t(d.verdict)) continue;
        std::string mark = f.severity == FindingSeverity::Error ? "! " : "- ";
        more.push_back("  " + mark + t(f.text));
    }
    if (!more.empty()) {
        out += "\n" + t(msg("doctor.also")) + "\n";
        for (const auto& m : more) out += m + "\n";
    }

    if (v.run_error) out += "\n" + t(msg("doctor.run.header")) + " " + t(v.run_error->message) + "\n";
    if (v.run) out += "\n" + t(msg("doctor.run.header")) + " " + t(diagnosis::relate(*v.run, d)) + "\n";

    if (d.fix) {
        out += "\n" + t(msg(d.fix->reinstall ? "doctor.fix_reinstall" : "doctor.fix", {{"command", fix_command(v)}})) + "\n";
    } else if (!d.fix_text.empty()) {
        out += "\n" + t(msg("doctor.fix_text", {{"text", t(d.fix_text)}})) + "\n";
    }
    for (const auto& n : d.fix_notes) out += "  " + t(n) + "\n";
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

Json doctor_json(const DoctorView& v) {
    const Diagnosis& d = *v.diagnosis;
    const auto& stack = *v.stack;
    Json j;
    j["schema_version"] = kJsonSchemaVersion;
    j["environment"] = environment_json(*v.env);
    j["driver"] = driver_json(v.machine->driver);
    j["devices"] = Json::array();
    for (const auto& g : v.machine->gpus) j["devices"].push_back(gpu_json(g));
    j["probe_error"] = v.machine->failure ? error_json(*v.machine->failure) : Json(nullptr);

    Json framework = nullptr;
    if (stack.torch) {
        const auto& b = *stack.torch;
        framework = {{"name", "torch"},
                     {"version", b.version},
                     {"dist_version", b.dist_version},
                     {"public_version", b.public_version},
                     {"local", b.local.empty() ? Json(nullptr) : Json(b.local)},
                     {"build", std::string(diagnosis::build_kind_name(b.kind))},
                     {"evidence", std::string(diagnosis::build_evidence_name(b.evidence))},
                     {"variant", b.variant.empty() ? Json(nullptr) : Json(b.variant)},
                     {"cuda", b.cuda ? Json(b.cuda->to_string()) : Json(nullptr)},
                     {"rocm", b.rocm.empty() ? Json(nullptr) : Json(b.rocm)},
                     {"git_version", b.git_version.empty() ? Json(nullptr) : Json(b.git_version)},
                     {"dist_info", stack.torch_dist ? Json(stack.torch_dist->dist_info.string()) : Json(nullptr)}};
    }
    j["framework"] = framework;

    Json packages = Json::array();
    for (const auto& dist : stack.installed.dists) {
        auto major = diagnosis::runtime_cuda_major(dist.canonical_name, dist.version);
        packages.push_back({{"name", dist.name},
                            {"version", dist.version},
                            {"dist_info", dist.dist_info.string()},
                            {"cuda_major", major ? Json(*major) : Json(nullptr)},
                            {"problem", dist.problem ? error_json(*dist.problem) : Json(nullptr)}});
    }
    j["packages"] = packages;

    Json libraries = Json::array();
    for (const auto& lib : stack.libraries) {
        if (!lib.archs.has_gpu_code()) continue;
        libraries.push_back({{"path", lib.path.string()},
                             {"shown", lib.shown},
                             {"package", lib.package},
                             {"role", std::string(diagnosis::library_role_name(lib.role))},
                             {"arch_list", lib.archs.arch_list()},
                             {"cubins", lib.archs.cubins},
                             {"ptx_entries", lib.archs.ptx_entries},
                             {"partial", lib.archs.partial},
                             {"from_cache", lib.from_cache}});
    }
    j["libraries"] = libraries;

    Json gpus = Json::array();
    for (const auto& g : d.gpus) {
        Json gaps = Json::array();
        for (const auto& gap : g.gaps)
            gaps.push_back({{"library", gap.library},
                            {"package", gap.package},
                            {"role", std::string(diagnosis::library_role_name(gap.role))},
                            {"archs", gap.archs},
                            {"why", t(gap.why)}});
        gpus.push_back(
            {{"index", g.gpu.index},
             {"name", g.gpu.name},
             {"sm", g.gpu.cc.sm_tag()},
             {"served", g.served},
             {"kind", std::string(matrix::coverage_kind_name(g.kind))},
             {"target", g.target ? Json(g.kind == matrix::CoverageKind::Jit || g.jit_blocked ? g.target->compute_tag() : g.target->sm_tag())
                                 : Json(nullptr)},
             {"jit_blocked", g.jit_blocked},
             {"reason", t(g.reason)},
             {"missing", gaps},
             {"jit_libraries", g.jit_libraries}});
    }
    j["gpus"] = gpus;

    Json layers = Json::array();
    for (const auto& l : d.layers)
        layers.push_back({{"layer", std::string(diagnosis::layer_name(l.layer))},
                          {"status", std::string(diagnosis::layer_status_name(l.status))},
                          {"found", t(l.found)},
                          {"note", l.note.empty() ? Json(nullptr) : Json(t(l.note))}});
    j["layers"] = layers;

    Json findings = Json::array();
    for (const auto& f : d.findings)
        findings.push_back({{"id", f.id},
                            {"severity", std::string(diagnosis::severity_name(f.severity))},
                            {"layer", std::string(diagnosis::layer_name(f.layer))},
                            {"exit_code", static_cast<int>(f.code)},
                            {"key", f.text.key},
                            {"message", t(f.text)}});
    j["findings"] = findings;
    j["verdict"] = msg_json(d.verdict);
    j["runtime"] =
        d.runtime_cuda ? Json{{"cuda", d.runtime_cuda->to_string()},
                              {"package", d.runtime_package.empty() ? Json(nullptr) : Json(d.runtime_package)},
                              {"fit", d.runtime ? Json(std::string(matrix::runtime_fit_name(d.runtime->fit))) : Json(nullptr)},
                              {"driver_needed", d.runtime && d.runtime->need ? Json(d.runtime->need->exact.to_string()) : Json(nullptr)}}
                       : Json(nullptr);
    Json fix = nullptr;
    if (d.fix) {
        fix = {{"command", fix_command(v)},
               {"argv", d.fix->argv},
               {"torch", d.fix->torch.empty() ? Json(nullptr) : Json(d.fix->torch)},
               {"variant", d.fix->variant},
               {"channel", std::string(matrix::to_string(d.fix->channel))},
               {"reinstall", d.fix->reinstall}};
    }
    Json notes = Json::array();
    for (const auto& n : d.fix_notes) notes.push_back(t(n));
    j["fix"] = fix;
    j["fix_text"] = d.fix_text.empty() ? Json(nullptr) : Json(t(d.fix_text));
    j["fix_notes"] = notes;

    Json run = nullptr;
    if (v.run) {
        run = {{"ran", true},
               {"outcome", std::string(diagnosis::repro_outcome_name(v.run->outcome))},
               {"exit_code", v.run->exit_code},
               {"error", v.run->error_line.empty() ? Json(nullptr) : Json(v.run->error_line)},
               {"torch", v.run->torch.empty() ? Json(nullptr) : Json(v.run->torch)},
               {"device", v.run->device.empty() ? Json(nullptr) : Json(v.run->device)},
               {"elapsed_ms", v.run->elapsed.count()},
               {"relation", t(diagnosis::relate(*v.run, d))}};
    } else if (v.run_requested) {
        run = {{"ran", false}, {"reason", v.run_error ? Json(t(v.run_error->message)) : Json(nullptr)}};
    }
    j["run"] = run;
    j["exit_code"] = static_cast<int>(v.code);
    j["exit_name"] = std::string(exit_code_name(v.code));
    j["error"] = nullptr;
    return j;
}

}  // namespace envfix::cli
