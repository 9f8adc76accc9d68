// envfix verify: proves the GPU stack runs (issue 7; docs/verify.md).
//   driver level    envfix's own PTX kernels through the Driver API, on every GPU (this file:
//                   run_driver_check)
//   framework level the framework's GPU ops in the target interpreter (added later at the place
//                   marked in register_verify; --driver-only skips it)
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "context.hpp"
#include "envfix/probe/gpu_probe.hpp"
#include "envfix/probe/kernel_check.hpp"
#include "output.hpp"
#include "probe_view.hpp"

namespace envfix::cli {

namespace {

struct VerifyOptions {
    bool driver_only = false;
};

// What a level of the check ended with: nothing, or the error the command exits with.
struct LevelOutcome {
    std::optional<Error> error;
};

std::string fixed(double v, int digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

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

void print_check_table(const probe::DriverCheck& check) {
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
    text.pop_back();
    print(text);
    for (const auto& c : check.gpus) {
        if (!c.failure) continue;
        print(t(c.failure->message));
        if (!c.jit_error_log.empty())
            print(t(msg("verify.jit_log", {{"index", std::to_string(c.gpu.index)}, {"log", c.jit_error_log}})));
    }
}

// The driver level: probe, then envfix's kernels on every GPU. Fills doc["driver"] and
// doc["driver_check"]; prints the driver line and the table in text mode.
LevelOutcome run_driver_check(Context& ctx, Json& doc) {
    probe::MachineProbe m = probe::inspect_machine({.reporter = ctx.reporter});
    doc["driver"] = driver_json(m.driver);
    doc["warnings"] = messages_json(m.warnings);
    if (!ctx.opts.json)
        if (auto line = driver_summary(m.driver); !line.empty()) print(line);
    for (const auto& w : m.warnings) ctx.reporter->warn(w);
    if (m.failure) {
        doc["driver_check"] = nullptr;
        return {m.failure};
    }
    auto check = probe::run_kernel_check(m, {.reporter = ctx.reporter});
    if (!check) {
        doc["driver_check"] = nullptr;
        return {std::move(check).error()};
    }
    Json devices = Json::array();
    int failed = 0;
    for (const auto& c : check->gpus) {
        devices.push_back(gpu_check_json(c));
        failed += c.passed() ? 0 : 1;
    }
    doc["driver_check"] = {{"passed", check->passed()},
                           {"ptx", {{"isa", "7.0"}, {"target", "sm_50"}}},
                           {"elements", check->elements},
                           {"devices", devices}};
    if (!ctx.opts.json) {
        print("");
        print_check_table(*check);
    }
    std::string count = std::to_string(check->gpus.size());
    if (failed)
        return {make_error(ExitCode::VerifyDriverFailed, "verify.driver_failed",
                           {{"failed", std::to_string(failed)}, {"count", count}})};
    if (!ctx.opts.json) print(t(msg("verify.driver_passed", {{"count", count}})));
    return {};
}

}  // namespace

void register_verify(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<VerifyOptions>();
    auto* cmd = app.add_subcommand("verify", "prove the GPU stack runs: a CUDA kernel through the driver, then the "
                                             "framework's own GPU operations");
    cmd->add_flag("--driver-only", o->driver_only, "run only envfix's own kernels through the CUDA driver");
    cmd->callback([&ctx, o] {
        Json doc;
        doc["schema_version"] = kJsonSchemaVersion;
        LevelOutcome driver = run_driver_check(ctx, doc);

        // Framework level (issue 7, second half) goes here: unless o->driver_only, run the
        // framework's GPU ops in the target interpreter, put the result under
        // doc["framework_check"] and let its error join driver.error.
        if (!o->driver_only) {
            doc["framework_check"] = {{"ran", false}, {"reason", t(msg("verify.framework_needs_target"))}};
            ctx.reporter->warn(msg("verify.framework_needs_target"));
        }

        if (ctx.opts.json) {
            doc["error"] = driver.error ? error_json(*driver.error) : Json(nullptr);
            print_json(doc);
            if (driver.error) {
                print_error_line(*driver.error);
                ctx.exit_code = driver.error->code;
            }
            return;
        }
        if (driver.error) throw Failure(*driver.error);
    });
}

}  // namespace envfix::cli
