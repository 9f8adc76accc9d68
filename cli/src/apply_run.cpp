// envfix apply / lock: each environment planned (or its lock compared), an app's constraints
// checked before anything changes, the wheels installed in one transaction, verified when the
// spec asks and undone as `envfix install` undoes a change the framework fails
// (docs/provisioning.md). One environment failing does not stop the others.
#include <algorithm>
#include <filesystem>

#include "app_target.hpp"
#include "apply_command.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/installer/app_alignment.hpp"
#include "envfix/installer/apply_spec.hpp"
#include "envfix/installer/lock_file.hpp"
#include "envfix/installer/planned_install.hpp"
#include "envfix/installer/venv.hpp"
#include "envfix/network/downloader.hpp"
#include "envfix/standards/installed.hpp"
#include "output.hpp"
#include "plan_request.hpp"
#include "target_options.hpp"
#include "terminal_reporter.hpp"
#include "verify_view.hpp"

#ifndef ENVFIX_VERSION
#define ENVFIX_VERSION "0.0.0"
#endif

namespace envfix::cli {

namespace stdfs = std::filesystem;

namespace {

struct Change {
    std::string name, before, after;  // "" before: new; "" after: removed
};

enum class Status { Unchanged, Changed, WouldChange, Failed };
std::string_view status_name(Status s) {
    switch (s) {
        case Status::Unchanged: return "unchanged";
        case Status::Changed: return "changed";
        case Status::WouldChange: return "would-change";
        case Status::Failed: return "failed";
    }
    return "failed";
}

struct Outcome {
    std::string name, kind, path, interpreter;
    Status status = Status::Unchanged;
    bool created = false;          // the venv was made (or, with --check, would be)
    std::string source = "plan";   // plan | lock
    std::string torch, variant, channel;
    std::vector<Change> changes;
    std::string transaction;
    std::string snapshot;  // taken before the change: `envfix rollback` undoes it
    Json verify = nullptr;  // verification_json(); null: not asked for, or nothing changed
    std::string verified;  // verify_summary() when both levels passed
    std::vector<Message> findings;  // the app's, and the plan's warnings
    std::optional<Error> error;
};

std::string change_text(const Change& c) {
    if (c.before.empty()) return c.name + " " + c.after;
    if (c.after.empty()) return "-" + c.name + " " + c.before;
    return c.name + " " + c.before + " -> " + c.after;
}

std::string changes_text(const std::vector<Change>& changes) {
    std::string s;
    for (size_t i = 0; i < changes.size(); ++i) {
        if (i == 3) {
            s += ", ... (" + std::to_string(changes.size()) + " in all)";
            break;
        }
        s += (i ? ", " : "") + change_text(changes[i]);
    }
    return s;
}

// The framework packages first: what a reader looks for in a long list.
void sort_changes(std::vector<Change>& changes) {
    std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
        auto rank = [](const std::string& n) { return n == "torch" ? 0 : (n == "torchvision" || n == "torchaudio" || n == "xformers") ? 1 : 2; };
        return rank(a.name) < rank(b.name);
    });
}

TargetOptions target_of(const installer::ApplyEnvironment& e) {
    TargetOptions t;
    if (e.venv) t.env = e.venv->string();
    if (e.app) t.app = *e.app;
    if (e.path) t.path = e.path->string();
    if (e.python) t.python = *e.python;
    return t;
}

bool is_venv(const stdfs::path& dir) {
    std::error_code ec;
    return stdfs::is_regular_file(dir / "pyvenv.cfg", ec);
}

installer::WheelSources wheel_sources(const ApplySources& s) {
    installer::WheelSources w;
    w.folder = s.wheels;
    w.layout = s.wheels_layout;
    w.download_dir = s.download_dir;
    w.http = s.http;
    w.parallel = s.plan.parallel;
    return w;
}

class EnvironmentApplier {
public:
    EnvironmentApplier(Context& ctx, const ApplySources& sources, const matrix::Matrix& matrix, bool check)
        : ctx_(ctx), sources_(sources), matrix_(matrix), check_(check) {}

    Outcome apply(const installer::ApplyEnvironment& e) {
        Outcome o;
        o.name = e.name;
        o.kind = e.venv ? "venv" : (e.app || e.path) ? "app" : "python";
        o.path = e.venv ? e.venv->string() : e.path ? e.path->string() : "";
        o.source = e.lock ? "lock" : "plan";
        try {
            run(e, o);
        } catch (const Failure& f) {
            o.status = Status::Failed;
            o.error = f.error();
        }
        return o;
    }

private:
    void run(const installer::ApplyEnvironment& e, Outcome& o) {
        TargetOptions target = target_of(e);
        // Without base-python a missing venv is the target resolver's error, in its words.
        bool missing_venv = e.venv && e.base_python && !is_venv(*e.venv);
        if (missing_venv) {
            o.created = true;
            if (!check_) {
                value_or_throw(installer::create_venv({*e.venv, *e.base_python, ENVFIX_VERSION}, *ctx_.reporter));
                ctx_.reporter->info(msg("apply.env_created", {{"name", e.name}, {"path", e.venv->string()}}));
            } else {
                // Planned for the interpreter the venv will be made from, as an empty environment.
                target = {};
                target.python = e.base_python->string();
            }
        }
        std::vector<Change> changes;
        installer::PlannedInstallRequest req;
        req.sources = wheel_sources(sources_);
        if (e.lock) {
            auto lock = value_or_throw(installer::parse_lock(value_or_throw(fs::read_file(*e.lock)), e.lock->string()));
            o.torch = lock.torch;
            o.variant = lock.variant;
            o.channel = lock.channel;
            standards::InstalledSet installed;
            if (!(check_ && missing_venv)) {
                auto env = resolve_target(target, ctx_, TargetNeed::Files);
                o.interpreter = env.interpreter.string();
                installed = value_or_throw(standards::read_installed(env.site_packages));
            }
            auto lc = installer::lock_changes(lock, installed);
            for (const auto& c : lc.install) changes.push_back({c.wheel.name, c.before, c.wheel.version});
            for (const auto& r : lc.remove) {
                changes.push_back({r.name, r.version, ""});
                req.remove.push_back(r.name);
            }
            req.wheels = installer::locked_wheels(lc.install);
        } else {
            PlanCliOptions po;
            po.target = target;
            po.channel = e.policy.channel.value_or("auto");
            po.variant = e.policy.variant.value_or("");
            po.torch = e.policy.torch.value_or("");
            po.torch_from = e.policy.torch_from.value_or("pytorch");
            std::vector<Message> notes;
            auto preq = plan_request(ctx_, po, matrix_, sources_.plan, false, notes);
            if (check_ && missing_venv) preq.installed = {};
            auto plan = value_or_throw(plan::compute_plan(matrix_, preq, *ctx_.reporter));
            if (plan.failure) throw Failure(plan.failure->code, "apply.plan_failed", {{"reason", t(plan.failure->message)}});
            o.torch = plan.torch;
            o.variant = plan.variant;
            o.channel = plan.channel;
            o.findings = notes;
            o.findings.insert(o.findings.end(), plan.warnings.begin(), plan.warnings.end());
            if (e.app || e.path) check_app(e, target, plan, o);
            for (const auto& w : plan.install) changes.push_back({w.name, w.replaces ? w.replaces->version : "", w.version});
            for (const auto& r : plan.remove) changes.push_back({r.name, r.version, ""});
            req.wheels = installer::planned_wheels(plan);
            req.remove = installer::planned_removals(plan);
        }
        sort_changes(changes);
        o.changes = changes;
        bool anything = !changes.empty() || o.created;
        if (check_) {
            o.status = anything ? Status::WouldChange : Status::Unchanged;
            return;
        }
        if (changes.empty()) {
            o.status = o.created ? Status::Changed : Status::Unchanged;
            return;
        }
        auto env = resolve_target(target, ctx_, TargetNeed::Interpreter);
        o.interpreter = env.interpreter.string();
        req.snapshot_reason = "apply " + e.name;
        o.status = Status::Changed;
        if (e.policy.verify.value_or(false)) {
            verified_change(env, target, req, o);
            return;
        }
        auto result = value_or_throw(installer::install_planned_wheels(env, req, *ctx_.reporter));
        o.transaction = result.transaction;
        o.snapshot = result.snapshot;
    }

    // The change verified as `envfix install` verifies it: undone when the framework fails after
    // it and did not before; kept, and said, when it already failed; a driver-level failure is the
    // driver's, not the change's: kept, and the environment fails.
    void verified_change(const probe::Environment& env, const TargetOptions& target, const installer::PlannedInstallRequest& req,
                         Outcome& o) {
        installer::VerifiedInstallOptions vo;
        vo.checks.reporter = ctx_.reporter;
        vo.checks.target_args = target_args(target, env);
        auto v = value_or_throw(installer::install_planned_verified(env, req, vo, *ctx_.reporter));
        o.verify = verification_json(v, env);
        o.verify["rolled_back"] = v.rolled_back;
        if (!v.skipped.empty()) o.findings.push_back(v.skipped);
        if (v.rolled_back) {
            std::string why = v.verify && v.verify->framework.error ? render(v.verify->framework.error->message) : std::string();
            o.status = Status::Failed;
            o.error = make_error(ExitCode::RolledBack, "verify.install.rolled_back", {{"env", env.root.string()}, {"error", why}});
            return;
        }
        o.transaction = v.install.transaction;
        o.snapshot = v.install.snapshot;
        if (!v.verify) return;
        if (v.verify->passed()) {
            o.verified = verify_summary(*v.verify);
            return;
        }
        if (v.failed_before)
            o.findings.push_back(
                msg("verify.install.failed_before", {{"error", render(v.failed_before->message)}, {"target", target_words(target, env)}}));
        if (v.verify->driver.error) {
            o.status = Status::Failed;
            o.error =
                make_error(ExitCode::VerifyDriverFailed, "apply.verify_failed", {{"reason", render(v.verify->driver.error->message)}});
        }
    }

    // The app's constraints against the plan: a conflict stops this environment before anything
    // changes; the rest is reported with the plan's warnings.
    void check_app(const installer::ApplyEnvironment& e, const TargetOptions& target, const plan::Plan& plan, Outcome& o) {
        auto app = resolve_app(target, ctx_, TargetNeed::Files);
        if (!app.target.profile) return;
        auto checked = apps::check_app_target(app.target, installer::plan_packages(plan), &matrix_);
        auto a = installer::align_app(plan, std::move(checked));
        for (const auto& f : a.constraints.findings)
            if (f.kind != apps::AppFindingKind::Conflict) o.findings.push_back(f.message);
        if (!a.blocked()) return;
        for (const auto& r : a.reasons()) o.findings.push_back(r);
        std::string app_name(app.target.profile->display());
        throw Failure(ExitCode::RequirementsUnmet, "apply.app_blocked", {{"name", e.name}, {"app", app_name}});
    }

    Context& ctx_;
    const ApplySources& sources_;
    const matrix::Matrix& matrix_;
    bool check_;
};

Json outcome_json(const Outcome& o) {
    Json changes = Json::array();
    for (const auto& c : o.changes)
        changes.push_back({{"name", c.name}, {"before", c.before.empty() ? Json(nullptr) : Json(c.before)},
                           {"after", c.after.empty() ? Json(nullptr) : Json(c.after)}});
    Json findings = Json::array();
    for (const auto& f : o.findings) findings.push_back({{"key", f.key}, {"message", t(f)}});
    return {{"name", o.name},
            {"kind", o.kind},
            {"path", o.path.empty() ? Json(nullptr) : Json(o.path)},
            {"interpreter", o.interpreter.empty() ? Json(nullptr) : Json(o.interpreter)},
            {"status", std::string(status_name(o.status))},
            {"changed",
             o.status == Status::Changed || o.status == Status::WouldChange || (o.status == Status::Failed && !o.transaction.empty())},
            {"created", o.created},
            {"source", o.source},
            {"torch", o.torch.empty() ? Json(nullptr) : Json(o.torch)},
            {"variant", o.variant.empty() ? Json(nullptr) : Json(o.variant)},
            {"channel", o.channel.empty() ? Json(nullptr) : Json(o.channel)},
            {"changes", changes},
            {"transaction", o.transaction.empty() ? Json(nullptr) : Json(o.transaction)},
            {"snapshot", o.snapshot.empty() ? Json(nullptr) : Json(o.snapshot)},
            {"verify", o.verify},
            {"findings", findings},
            {"error", o.error ? error_json(*o.error) : Json(nullptr)}};
}

void print_outcome(const Outcome& o) {
    std::string changes = changes_text(o.changes);
    switch (o.status) {
        case Status::Unchanged: print(msg("apply.env_unchanged", {{"name", o.name}, {"torch", o.torch}})); break;
        case Status::Changed:
            print(msg("apply.env_changed", {{"name", o.name}, {"changes", changes.empty() ? o.path : changes}}));
            if (!o.verified.empty()) print(msg("apply.verify_passed", {{"name", o.name}, {"summary", o.verified}}));
            break;
        case Status::WouldChange:
            print(msg("apply.env_would_change", {{"name", o.name}, {"changes", changes.empty() ? o.path : changes}}));
            break;
        case Status::Failed: print(msg("apply.env_failed", {{"name", o.name}, {"reason", t(o.error->message)}})); break;
    }
    for (const auto& f : o.findings) print("  - " + t(f));
}

}  // namespace

void run_apply(Context& ctx, const installer::ApplySpec& spec, const ApplySources& sources, bool check) {
    PlanCliOptions none;
    auto matrix = load_plan_matrix(none);
    // A policy no known release satisfies is the spec's error, before any environment is touched.
    value_or_throw(installer::check_apply_policies(spec, matrix));
    EnvironmentApplier applier(ctx, sources, matrix, check);
    std::vector<Outcome> outcomes;
    size_t changed = 0, unchanged = 0, failed = 0;
    bool interrupted = false;
    for (const auto& e : spec.environments) {
        // Ctrl-C stops the run, not just the environment it caught: the rest are left untouched.
        if (interrupt_requested()) {
            interrupted = true;
            break;
        }
        outcomes.push_back(applier.apply(e));
        const Outcome& o = outcomes.back();
        if (o.status == Status::Failed) ++failed;
        else if (o.status == Status::Unchanged) ++unchanged;
        else ++changed;
        if (!ctx.opts.json) print_outcome(o);
        if (o.error && o.error->code == ExitCode::Interrupted) {
            interrupted = true;
            break;
        }
    }
    ctx.exit_code = interrupted ? ExitCode::Interrupted
                    : failed    ? ExitCode::ApplyFailed
                    : changed   ? ExitCode::ApplyChanged
                                : ExitCode::Ok;
    if (ctx.opts.json) {
        Json envs = Json::array();
        for (const auto& o : outcomes) envs.push_back(outcome_json(o));
        Json warnings = warnings_json(ctx);
        print_json({{"schema_version", kJsonSchemaVersion},
                    {"spec", spec.file.string()},
                    {"check", check},
                    {"changed", changed > 0},
                    {"summary", {{"changed", changed}, {"unchanged", unchanged}, {"failed", failed}}},
                    {"environments", envs},
                    {"warnings", warnings},
                    {"exit_code", static_cast<int>(ctx.exit_code)},
                    {"error", nullptr}});
    } else {
        print(msg(check ? "apply.summary_check" : "apply.summary",
                  {{"changed", std::to_string(changed)}, {"unchanged", std::to_string(unchanged)}, {"failed", std::to_string(failed)}}));
    }
}

void run_lock(Context& ctx, PlanCliOptions o, const ApplySources& sources, const stdfs::path& out) {
    auto matrix = load_plan_matrix(o);
    std::vector<Message> notes;
    auto req = plan_request(ctx, std::move(o), matrix, sources.plan, false, notes);
    // The whole set, as for a fresh environment: every machine installs exactly these bytes.
    req.installed = {};
    auto plan = value_or_throw(plan::compute_plan(matrix, req, *ctx.reporter));
    if (plan.failure) throw Failure(Error{plan.failure->code, plan.failure->message});
    // Hashless pages (nightly): the wheel is downloaded once and its digest recorded.
    std::vector<network::DownloadItem> items;
    std::vector<size_t> index;
    for (size_t i = 0; i < plan.install.size(); ++i) {
        const auto& w = plan.install[i];
        if (!w.sha256.empty()) continue;
        items.push_back({w.url, "", w.size, sources.download_dir / "unhashed" / w.filename, w.name + " " + w.version});
        index.push_back(i);
    }
    if (!items.empty()) {
        std::error_code ec;
        stdfs::create_directories(sources.download_dir / "unhashed", ec);
        auto results = network::download_files(items, sources.http, *ctx.reporter, {.parallel = sources.plan.parallel});
        for (size_t k = 0; k < results.size(); ++k) {
            if (!results[k].ok()) throw Failure(*results[k].error);
            plan.install[index[k]].sha256 = results[k].sha256;
            plan.install[index[k]].size = results[k].size;
        }
    }
    auto lock = value_or_throw(installer::lock_from_plan(plan));
    value_or_throw(fs::write_file_atomic(out, installer::serialize_lock(lock)));
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion}, {"file", out.string()}, {"torch", lock.torch}, {"variant", lock.variant},
                    {"channel", lock.channel}, {"wheels", lock.wheels.size()}, {"error", nullptr}});
    } else {
        print(msg("apply.lock_written", {{"file", out.string()}, {"count", std::to_string(lock.wheels.size())}, {"torch", lock.torch},
                                         {"variant", lock.variant}}));
    }
}

}  // namespace envfix::cli
