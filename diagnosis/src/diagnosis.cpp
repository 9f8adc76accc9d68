#include "envfix/diagnosis/diagnosis.hpp"

#include <algorithm>

#include "diagnosis_parts.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::diagnosis {

std::string_view layer_name(Layer l) {
    switch (l) {
        case Layer::Driver: return "driver";
        case Layer::Runtime: return "cuda-runtime";
        case Layer::Framework: return "framework";
    }
    return "framework";
}

std::string_view layer_status_name(LayerStatus s) {
    switch (s) {
        case LayerStatus::Ok: return "ok";
        case LayerStatus::Warning: return "warning";
        case LayerStatus::Problem: return "problem";
        case LayerStatus::Unknown: return "unknown";
        case LayerStatus::NotNeeded: return "not-needed";
    }
    return "unknown";
}

std::string_view severity_name(FindingSeverity s) {
    switch (s) {
        case FindingSeverity::Error: return "error";
        case FindingSeverity::Warning: return "warning";
        case FindingSeverity::Info: return "info";
    }
    return "info";
}

namespace {

// Lower is more basic (docs/doctor.md, "Exit codes").
int rank(ExitCode c) {
    switch (c) {
        case ExitCode::NoFramework: return 0;
        case ExitCode::NoDriver:
        case ExitCode::NoDevice:
        case ExitCode::DriverMismatch:
        case ExitCode::CompatNotSupported:
        case ExitCode::DriverBroken:
        case ExitCode::DevicesHidden: return 1;
        case ExitCode::DriverTooOld: return 2;
        case ExitCode::CpuOnlyBuild: return 3;
        case ExitCode::GpuNotServed: return 4;
        case ExitCode::EnvBroken: return 5;
        case ExitCode::EnvInconsistent: return 6;
        case ExitCode::Ok: return 100;
        default: return 7;
    }
}

}  // namespace

ExitCode most_basic(const std::vector<ExitCode>& codes) {
    ExitCode best = ExitCode::Ok;
    for (ExitCode c : codes)
        if (rank(c) < rank(best)) best = c;
    return best;
}

std::string gpu_label(const probe::Gpu& g) {
    std::string name = g.name;
    if (name.starts_with("NVIDIA ")) name = name.substr(7);
    return matrix::machine_gpu_label({g.cc, name});
}

std::string arch_range(const std::vector<probe::ArchTarget>& sass) {
    if (sass.empty()) return "";
    auto [lo, hi] = std::minmax_element(sass.begin(), sass.end());
    if (*lo == *hi) return lo->sm_tag();
    return lo->sm_tag() + "\xE2\x80\x93" + hi->sm_tag();  // en dash
}

std::string format_command(const std::vector<std::string>& argv, bool windows) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        bool plain = !a.empty() && a.find_first_of(" \t\"'\\$`&|;<>()*?!#~{}[]") == std::string::npos;
        // ">=" and "<" in requirement specifiers are shell operators too; "==" is not.
        if (plain)
            out += a;
        else if (windows)
            out += "\"" + str::replace_all(a, "\"", "\\\"") + "\"";
        else
            out += "'" + str::replace_all(a, "'", "'\\''") + "'";
    }
    return out;
}

matrix::Machine policy_machine(const probe::MachineProbe& m, const matrix::Platform& platform, const std::optional<std::string>& python) {
    matrix::Machine mach;
    if (m.ok())
        for (const auto& g : m.gpus) mach.gpus.push_back({g.cc, g.name});
    mach.driver = m.driver.version;
    mach.driver_cuda = m.driver.cuda;
    mach.platform = platform;
    mach.python = python;
    return mach;
}

namespace {

using namespace diag;

std::string gpu_labels(const Diagnosis& d) {
    std::vector<std::string> labels;
    for (const auto& g : d.gpus) labels.push_back(g.label);
    return str::join(labels, ", ");
}

void framework_layer(Context& c) {
    LayerReport row{.layer = Layer::Framework};
    if (!c.torch) {
        row.status = LayerStatus::Problem;
        row.found = msg("diag.layer.framework_none");
        c.d.layers.push_back(std::move(row));
        return;
    }
    const StackLibrary* main = nullptr;
    for (const auto& lib : c.stack.libraries)
        if (lib.role == LibraryRole::Framework && lib.archs.has_gpu_code() &&
            (!main || lib.archs.code_containers > main->archs.code_containers))
            main = &lib;
    if (c.torch->kind == BuildKind::Cuda)
        row.found = main ? msg("diag.layer.framework_cuda", {{"torch", c.torch_name}, {"archs", str::join(main->archs.arch_list(), " ")}})
                         : msg("diag.layer.framework_cuda_no_code", {{"torch", c.torch_name}});
    else
        row.found = msg("diag.layer.framework_other", {{"torch", c.torch_name}, {"kind", std::string(build_kind_name(c.torch->kind))}});

    row.status = LayerStatus::Ok;
    if (row.status == LayerStatus::Ok && !c.d.gpus.empty()) row.note = c.d.gpus.front().reason;
    if (!c.gpu_machine && c.torch->kind == BuildKind::Cpu) row.note = msg("diag.layer.cpu_fits");
    c.d.layers.push_back(std::move(row));
}

// Each layer's status takes the worst finding of that layer; its note, the first such finding.
void settle_layers(Context& c) {
    for (auto& row : c.d.layers) {
        bool noted = false;
        for (const auto& f : c.d.findings) {
            if (f.layer != row.layer || f.severity == FindingSeverity::Info) continue;
            LayerStatus s = f.severity == FindingSeverity::Error ? LayerStatus::Problem : LayerStatus::Warning;
            bool worse = s == LayerStatus::Problem ? row.status != LayerStatus::Problem
                                                   : row.status == LayerStatus::Ok || row.status == LayerStatus::Unknown;
            if (worse) row.status = s;
            if (worse || (!noted && row.status == s && row.note.empty())) {
                if (!noted) row.note = f.text;
                noted = true;
            }
        }
    }
}

Message ok_verdict(const Context& c) {
    const Diagnosis& d = c.d;
    if (!c.torch) return msg("diag.verdict.ok");
    if (!c.gpu_machine) {
        if (c.torch->kind == BuildKind::Cpu) return msg("diag.verdict.cpu_no_gpu", {{"torch", c.torch_name}});
        return msg("diag.verdict.other_no_gpu", {{"torch", c.torch_name}, {"kind", std::string(build_kind_name(c.torch->kind))}});
    }
    bool jit = std::any_of(d.gpus.begin(), d.gpus.end(), [](const GpuReport& g) { return g.kind == matrix::CoverageKind::Jit; });
    if (d.gpus.size() == 1) {
        const auto& g = d.gpus.front();
        if (jit)
            return msg("diag.verdict.jit", {{"torch", c.torch_name}, {"gpu", g.label}, {"ptx", g.target ? g.target->compute_tag() : "?"}});
        if (g.target) return msg("diag.verdict.native", {{"torch", c.torch_name}, {"gpu", g.label}, {"target", g.target->sm_tag()}});
        return msg("diag.verdict.served", {{"torch", c.torch_name}, {"gpu", g.label}});
    }
    return msg(jit ? "diag.verdict.all_jit" : "diag.verdict.all", {{"torch", c.torch_name}, {"gpus", gpu_labels(d)}});
}

}  // namespace

Diagnosis diagnose(const DiagnosisInput& in) {
    Diagnosis d;
    Context c{.in = in, .d = d, .mx = *in.matrix, .machine = *in.machine, .stack = *in.stack};
    if (in.stack->torch) {
        c.torch = &*in.stack->torch;
        c.torch_name = "torch " + c.torch->version;
    }
    c.driver = in.machine->driver.version;
    c.driver_cuda = in.machine->driver.cuda;
    if (!c.driver_cuda && c.driver) c.driver_cuda = c.mx.driver_cuda(*c.driver);
    c.gpu_machine = in.machine->ok() && !in.machine->gpus.empty();

    // No torch at all, no usable GPU for a build that needs one, a build without CUDA.
    if (!c.torch) {
        c.add({.id = "no-framework",
               .severity = FindingSeverity::Error,
               .layer = Layer::Framework,
               .code = ExitCode::NoFramework,
               .text = c.gpu_machine || !in.machine->failure ? msg("diag.no_torch", {{"env", in.environment}})
                                                             : msg("diag.no_torch_no_gpu", {{"env", in.environment}})});
    } else if (in.machine->failure && c.torch->kind == BuildKind::Cuda) {
        c.add({.id = "no-gpu",
               .severity = FindingSeverity::Error,
               .layer = Layer::Driver,
               .code = in.machine->failure->code,
               .text = in.machine->failure->message});
    } else if (c.gpu_machine && c.torch->kind != BuildKind::Cuda) {
        const char* key = c.torch->kind == BuildKind::Rocm  ? "diag.rocm_build"
                          : c.torch->kind == BuildKind::Xpu ? "diag.xpu_build"
                                                            : "diag.cpu_only";
        c.add({.id = "cpu-only",
               .severity = FindingSeverity::Error,
               .layer = Layer::Framework,
               .code = ExitCode::CpuOnlyBuild,
               .text = msg(key, {{"torch", c.torch_name}, {"gpu", gpu_label(in.machine->gpus.front())}})});
    } else if (!c.gpu_machine && c.torch->kind != BuildKind::Cuda && c.torch->kind != BuildKind::Cpu) {
        c.add({.id = "other-backend",
               .severity = FindingSeverity::Info,
               .layer = Layer::Framework,
               .text = msg("diag.other_backend", {{"torch", c.torch_name}, {"kind", std::string(build_kind_name(c.torch->kind))}})});
    }

    judge_driver_and_runtime(c);
    judge_gpus(c);
    judge_stack(c);
    framework_layer(c);

    std::vector<ExitCode> codes;
    for (const auto& f : d.findings) codes.push_back(f.code);
    d.code = most_basic(codes);
    // Errors first, the most basic among them first; then warnings, then notes.
    std::stable_sort(d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) {
        if (a.severity != b.severity) return a.severity < b.severity;
        return rank(a.code) < rank(b.code);
    });
    settle_layers(c);
    d.verdict = ok_verdict(c);
    for (const auto& f : d.findings)
        if (f.code == d.code && d.code != ExitCode::Ok) {
            d.verdict = f.text;
            break;
        }
    propose_fix(c);
    return d;
}

}  // namespace envfix::diagnosis
