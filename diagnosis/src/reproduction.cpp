#include "envfix/diagnosis/reproduction.hpp"

#include <array>

#include "envfix/common/process.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::diagnosis {

std::string_view reproduction_script() {
    // The seed article's section 3.3, with markers envfix reads back. Nothing is written to disk.
    static constexpr std::string_view k =
        "import sys\n"
        "try:\n"
        "    import torch\n"
        "except ImportError as e:\n"
        "    print('ENVFIX_REPRO no-torch', e, flush=True)\n"
        "    raise\n"
        "print('ENVFIX_REPRO torch', torch.__version__, flush=True)\n"
        "device = torch.device('cuda')\n"
        "a = torch.randn(1024, 1024, device=device)\n"
        "b = torch.randn(1024, 1024, device=device)\n"
        "c = a @ b\n"
        "print('ENVFIX_REPRO sum', float(c.sum()), flush=True)\n"
        "print('ENVFIX_REPRO device', torch.cuda.get_device_name(0), flush=True)\n"
        "print('ENVFIX_REPRO ok', flush=True)\n";
    return k;
}

std::string_view repro_outcome_name(ReproOutcome o) {
    switch (o) {
        case ReproOutcome::Ok: return "ok";
        case ReproOutcome::NoKernelImage: return "no-kernel-image";
        case ReproOutcome::DriverTooOld: return "driver-too-old";
        case ReproOutcome::NotCompiled: return "not-compiled-with-cuda";
        case ReproOutcome::NoTorch: return "no-torch";
        case ReproOutcome::NoGpu: return "no-gpu";
        case ReproOutcome::CudaError: return "cuda-error";
        case ReproOutcome::Failed: return "failed";
        case ReproOutcome::TimedOut: return "timed-out";
    }
    return "failed";
}

ExitCode repro_exit_code(ReproOutcome o) {
    switch (o) {
        case ReproOutcome::Ok: return ExitCode::Ok;
        case ReproOutcome::NoKernelImage: return ExitCode::GpuNotServed;
        case ReproOutcome::DriverTooOld: return ExitCode::DriverTooOld;
        case ReproOutcome::NotCompiled: return ExitCode::CpuOnlyBuild;
        case ReproOutcome::NoTorch: return ExitCode::NoFramework;
        case ReproOutcome::NoGpu: return ExitCode::NoDevice;
        default: return ExitCode::VerifyFrameworkFailed;
    }
}

ReproResult classify_reproduction(int exit_code, bool timed_out, std::string_view out, std::string_view err) {
    ReproResult r;
    r.exit_code = exit_code;
    bool ok = false;
    for (auto line : str::split(out, '\n')) {
        line = str::trim(line);
        if (!line.starts_with("ENVFIX_REPRO ")) continue;
        line.remove_prefix(13);
        if (line.starts_with("torch ")) r.torch = std::string(line.substr(6));
        if (line.starts_with("device ")) r.device = std::string(line.substr(7));
        if (line == "ok") ok = true;
    }
    // The error the run ended with: the last "...Error: ..." line of stderr, else its last line.
    std::string last, error;
    for (auto line : str::split(err, '\n')) {
        auto t = str::trim(line);
        if (t.empty()) continue;
        last = std::string(t);
        auto colon = t.find(": ");
        if (colon != std::string_view::npos && colon > 0 && t.substr(0, colon).find(' ') == std::string_view::npos &&
            (t.substr(0, colon).ends_with("Error") || t.substr(0, colon).ends_with("Exception")))
            error = std::string(t);
    }
    r.error_line = error.empty() ? last : error;
    if (timed_out) {
        r.outcome = ReproOutcome::TimedOut;
        return r;
    }
    if (exit_code == 0 && ok) {
        r.outcome = ReproOutcome::Ok;
        r.error_line.clear();
        return r;
    }
    std::string all = str::lower(std::string(out) + "\n" + std::string(err));
    struct Sign {
        std::string_view text;
        ReproOutcome outcome;
    };
    static constexpr std::array<Sign, 10> signs = {{
        {"no kernel image is available", ReproOutcome::NoKernelImage},
        {"cudaerrornokernelimagefordevice", ReproOutcome::NoKernelImage},
        {"nvidia driver on your system is too old", ReproOutcome::DriverTooOld},
        {"driver version is insufficient", ReproOutcome::DriverTooOld},
        {"torch not compiled with cuda enabled", ReproOutcome::NotCompiled},
        {"envfix_repro no-torch", ReproOutcome::NoTorch},
        {"no cuda-capable device is detected", ReproOutcome::NoGpu},
        {"found no nvidia driver on your system", ReproOutcome::NoGpu},
        {"no cuda gpus are available", ReproOutcome::NoGpu},
        {"cuda error", ReproOutcome::CudaError},
    }};
    r.outcome = ReproOutcome::Failed;
    for (const auto& s : signs)
        if (all.find(s.text) != std::string::npos) {
            r.outcome = s.outcome;
            break;
        }
    return r;
}

Expected<ReproResult> run_reproduction(const std::filesystem::path& python, std::chrono::milliseconds timeout) {
    ProcessSpec spec;
    spec.argv = {python.string(), "-c", std::string(reproduction_script())};
    spec.set_env = {{"CUDA_LAUNCH_BLOCKING", "1"}, {"PYTHONUNBUFFERED", "1"}};
    std::error_code ec;
    spec.cwd = std::filesystem::temp_directory_path(ec);  // a torch.py in the current folder must not shadow torch
    if (ec) spec.cwd.reset();
    spec.timeout = timeout;
    spec.max_output = 1u << 20;
    auto run = run_process(spec);
    if (!run)
        return fail(ExitCode::EnvBroken, "doctor.run_start_failed", {{"python", python.string()}, {"reason", render(run.error().message)}});
    ReproResult r = classify_reproduction(run->exited ? run->exit_code : -1, run->timed_out, run->out, run->err);
    r.elapsed = run->elapsed;
    return r;
}

Message relate(const ReproResult& r, const Diagnosis& d) {
    std::string error = r.error_line.empty() ? std::string(repro_outcome_name(r.outcome)) : r.error_line;
    if (r.outcome == ReproOutcome::Ok) {
        if (d.code == ExitCode::Ok) return msg("doctor.run.ok_confirms", {{"device", r.device.empty() ? "GPU" : r.device}});
        return msg("doctor.run.ok_despite", {{"device", r.device.empty() ? "GPU" : r.device}});
    }
    if (r.outcome == ReproOutcome::TimedOut) return msg("doctor.run.timed_out");
    if (repro_exit_code(r.outcome) == d.code) return msg("doctor.run.confirms", {{"error", error}});
    if (d.code == ExitCode::Ok) return msg("doctor.run.fails_despite", {{"error", error}});
    return msg("doctor.run.fails_otherwise", {{"error", error}});
}

ExitCode exit_code_with_run(const ReproResult& r, const Diagnosis& d) {
    if (d.code != ExitCode::Ok) return d.code;
    return r.outcome == ReproOutcome::Ok ? ExitCode::Ok : repro_exit_code(r.outcome);
}

}  // namespace envfix::diagnosis
