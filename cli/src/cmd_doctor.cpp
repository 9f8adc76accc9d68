// envfix doctor: what stops the framework from running on this machine's GPUs, in plain words,
// and the fix (issue 3; docs/doctor.md). Reads the environment's files only (torch is never
// imported) unless --run asks for the seed's reproduction.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <future>

#include "context.hpp"
#include "doctor_view.hpp"
#include "envfix/diagnosis/framework_stack.hpp"
#include "envfix/diagnosis/reproduction.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "probe_view.hpp"
#include "target_options.hpp"

namespace envfix::cli {

namespace {

struct DoctorOptions {
    TargetOptions target;
    bool run = false;
    int run_timeout = 300;
    std::string profiles;
};

// The platform the environment's wheels are for: a Windows layout read on Linux is Windows.
matrix::Platform environment_platform(const probe::Environment& env) {
    matrix::Platform p = matrix::host_platform().value_or(matrix::Platform{});
    if (env.layout_os == probe::LayoutOs::Windows) p.os = matrix::OsKind::Windows;
    if (auto cpu = matrix::parse_cpu(env.facts.platform_machine)) p.cpu = *cpu;
    return p;
}

std::optional<std::string> python_of(const probe::PythonFacts& f) {
    if (f.major <= 0) return std::nullopt;
    return std::to_string(f.major) + "." + std::to_string(f.minor) + (f.free_threaded ? "t" : "");
}

void run_doctor(const DoctorOptions& o, Context& ctx) {
    // The probe (a driver call that can take a while on a real GPU) runs while the files are read.
    long long probe_ms = 0;  // on its own thread
    auto probing = std::async(std::launch::async, [&ctx, &probe_ms] {
        const auto t0 = std::chrono::steady_clock::now();
        auto m = probe::inspect_machine({.reporter = ctx.reporter, .use_cache = true});
        probe_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
        return m;
    });
    probe::Environment env;
    try {
        env = resolve_target(o.target, ctx, TargetNeed::Files);
    } catch (const Failure& f) {
        // Nothing to inspect (a fresh machine without Python): the machine's half still helps.
        if (!ctx.opts.json && f.error().message.key == "env.no_python") print(doctor_machine_text(probing.get()));
        throw;
    }
    const auto env_at = ctx.ms_since_start();
    std::optional<std::filesystem::path> profiles;
    if (!o.profiles.empty()) profiles = o.profiles;
    matrix::Matrix matrix = value_or_throw(matrix::load_profiles(profiles));
    const auto profiles_at = ctx.ms_since_start();

    std::vector<Message> notes;
    auto stack = value_or_throw(diagnosis::read_environment_stack_cached(env.site_packages, notes));
    for (const auto& n : notes) ctx.reporter->debug(n);
    ctx.reporter->debug(msg("doctor.debug.dependents", {{"cached", std::to_string(stack.dependents.folders_cached)},
                                                        {"read", std::to_string(stack.dependents.folders_read)},
                                                        {"dists", std::to_string(stack.dependents.dists_read)}}));
    // What a warm run still reads: a library not from the cache, or unreadable (never cached), is
    // read again every time.
    const auto cached = std::count_if(stack.libraries.begin(), stack.libraries.end(), [](const auto& l) { return l.from_cache; });
    ctx.reporter->debug(msg("doctor.debug.libraries",
                            {{"cached", std::to_string(cached)},
                             {"read", std::to_string(stack.libraries.size() - static_cast<size_t>(cached))},
                             {"unreadable", std::to_string(stack.unreadable.size())},
                             {"first", stack.unreadable.empty() ? "" : ": " + render(stack.unreadable.front().error.message)}}));
    const auto libraries_at = ctx.ms_since_start();
    probe::MachineProbe machine = probing.get();
    const auto gpus_at = ctx.ms_since_start();

    diagnosis::DiagnosisInput in;
    in.matrix = &matrix;
    in.machine = &machine;
    in.stack = &stack;
    in.platform = environment_platform(env);
    in.python = python_of(env.facts);
    in.markers = standards::marker_environment(env.facts);
    in.target_args = target_args(o.target, env);
    in.environment = env.root.string();
    diagnosis::Diagnosis diagnosis = diagnosis::diagnose(in);
    // Where a warm run's time goes, step by step (docs/doctor.md, "Performance").
    ctx.reporter->debug(msg("doctor.debug.steps", {{"env", std::to_string(env_at)},
                                                   {"profiles", std::to_string(profiles_at)},
                                                   {"libraries", std::to_string(libraries_at)},
                                                   {"gpus", std::to_string(gpus_at)},
                                                   {"probe", std::to_string(probe_ms)},
                                                   {"diagnosed", std::to_string(ctx.ms_since_start())}}));

    DoctorView view;
    view.env = &env;
    view.machine = &machine;
    view.stack = &stack;
    view.diagnosis = &diagnosis;
    view.windows_command = env.layout_os == probe::LayoutOs::Windows;
    view.code = diagnosis.code;
    view.run_requested = o.run;
    if (o.run) {
        if (!env.runnable()) {
            view.run_error = make_error(ExitCode::EnvBroken, "doctor.run.not_runnable", {{"python", env.interpreter.string()}});
        } else if (auto r = diagnosis::run_reproduction(env.interpreter, std::chrono::seconds(o.run_timeout))) {
            view.run = *r;
            view.code = diagnosis::exit_code_with_run(*r, diagnosis);
        } else {
            view.run_error = r.error();
        }
    }
    for (const auto& w : machine.warnings) ctx.reporter->warn(w);
    if (ctx.opts.json) print_json(doctor_json(view));
    else print(doctor_text(view));
    ctx.exit_code = view.code;
}

}  // namespace

void register_doctor(CLI::App& app, Context& ctx) {
    auto opts = std::make_shared<DoctorOptions>();
    auto* cmd = app.add_subcommand("doctor", help_text("help.doctor"));
    add_target_options(*cmd, opts->target);
    cmd->add_flag("--run", opts->run, help_text("help.doctor.run"));
    cmd->add_option("--run-timeout", opts->run_timeout, help_text("help.doctor.run_timeout"))->check(CLI::PositiveNumber);
    cmd->add_option("--profiles", opts->profiles, help_text("help.common.profiles"));
    cmd->callback([opts, &ctx] { run_doctor(*opts, ctx); });
}

}  // namespace envfix::cli
