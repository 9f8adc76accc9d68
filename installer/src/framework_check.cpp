// The framework check: reading the script's JSON lines back, and running it (framework_check.hpp).
#include "envfix/installer/framework_check.hpp"

#include <nlohmann/json.hpp>

#include "envfix/common/process.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::installer {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kMark = "ENVFIX_CHECK ";

std::string str_of(const Json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return {};
    return it->is_string() ? it->get<std::string>() : it->dump();
}

std::optional<double> num_of(const Json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

int device_of(const Json& j) {
    auto it = j.find("device");
    return it != j.end() && it->is_number_integer() ? it->get<int>() : -1;
}

OpStatus status_of(std::string_view s) {
    if (s == "passed") return OpStatus::Passed;
    if (s == "wrong") return OpStatus::Wrong;
    if (s == "skipped") return OpStatus::Skipped;
    return OpStatus::Failed;
}

diagnosis::ReproOutcome classify(std::string_view text) {
    if (text.empty()) return diagnosis::ReproOutcome::Failed;
    return diagnosis::classify_reproduction(1, false, "", text).outcome;
}

// The last lines of stderr: a traceback's end, or the fatal error a crashing library printed.
std::string tail_of(std::string_view err) {
    auto lines = str::split(err, '\n');
    std::vector<std::string> kept;
    size_t bytes = 0;
    for (size_t i = lines.size(); i-- > 0 && kept.size() < 20;) {
        auto l = lines[i];
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (kept.empty() && str::trim(l).empty()) continue;
        bytes += l.size();
        if (bytes > 4000) break;
        kept.insert(kept.begin(), std::string(l));
    }
    return str::join(kept, "\n");
}

std::string signal_name(int sig) {
    switch (sig) {
        case 4: return "SIGILL";
        case 6: return "SIGABRT";
        case 7: return "SIGBUS";
        case 8: return "SIGFPE";
        case 9: return "SIGKILL";
        case 11: return "SIGSEGV";
        case 15: return "SIGTERM";
        default: return "signal " + std::to_string(sig);
    }
}

// How the interpreter ended, for an operation it did not finish: "killed by SIGSEGV", and the
// last stderr line (a fatal error a library printed).
std::string how_it_ended(const FrameworkCheck& c) {
    std::string how;
    if (c.timed_out) how = "stopped by the timeout";
    else if (c.signal) how = "killed by " + signal_name(c.signal);
    else how = "exited with code " + std::to_string(c.exit_code);
    auto lines = str::split(c.stderr_tail, '\n');
    for (size_t i = lines.size(); i-- > 0;)
        if (auto t = str::trim(lines[i]); !t.empty()) return how + ": " + std::string(t);
    return how;
}

}  // namespace

std::string_view op_status_name(OpStatus s) {
    switch (s) {
        case OpStatus::Passed: return "passed";
        case OpStatus::Failed: return "failed";
        case OpStatus::Wrong: return "wrong";
        case OpStatus::Crashed: return "crashed";
        case OpStatus::Skipped: return "skipped";
    }
    return "failed";
}

std::string OpCheck::label() const {
    if (op == "module") return "module " + module;
    if (op == "import") return "import " + module;
    return dtype.empty() ? op : op + " (" + dtype + ")";
}

bool FrameworkCheck::passed() const {
    if (!completed || timed_out) return false;
    for (const auto& op : ops)
        if (!op.ok()) return false;
    if (torch_imported) return cuda_available && !devices.empty();
    return torch_missing && !modules.empty();  // only the packages' own self-tests were asked for
}

const OpCheck* FrameworkCheck::first_failure() const {
    for (const auto& op : ops)
        if (!op.ok()) return &op;
    return nullptr;
}

const TorchDevice* FrameworkCheck::device(int index) const {
    for (const auto& d : devices)
        if (d.index == index) return &d;
    return nullptr;
}

std::string FrameworkCheck::error_line() const {
    if (passed()) return {};
    if (const auto* op = first_failure()) {
        if (op->status == OpStatus::Wrong) return "wrong results";
        auto first = str::split(op->error, '\n');
        return first.empty() ? std::string() : std::string(str::trim(first[0]));
    }
    if (!started || !completed) return how_it_ended(*this);
    if (!torch_imported) return torch_missing ? "No module named 'torch'" : import_error;
    if (!cuda_available) return unavailable_reason.empty() ? "torch.cuda.is_available() is False" : unavailable_reason;
    return "torch sees no GPU";
}

diagnosis::ReproOutcome FrameworkCheck::outcome() const {
    using diagnosis::ReproOutcome;
    if (passed()) return ReproOutcome::Ok;
    if (const auto* op = first_failure()) return op->error_class;
    if (timed_out) return ReproOutcome::TimedOut;
    if (!started || !completed) return classify(stderr_tail);
    if (!torch_imported) return torch_missing ? ReproOutcome::NoTorch : classify(import_error);
    if (!torch_cuda) return ReproOutcome::NotCompiled;
    if (!cuda_available) {
        auto c = classify(unavailable_reason);
        return c == ReproOutcome::Failed ? ReproOutcome::NoGpu : c;
    }
    return ReproOutcome::NoGpu;
}

FrameworkCheck parse_framework_check(int exit_code, int signal, bool timed_out, std::string_view out, std::string_view err) {
    FrameworkCheck c;
    c.exit_code = exit_code;
    c.signal = signal;
    c.timed_out = timed_out;
    c.stderr_tail = tail_of(err);
    std::optional<OpCheck> running;  // "op_begin" seen, its "op" not yet
    for (auto line : str::split(out, '\n')) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.starts_with(kMark)) continue;
        Json j = Json::parse(line.substr(kMark.size()), nullptr, false);
        if (j.is_discarded() || !j.is_object()) continue;  // cut off by a kill
        const std::string event = str_of(j, "event");
        if (event == "start") {
            c.started = true;
            c.python_version = str_of(j, "python");
            if (auto m = j.find("modules"); m != j.end() && m->is_array())
                for (const auto& s : *m)
                    if (s.is_string()) c.modules.push_back(s.get<std::string>());
        } else if (event == "import") {
            c.torch_missing = j.value("missing", false);
            c.import_error = str_of(j, "error");
        } else if (event == "torch") {
            c.torch_imported = true;
            c.torch_version = str_of(j, "version");
            if (auto it = j.find("cuda"); it != j.end() && !it->is_null()) c.torch_cuda = str_of(j, "cuda");
            if (auto it = j.find("cudnn"); it != j.end() && it->is_number_integer()) c.cudnn = it->get<long long>();
            c.cuda_available = j.value("available", false);
            c.unavailable_reason = str_of(j, "reason");
            c.device_count = j.value("device_count", 0);
            if (auto a = j.find("arch_list"); a != j.end() && a->is_array())
                for (const auto& s : *a)
                    if (s.is_string()) c.arch_list.push_back(s.get<std::string>());
        } else if (event == "companion") {
            c.companions.push_back({str_of(j, "name"), str_of(j, "version")});
            if (auto e = str_of(j, "error"); !e.empty()) {
                OpCheck op{.op = "import", .module = str_of(j, "name"), .status = OpStatus::Failed, .error = e};
                op.error_class = classify(e);
                c.ops.push_back(std::move(op));
            }
        } else if (event == "device") {
            TorchDevice d{.index = j.value("index", 0), .name = str_of(j, "name"), .capability = str_of(j, "capability")};
            if (auto m = num_of(j, "memory")) d.memory = static_cast<uint64_t>(*m);
            c.devices.push_back(std::move(d));
        } else if (event == "op_begin") {
            running = OpCheck{.op = str_of(j, "op"), .dtype = str_of(j, "dtype"), .device = device_of(j), .module = str_of(j, "module")};
        } else if (event == "op") {
            running.reset();
            OpCheck op{.op = str_of(j, "op"), .dtype = str_of(j, "dtype"), .device = device_of(j), .module = str_of(j, "module")};
            op.status = status_of(str_of(j, "status"));
            op.error = str_of(j, "error");
            op.at = str_of(j, "at");
            op.reason = str_of(j, "reason");
            op.detail = str_of(j, "detail");
            op.max_error = num_of(j, "max_error");
            op.tolerance = num_of(j, "tolerance").value_or(0);
            op.first_ms = num_of(j, "first_ms");
            op.ms = num_of(j, "ms");
            if (op.status == OpStatus::Failed) op.error_class = classify(op.error);
            if (op.status == OpStatus::Wrong) op.error_class = diagnosis::ReproOutcome::Failed;
            c.ops.push_back(std::move(op));
        } else if (event == "done") {
            c.completed = true;
        }
    }
    // A script that stopped mid-way: the operation it was running took the interpreter down.
    if (running && !c.completed) {
        running->status = OpStatus::Crashed;
        running->error = how_it_ended(c);
        running->error_class = timed_out ? diagnosis::ReproOutcome::TimedOut : classify(c.stderr_tail);
        c.ops.push_back(std::move(*running));
    }
    return c;
}

Expected<FrameworkCheck> run_framework_check(const std::filesystem::path& python, const FrameworkCheckOptions& options) {
    ProcessSpec spec;
    spec.argv = {python.string(), "-B", "-c", std::string(framework_check_script())};
    for (const auto& m : options.modules) spec.argv.insert(spec.argv.end(), {"--module", m});
    // Kernel errors are reported at the call that caused them (the seed's 5.4), and nothing of
    // the check lands in the environment (its bytecode would break a byte-for-byte rollback).
    spec.set_env = {{"CUDA_LAUNCH_BLOCKING", "1"}, {"PYTHONUNBUFFERED", "1"}, {"PYTHONDONTWRITEBYTECODE", "1"},
                    {"PYTHONIOENCODING", "utf-8"}};
    std::error_code ec;
    spec.cwd = std::filesystem::temp_directory_path(ec);  // a torch.py in the current folder must not shadow torch
    if (ec) spec.cwd.reset();
    spec.timeout = options.timeout;
    spec.max_output = 4u << 20;
    auto run = run_process(spec);
    if (!run)
        return fail(ExitCode::EnvBroken, "verify.framework.start_failed",
                    {{"python", python.string()}, {"reason", render(run.error().message)}});
    FrameworkCheck c = parse_framework_check(run->exited ? run->exit_code : -1, run->signal, run->timed_out, run->out, run->err);
    c.elapsed = run->elapsed;
    return c;
}

}  // namespace envfix::installer
