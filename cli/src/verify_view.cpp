// How a verification is shown: tables, JSON, the failure beside doctor's diagnosis (verify_view.hpp).
#include "verify_view.hpp"

#include <algorithm>
#include <cstdio>

#include "envfix/common/strings.hpp"

namespace envfix::cli {

namespace {

std::string fixed(double v, int digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string ms_text(const std::optional<double>& ms) { return ms ? fixed(*ms, *ms < 10 ? 2 : 1) + " ms" : "-"; }

Json opt_num(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
Json opt_str(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json gpu_check_json(const probe::GpuCheck& c) {
    Json kernels = Json::array();
    for (const auto& k : c.kernels) {
        Json mismatch = nullptr;
        if (k.first_mismatch)
            mismatch = {{"index", k.first_mismatch->index}, {"expected", k.first_mismatch->expected},
                        {"got", k.first_mismatch->got}};
        kernels.push_back({{"name", k.kernel},
                           {"bytes", k.bytes},
                           {"time_ms", k.time_ms},
                           {"bandwidth_gbs", k.bandwidth_gbs},
                           {"passed", k.passed},
                           {"mismatches", k.mismatches},
                           {"first_mismatch", mismatch}});
    }
    return Json{{"index", c.gpu.index},
                {"name", c.gpu.name},
                {"sm", c.gpu.cc.sm_tag()},
                {"passed", c.passed()},
                {"jit_ms", c.jit_ms},
                {"jit_info_log", c.jit_info_log},
                {"jit_error_log", c.jit_error_log},
                {"kernels", kernels},
                {"failed_call", c.failed_call.empty() ? Json(nullptr) : Json(c.failed_call)},
                {"cu_result", c.failed_call.empty() ? Json(nullptr) : Json(c.cu_result)},
                {"error", c.failure ? error_json(*c.failure) : Json(nullptr)}};
}

std::string driver_table(const probe::DriverCheck& check) {
    Table table({t(msg("probe.col.gpu")), t(msg("probe.col.name")), t(msg("verify.col.jit")), t(msg("verify.col.kernel")),
                 t(msg("verify.col.time")), t(msg("verify.col.bandwidth")), t(msg("verify.col.result"))});
    for (const auto& c : check.gpus) {
        std::string result = t(msg(c.passed() ? "verify.result.passed" : "verify.result.failed"));
        std::string jit = fixed(c.jit_ms, 1) + " ms";
        if (c.kernels.empty()) table.add({std::to_string(c.gpu.index), c.gpu.name, jit, "-", "-", "-", result});
        for (size_t i = 0; i < c.kernels.size(); ++i) {
            const auto& k = c.kernels[i];
            bool first = i == 0;
            table.add({first ? std::to_string(c.gpu.index) : "", first ? c.gpu.name : "", first ? jit : "", k.kernel,
                       fixed(k.time_ms, 3) + " ms", fixed(k.bandwidth_gbs, 1) + " GB/s",
                       t(msg(k.passed ? "verify.result.passed" : "verify.result.failed"))});
        }
    }
    std::string text = table.str();
    for (const auto& c : check.gpus) {
        if (!c.failure) continue;
        text += t(c.failure->message) + "\n";
        if (!c.jit_error_log.empty())
            text += t(msg("verify.jit_log", {{"index", std::to_string(c.gpu.index)}, {"log", c.jit_error_log}})) + "\n";
    }
    return text;
}

std::string status_word(installer::OpStatus s) {
    switch (s) {
        case installer::OpStatus::Passed: return t(msg("verify.result.passed"));
        case installer::OpStatus::Failed: return t(msg("verify.result.failed"));
        case installer::OpStatus::Wrong: return t(msg("verify.result.wrong"));
        case installer::OpStatus::Crashed: return t(msg("verify.result.crashed"));
        case installer::OpStatus::Skipped: return t(msg("verify.result.skipped"));
    }
    return {};
}

std::string framework_table(const installer::FrameworkCheck& c) {
    Table table({t(msg("probe.col.gpu")), t(msg("verify.col.op")), t(msg("verify.col.first")), t(msg("verify.col.time")),
                 t(msg("verify.col.difference")), t(msg("verify.col.result"))});
    int last = -2;
    for (const auto& op : c.ops) {
        std::string gpu = op.device == last ? "" : op.device < 0 ? "-" : installer::torch_gpu_label(c, op.device);
        last = op.device;
        char diff[32] = "-";
        if (op.max_error) std::snprintf(diff, sizeof diff, "%.2g", *op.max_error);
        table.add({gpu, op.label(), ms_text(op.first_ms), ms_text(op.ms), diff, status_word(op.status)});
    }
    return table.empty() ? std::string() : table.str();
}

std::string framework_header(const installer::FrameworkCheck& c, const probe::Environment* env) {
    std::string python = env ? env->interpreter.string() : "python";
    if (!c.torch_imported) return t(msg("verify.framework.header_no_torch", {{"python", python}}));
    return t(msg("verify.framework.header", {{"python", python}, {"torch", c.torch_version},
                                             {"cuda", c.torch_cuda.value_or("-")}}));
}

size_t op_count(const installer::FrameworkCheck& c) {
    size_t n = 0;
    for (const auto& op : c.ops) n += op.status == installer::OpStatus::Passed ? 1 : 0;
    return n;
}

std::string framework_passed_line(const installer::FrameworkCheck& c) {
    if (!c.torch_imported) return t(msg("verify.framework.modules_passed", {{"modules", str::join(c.modules, ", ")}}));
    return t(msg("verify.framework.passed", {{"torch", c.torch_version}, {"ops", std::to_string(op_count(c))},
                                             {"count", std::to_string(c.devices.size())}}));
}

}  // namespace

Json driver_check_json(const installer::DriverLevel& d) {
    if (!d.check) return nullptr;
    Json devices = Json::array();
    size_t passed = 0;
    for (const auto& c : d.check->gpus) {
        devices.push_back(gpu_check_json(c));
        passed += c.passed();
    }
    return {{"passed", d.check->passed()},
            {"gpus_checked", d.check->gpus.size()},
            {"gpus_passed", passed},
            {"ptx", {{"isa", "7.0"}, {"target", "sm_50"}}},
            {"elements_per_array", d.check->elements},
            {"devices", devices}};
}

Json framework_check_json(const installer::FrameworkLevel& f, const probe::Environment& env) {
    Json j = {{"ran", f.ran}, {"python", env.interpreter.string()}};
    if (!f.check) {
        j["passed"] = false;
        j["error"] = f.error ? error_json(*f.error) : Json(nullptr);
        return j;
    }
    const auto& c = *f.check;
    j["python_version"] = opt_str(c.python_version);
    j["passed"] = !f.error;
    j["outcome"] = std::string(diagnosis::repro_outcome_name(c.outcome()));
    Json torch = nullptr;
    if (c.torch_imported) {
        torch = {{"version", c.torch_version},
                 {"cuda", c.torch_cuda ? Json(*c.torch_cuda) : Json(nullptr)},
                 {"cudnn", c.cudnn ? Json(*c.cudnn) : Json(nullptr)},
                 {"cuda_available", c.cuda_available},
                 {"unavailable_reason", opt_str(c.unavailable_reason)},
                 {"device_count", c.device_count},
                 {"arch_list", c.arch_list}};
    }
    j["torch"] = torch;
    j["import_error"] = c.torch_imported || c.torch_missing ? Json(nullptr) : opt_str(c.import_error);
    Json devices = Json::array();
    for (const auto& d : c.devices) {
        auto cc = probe::ComputeCapability::parse(d.capability);
        devices.push_back({{"index", d.index}, {"name", d.name}, {"capability", d.capability},
                           {"sm", cc ? Json(cc->sm_tag()) : Json(nullptr)},
                           {"memory", d.memory ? Json(*d.memory) : Json(nullptr)}});
    }
    j["devices"] = devices;
    Json companions = Json::array();
    for (const auto& m : c.companions) companions.push_back({{"name", m.name}, {"version", opt_str(m.version)}});
    j["companions"] = companions;
    j["modules"] = c.modules;
    Json ops = Json::array();
    for (const auto& op : c.ops)
        ops.push_back({{"op", op.op},
                       {"dtype", opt_str(op.dtype)},
                       {"device", op.device < 0 ? Json(nullptr) : Json(op.device)},
                       {"module", opt_str(op.module)},
                       {"status", std::string(installer::op_status_name(op.status))},
                       {"error", opt_str(op.error)},
                       {"error_class", op.ok() ? Json(nullptr) : Json(std::string(diagnosis::repro_outcome_name(op.error_class)))},
                       {"raised_at", opt_str(op.at)},
                       {"skipped_because", opt_str(op.reason)},
                       {"self_test_returned", opt_str(op.detail)},
                       {"max_error", opt_num(op.max_error)},
                       {"tolerance", op.tolerance},
                       {"first_ms", opt_num(op.first_ms)},
                       {"ms", opt_num(op.ms)}});
    j["ops"] = ops;
    j["ops_passed"] = op_count(c);
    j["ops_failed"] = std::count_if(c.ops.begin(), c.ops.end(), [](const auto& op) { return !op.ok(); });
    j["completed"] = c.completed;
    j["process"] = {{"exit_code", c.exit_code}, {"signal", c.signal ? Json(c.signal) : Json(nullptr)},
                    {"timed_out", c.timed_out}, {"seconds", c.elapsed.count() / 1000.0},
                    {"stderr_tail", opt_str(c.stderr_tail)}};
    j["diagnosis"] = f.diagnosis ? Json{{"exit_code", static_cast<int>(f.diagnosis->code)},
                                        {"name", std::string(exit_code_name(f.diagnosis->code))},
                                        {"verdict", t(f.diagnosis->verdict)},
                                        {"fix", f.diagnosis->fix ? Json(f.diagnosis->fix->argv) : Json(nullptr)}}
                                 : Json(nullptr);
    Json explanation = Json::array();
    for (const auto& m : f.explanation) explanation.push_back(t(m));
    j["explanation"] = explanation;
    j["error"] = f.error ? error_json(*f.error) : Json(nullptr);
    return j;
}

std::string verify_summary(const installer::VerifyReport& r) {
    std::vector<std::string> parts;
    if (r.driver.check && !r.driver.error)
        parts.push_back(t(msg("verify.driver_passed", {{"count", std::to_string(r.driver.check->gpus.size())}})));
    if (r.framework.check && !r.framework.error) parts.push_back(framework_passed_line(*r.framework.check));
    return str::join(parts, "; ");
}

std::string verify_text(const installer::VerifyReport& r, const probe::Environment* env, bool tables) {
    std::string out;
    auto line = [&out](const std::string& s) { out += s + "\n"; };
    if (r.driver.check) {
        if (tables) out += driver_table(*r.driver.check);
        if (!r.driver.error) line(t(msg("verify.driver_passed", {{"count", std::to_string(r.driver.check->gpus.size())}})));
    }
    if (r.driver.error) line(t(r.driver.error->message));
    const auto& f = r.framework;
    if (f.check) {
        if (tables) {
            if (!out.empty()) line("");
            line(framework_header(*f.check, env));
            if (!f.check->arch_list.empty()) line("  torch.cuda.get_arch_list(): " + str::join(f.check->arch_list, " "));
            out += framework_table(*f.check);
        }
        if (!f.error) line(framework_passed_line(*f.check));
    }
    if (f.error) {
        line(t(f.error->message));
        for (const auto& m : f.explanation) line("  " + t(m));
        if (f.check && !f.check->stderr_tail.empty() && (f.check->signal || !f.check->completed))
            line(f.check->stderr_tail);
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

Json verification_json(const installer::VerifiedInstall& v, const probe::Environment& env) {
    if (!v.verify)
        return {{"ran", false},
                {"skipped", v.skipped.empty() ? Json(nullptr) : Json(t(v.skipped))},
                {"skipped_key", v.skipped.empty() ? Json(nullptr) : Json(v.skipped.key)}};
    const auto& rep = *v.verify;
    auto error = rep.error();
    return {{"ran", true},
            {"passed", rep.passed()},
            {"driver_check", driver_check_json(rep.driver)},
            {"driver_error", rep.driver.error ? error_json(*rep.driver.error) : Json(nullptr)},
            {"framework_check", framework_check_json(rep.framework, env)},
            {"failed_before", v.failed_before ? error_json(*v.failed_before) : Json(nullptr)},
            {"error", error ? error_json(*error) : Json(nullptr)}};
}

}  // namespace envfix::cli
