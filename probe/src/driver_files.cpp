#include "driver_files.hpp"

#include <chrono>
#include <filesystem>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/process.hpp"
#include "envfix/probe/driver_text.hpp"
#include "dynlib.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

stdfs::path system_path(std::string_view absolute) {
    return stdfs::path(env::get_or(EnvVar::EnvfixSysRoot, "") + std::string(absolute));
}

namespace {

void note_failure(Reporter& rep, VersionSource s, const std::string& reason) {
    rep.debug(msg("probe.debug.version_source_failed", {{"source", std::string(version_source_label(s))}, {"reason", reason}}));
}

template <class Parse>
VersionAnswer from_file(Reporter& rep, VersionSource s, std::string_view absolute, Parse parse) {
    auto text = fs::read_file(system_path(absolute));
    if (!text) {
        note_failure(rep, s, render(text.error().message));
        return {};
    }
    if (auto v = parse(*text)) return {v, s};
    note_failure(rep, s, "unrecognised content");
    return {};
}

VersionAnswer from_nvidia_smi(Reporter& rep) {
    std::vector<std::string> candidates;
    if (auto p = env::get(EnvVar::EnvfixNvidiaSmi)) candidates.push_back(*p);
    else candidates = default_nvidia_smi_paths();
    for (const auto& c : candidates) {
        if (!find_program(c)) continue;
        ProcessSpec spec;
        spec.argv = {c, "--query-gpu=driver_version", "--format=csv,noheader"};
        // A wedged driver can make nvidia-smi hang; the probe must still answer.
        spec.timeout = std::chrono::seconds(10);
        auto r = run_process(spec);
        if (!r) {
            note_failure(rep, VersionSource::NvidiaSmi, render(r.error().message));
            continue;
        }
        if (r->ok())
            if (auto v = parse_nvidia_smi_driver_version(r->out)) return {v, VersionSource::NvidiaSmi};
        std::string first = r->out.empty() ? r->err : r->out;
        note_failure(rep, VersionSource::NvidiaSmi,
                     "exit " + std::to_string(r->exit_code) + ": " + first.substr(0, first.find('\n')));
    }
    return {};
}
}  // namespace

VersionAnswer kernel_module_version(Reporter& rep) {
    if (auto a = from_file(rep, VersionSource::SysModule, "/sys/module/nvidia/version", parse_sys_module_version);
        a.version)
        return a;
    return from_file(rep, VersionSource::ProcDriver, "/proc/driver/nvidia/version", parse_proc_driver_version);
}

VersionAnswer driver_version_without_nvml(Reporter& rep) {
    if (auto a = kernel_module_version(rep); a.version) return a;
    return from_nvidia_smi(rep);
}

std::optional<int> gpus_in_proc() {
    std::error_code ec;
    stdfs::directory_iterator it(system_path("/proc/driver/nvidia/gpus"), ec);
    if (ec) return std::nullopt;
    int n = 0;
    for (; it != stdfs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_directory(ec)) ++n;
    }
    return n;
}

}  // namespace envfix::probe
