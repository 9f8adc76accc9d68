// verify_environment(): both levels, and the framework failure set beside doctor's diagnosis
// (verify.hpp).
#include "envfix/installer/verify.hpp"

#include <future>

#include "envfix/common/strings.hpp"
#include "envfix/diagnosis/framework_stack.hpp"
#include "envfix/matrix/coverage.hpp"
#include "envfix/matrix/matrix_loader.hpp"

namespace envfix::installer {

namespace {

using diagnosis::ReproOutcome;

DriverLevel driver_level(const probe::MachineProbe& m, const VerifyOptions& o) {
    DriverLevel l;
    if (m.failure) {
        l.error = *m.failure;
        return l;
    }
    probe::KernelCheckOptions ko = o.kernel;
    ko.reporter = o.reporter;
    auto check = probe::run_kernel_check(m, ko);
    if (!check) {
        l.error = std::move(check).error();
        return l;
    }
    l.ran = true;
    size_t failed = 0;
    for (const auto& g : check->gpus) failed += g.passed() ? 0 : 1;
    if (failed)
        l.error = make_error(ExitCode::VerifyDriverFailed, "verify.driver_failed",
                             {{"failed", std::to_string(failed)}, {"count", std::to_string(check->gpus.size())}});
    l.check = std::move(*check);
    return l;
}

// The environment's platform as doctor judges it: a Windows layout read on Linux is Windows.
matrix::Platform platform_of(const probe::Environment& env) {
    matrix::Platform p = matrix::host_platform().value_or(matrix::Platform{});
    if (env.layout_os == probe::LayoutOs::Windows) p.os = matrix::OsKind::Windows;
    if (auto cpu = matrix::parse_cpu(env.facts.platform_machine)) p.cpu = *cpu;
    return p;
}

// doctor's diagnosis of the environment's files, as `envfix doctor` makes it. nullopt (with a
// debug note) when the matrix or the files cannot be read: the failure stands without it.
std::optional<diagnosis::Diagnosis> diagnose_env(const probe::Environment& env, const probe::MachineProbe& machine,
                                                 const VerifyOptions& o) {
    Reporter& r = o.reporter ? *o.reporter : null_reporter();
    auto matrix = matrix::load_profiles(o.profiles);
    if (!matrix) {
        r.debug(matrix.error().message);
        return std::nullopt;
    }
    std::vector<Message> notes;
    auto stack = diagnosis::read_environment_stack_cached(env.site_packages, notes);
    for (const auto& n : notes) r.debug(n);
    if (!stack) {
        r.debug(stack.error().message);
        return std::nullopt;
    }
    diagnosis::DiagnosisInput in;
    in.matrix = &*matrix;
    in.machine = &machine;
    in.stack = &*stack;
    in.platform = platform_of(env);
    if (env.facts.major > 0)
        in.python = std::to_string(env.facts.major) + "." + std::to_string(env.facts.minor) + (env.facts.free_threaded ? "t" : "");
    in.markers = standards::marker_environment(env.facts);
    in.target_args = o.target_args.empty() ? std::vector<std::string>{"--python", env.interpreter.string()} : o.target_args;
    in.environment = env.root.string();
    return diagnosis::diagnose(in);
}

std::string sm_of(const std::string& capability) {
    auto cc = probe::ComputeCapability::parse(capability);
    return cc ? cc->sm_tag() : "sm_?";
}

// The ops that run torch's own kernels (not a companion's, not a package's self-test).
bool torch_kernel_op(const OpCheck& op) {
    return op.device >= 0 && op.op != "nms" && op.op != "xformers_attention" && op.op != "device";
}

// torch's arch list does not run on the GPU: the same reason doctor gives from the fatbins,
// from torch's own words.
std::optional<Message> arch_list_gap(const FrameworkCheck& c, const OpCheck& op) {
    const TorchDevice* d = c.device(op.device);
    if (!d || c.arch_list.empty()) return std::nullopt;
    auto cc = probe::ComputeCapability::parse(d->capability);
    if (!cc) return std::nullopt;
    matrix::BinaryTargets t;
    for (const auto& a : c.arch_list) {
        auto target = probe::ArchTarget::parse(a);
        if (!target) continue;
        (a.starts_with("compute_") ? t.ptx : t.sass).push_back(*target);
    }
    if (matrix::cover(t, *cc).served()) return std::nullopt;
    return msg("verify.explain.arch_list", {{"torch", "torch " + c.torch_version},
                                            {"archs", str::join(c.arch_list, " ")},
                                            {"gpu", torch_gpu_label(c, op.device)}});
}

}  // namespace

std::optional<Error> VerifyReport::error() const {
    if (driver.error) return driver.error;
    return framework.error;
}

const OpCheck* VerifyReport::failed_op() const {
    return framework.check ? framework.check->first_failure() : nullptr;
}

std::string torch_gpu_label(const FrameworkCheck& c, int index) {
    const TorchDevice* d = c.device(index);
    if (!d) return "GPU " + std::to_string(index);
    return "GPU " + std::to_string(index) + " (" + d->name + ", " + sm_of(d->capability) + ")";
}

std::optional<Error> framework_error(const FrameworkCheck& c, const probe::Environment& env) {
    if (c.passed()) return std::nullopt;
    const ExitCode failed = ExitCode::VerifyFrameworkFailed;
    if (const OpCheck* op = c.first_failure()) {
        std::string error = c.error_line();
        if (op->op == "module")
            return make_error(failed, "verify.framework.module_failed", {{"module", op->module}, {"error", error}});
        if (op->op == "import")
            return make_error(failed, "verify.framework.companion_broken", {{"name", op->module}, {"error", error}});
        std::string gpu = torch_gpu_label(c, op->device);
        if (op->status == OpStatus::Wrong) {
            char diff[32], tol[32];
            std::snprintf(diff, sizeof diff, "%.3g", op->max_error.value_or(-1));
            std::snprintf(tol, sizeof tol, "%.3g", op->tolerance);
            return make_error(failed, "verify.framework.op_wrong",
                              {{"op", op->label()}, {"gpu", gpu}, {"difference", op->max_error ? diff : "NaN"}, {"tolerance", tol}});
        }
        if (op->status == OpStatus::Crashed)
            return make_error(failed, "verify.framework.op_crashed", {{"op", op->label()}, {"gpu", gpu}, {"how", op->error}});
        return make_error(failed, "verify.framework.op_failed", {{"op", op->label()}, {"gpu", gpu}, {"error", error}});
    }
    if (c.timed_out) return make_error(failed, "verify.framework.timed_out", {{"python", env.interpreter.string()}});
    if (!c.started || !c.completed)
        return make_error(failed, "verify.framework.died", {{"python", env.interpreter.string()}, {"how", c.error_line()}});
    if (!c.torch_imported) {
        if (c.torch_missing && c.modules.empty())
            return make_error(ExitCode::NoFramework, "verify.framework.no_torch", {{"env", env.root.string()}});
        return make_error(failed, "verify.framework.import_failed", {{"python", env.interpreter.string()}, {"error", c.error_line()}});
    }
    if (!c.cuda_available)
        return make_error(failed, "verify.framework.unavailable", {{"torch", c.torch_version}, {"reason", c.error_line()}});
    return make_error(failed, "verify.framework.no_devices", {{"torch", c.torch_version}});
}

std::vector<Message> explain_failure(const FrameworkCheck& c, const diagnosis::Diagnosis* d, bool windows_command) {
    std::vector<Message> out;
    if (c.passed()) return out;
    const OpCheck* op = c.first_failure();
    const ReproOutcome outcome = c.outcome();
    if (op && outcome == ReproOutcome::NoKernelImage && torch_kernel_op(*op))
        if (auto m = arch_list_gap(c, *op)) out.push_back(std::move(*m));
    if (!d) return out;
    const ExitCode expected = diagnosis::repro_exit_code(outcome);
    if (d->code != ExitCode::Ok && expected == d->code)
        out.push_back(msg("verify.explain.confirms", {{"verdict", render(d->verdict)}}));
    else if (d->code == ExitCode::Ok && outcome == ReproOutcome::NoKernelImage)
        out.push_back(msg("verify.explain.kernel_not_predicted"));
    else if (d->code == ExitCode::Ok)
        out.push_back(msg("verify.explain.nothing_predicted"));
    else
        out.push_back(msg("verify.explain.diagnosis", {{"verdict", render(d->verdict)}}));
    if (d->fix)
        out.push_back(msg("verify.explain.fix", {{"command", diagnosis::format_command(d->fix->argv, windows_command)}}));
    else if (!d->fix_text.empty() && d->code != ExitCode::Ok) out.push_back(d->fix_text);
    return out;
}

VerifyReport verify_environment(const probe::Environment& env, const probe::MachineProbe& machine, const VerifyOptions& options) {
    VerifyReport report;
    // The interpreter and torch take seconds to start: the kernels run meanwhile.
    std::future<Expected<FrameworkCheck>> framework;
    if (options.framework)
        framework = std::async(std::launch::async, [&] { return run_framework_check(env.interpreter, options.framework_options); });
    if (options.driver) report.driver = driver_level(machine, options);
    if (!options.framework) return report;

    auto check = framework.get();
    FrameworkLevel& f = report.framework;
    if (!check) {
        f.error = std::move(check).error();
        return report;
    }
    f.ran = true;
    f.error = framework_error(*check, env);
    if (f.error && f.error->code == ExitCode::VerifyFrameworkFailed && options.diagnose) {
        f.diagnosis = diagnose_env(env, machine, options);
    }
    f.explanation = explain_failure(*check, f.diagnosis ? &*f.diagnosis : nullptr, env.layout_os == probe::LayoutOs::Windows);
    f.check = std::move(*check);
    return report;
}

}  // namespace envfix::installer
