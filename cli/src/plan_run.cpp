// envfix plan: the request (machine, target environment, interpreter facts, installed set) made
// from the options, then the plan computed and shown (plan_view.cpp).
#include <filesystem>
#include <optional>

#include "envfix/common/error.hpp"
#include "envfix/common/process.hpp"
#include "envfix/matrix/gpu_names.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/plan/planner.hpp"
#include "envfix/plan/torch_filter.hpp"
#include "envfix/probe/gpu_probe.hpp"
#include "envfix/standards/tags.hpp"
#include "output.hpp"
#include "plan_request.hpp"
#include "plan_view.hpp"
#include "probe_view.hpp"

namespace envfix::cli {

namespace {

using namespace envfix::standards;
using namespace envfix::matrix;
using namespace envfix::plan;

// "--python 3.12" names a version (another machine's interpreter); "--python python3.12" or a
// path names an interpreter here.
bool names_a_version(const std::string& s) {
    if (s.empty() || !normalize_python(s)) return false;
    if (s.find('/') != std::string::npos || s.find('\\') != std::string::npos) return false;
    std::error_code ec;
    return !std::filesystem::exists(s, ec) && !find_program(s);
}

std::optional<Platform> platform_of(const probe::PythonFacts& f) {
    auto os = parse_os(f.sys_platform.empty() ? f.platform_system : f.sys_platform);
    auto cpu = parse_cpu(f.platform_machine);
    if (!os || !cpu) return std::nullopt;
    return Platform{*os, *cpu};
}

std::string python_of(const probe::PythonFacts& f) {
    auto v = normalize_python(f.version.empty() ? std::to_string(f.major) + "." + std::to_string(f.minor) : f.version);
    if (!v) return "";
    return f.free_threaded && !v->ends_with("t") ? *v + "t" : *v;
}

probe::PythonFacts synthetic(const std::string& python, const Platform& p) {
    TargetPlatform t;
    std::string v = python;
    if (v.ends_with("t")) {
        t.free_threaded = true;
        v.pop_back();
    }
    t.python = v;
    t.os = std::string(os_key(p.os));
    t.arch = std::string(cpu_key(p.cpu));
    return value_or_throw(synthetic_facts(t));
}

// The GPUs and driver of this machine; no driver or no GPU plans the CPU build, with a warning.
void probe_into(Machine& m, Context& ctx, std::vector<Message>& notes) {
    auto probed = probe::inspect_machine({.reporter = ctx.reporter, .use_cache = true});
    if (!probed.ok()) {
        ExitCode c = probed.failure->code;
        if (c != ExitCode::NoDriver && c != ExitCode::NoDevice && c != ExitCode::DevicesHidden) throw Failure(*probed.failure);
        notes.push_back(msg("plan.probe_failed_no_gpu", {{"reason", render(probed.failure->message)}}));
        return;
    }
    for (const auto& g : probed.gpus) m.gpus.push_back({g.cc, g.name});
    m.driver = probed.driver.version;
    m.driver_cuda = probed.driver.cuda;
}

}  // namespace

Matrix load_plan_matrix(const PlanCliOptions& o) {
    std::optional<std::filesystem::path> dir;
    if (!o.profiles.empty()) dir = o.profiles;
    return value_or_throw(load_profiles(dir));
}

PlanRequest plan_request(Context& ctx, PlanCliOptions o, const Matrix& matrix, const PlanSources& sources, bool offline,
                         std::vector<Message>& notes) {
    PlanRequest req;
    req.offline = offline;
    req.sources = sources;
    req.framework_source = o.torch_from == "index" ? FrameworkSource::Indexes : FrameworkSource::PytorchIndex;
    if (o.channel == "stable") req.channel = ChannelChoice::Stable;
    if (o.channel == "nightly") req.channel = ChannelChoice::Nightly;
    if (!o.variant.empty()) req.variant = o.variant;
    if (!o.torch.empty()) {
        auto filter = parse_torch_filter(o.torch);
        if (!filter) throw Failure(ExitCode::Usage, "plan.bad_torch", {{"value", o.torch}, {"reason", render(filter.error().message)}});
        req.torch = filter->spec;
        req.torch_text = filter->text;
    }
    std::optional<DriverVersion> driver;
    if (!o.driver.empty()) {
        driver = DriverVersion::parse(o.driver);
        if (!driver) throw Failure(ExitCode::Usage, "matrix.bad_driver", {{"value", o.driver}});
    }
    std::optional<OsKind> os;
    if (!o.os.empty()) {
        os = parse_os(o.os);
        if (!os) throw Failure(ExitCode::Usage, "matrix.bad_os", {{"value", o.os}});
    }
    std::optional<CpuKind> cpu;
    if (!o.arch.empty()) {
        cpu = parse_cpu(o.arch);
        if (!cpu) throw Failure(ExitCode::Usage, "matrix.bad_arch", {{"value", o.arch}});
    }
    std::string python_version;
    if (names_a_version(o.target.python)) {
        python_version = *normalize_python(o.target.python);
        o.target.python.clear();
    }
    const bool other_machine = !o.gpus.empty() || os || cpu;
    req.this_machine = !other_machine;

    // The environment: the one named, else (for this machine, no version given) the default one.
    std::optional<probe::Environment> env;
    if (o.target.given()) {
        env = resolve_target(o.target, ctx, TargetNeed::Files);
    } else if (!other_machine && python_version.empty()) {
        try {
            env = resolve_target(o.target, ctx, TargetNeed::Files);
        } catch (const Failure& f) {
            if (f.code() != ExitCode::EnvNotFound) throw;
            ctx.reporter->debug(f.error().message);
        }
    }

    Platform platform = host_platform().value_or(Platform{});
    if (env && env->facts.ran)
        if (auto p = platform_of(env->facts)) platform = *p;
    if (env && !env->runnable() && env->layout_os == probe::LayoutOs::Windows) platform.os = OsKind::Windows;
    if (os) platform.os = *os;
    if (cpu) platform.cpu = *cpu;
    req.machine.platform = platform;

    if (env) {
        req.environment = env->root.string();
        std::string v = python_of(env->facts);
        if (env->runnable()) {
            req.python = env->facts;
        } else if (!v.empty()) {
            req.python = synthetic(v, platform);  // a Windows layout read here: its tags, as there
        }
        if (!v.empty()) req.machine.python = v;
        // Offline plans list no packages: what is installed does not matter to them.
        if (!offline) req.installed = value_or_throw(read_installed(env->site_packages));
    } else if (!python_version.empty()) {
        req.machine.python = python_version;
        req.python = synthetic(python_version, platform);
    }

    if (!o.gpus.empty()) {
        for (const auto& q : o.gpus) {
            GpuMatch g = value_or_throw(resolve_gpu(matrix, q));
            req.machine.gpus.push_back({g.cc, g.name.empty() ? q : g.name});
        }
    } else if (!other_machine) {
        probe_into(req.machine, ctx, notes);
    }
    if (driver) {
        req.machine.driver = driver;
        req.machine.driver_cuda.reset();  // the table's, for this driver
    }
    return req;
}

void run_plan(Context& ctx, PlanCliOptions o, const PlanSources& sources, bool offline) {
    Matrix matrix = load_plan_matrix(o);
    std::vector<Message> notes;
    PlanRequest req = plan_request(ctx, std::move(o), matrix, sources, offline, notes);
    Plan plan = value_or_throw(compute_plan(matrix, req, *ctx.reporter));
    plan.warnings.insert(plan.warnings.begin(), notes.begin(), notes.end());
    if (plan.failure) ctx.exit_code = plan.failure->code;
    if (ctx.opts.json) {
        print_json(plan_json(plan));
        if (plan.failure) print_error_line(Error{plan.failure->code, plan.failure->message});
    } else {
        print_plan(plan, ctx.opts.verbosity > 0);
    }
}

}  // namespace envfix::cli
