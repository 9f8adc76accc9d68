// `envfix install` from the index: the plan, the wheels from the cache or downloaded into it,
// then one transaction (old framework and companions out, new ones in) after a snapshot.
#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <set>

#include "app_target.hpp"
#include "env_json.hpp"
#include "envfix/apps/app_target.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/app_alignment.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/installer/wheel_cache.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/network/url.hpp"
#include "index_options.hpp"
#include "index_preparation.hpp"
#include "install_index.hpp"
#include "install_run.hpp"
#include "probe_view.hpp"
#include "ready_trees.hpp"

namespace envfix::cli {

namespace {

// The plan's URLs carry no credentials: those written in an index URL go back onto the
// wheels of that host (netrc entries the HTTP client adds by itself).
std::string with_index_credentials(const std::string& url, const plan::PlanSources& sources) {
    if (network::url_credentials(url)) return url;
    auto host = network::split_url(url);
    std::vector<std::string> roots = sources.indexes;
    roots.insert(roots.end(), sources.pytorch_roots.begin(), sources.pytorch_roots.end());
    for (const auto& root : roots) {
        auto parts = network::split_url(root);
        if (parts.userinfo.empty() || parts.host != host.host || parts.port != host.port || parts.scheme != host.scheme) continue;
        host.userinfo = parts.userinfo;
        return network::join_url(host);
    }
    return url;
}

// --app: the app's own constraints (its torch range, companions pinned to torch, requirement
// files) against the plan, before anything changes; a conflict stops the install (issue 8).
void check_app_before_install(Context& ctx, const InstallOptions& o, const TargetOptions& target, const probe::Environment& env,
                              const plan::Plan& plan) {
    auto app = resolve_app(target, ctx, TargetNeed::Files);
    if (!app.target.profile) return;
    auto matrix = value_or_throw(matrix::load_embedded_profiles());
    auto aligned = installer::align_app(plan, apps::check_app_target(app.target, installer::plan_packages(plan), &matrix));
    for (const auto& f : aligned.constraints.findings)
        if (f.kind != apps::AppFindingKind::Conflict) ctx.reporter->warn(f.message);
    if (!aligned.blocked()) return;
    for (const auto& r : aligned.reasons()) ctx.reporter->warn(r);
    const std::string display(app.target.profile->display());
    if (o.ignore_app_constraints) {
        ctx.reporter->warn(msg("install.app_constraints_ignored", {{"app", display}}));
        return;
    }
    throw Failure(ExitCode::RequirementsUnmet, "install.app_blocked",
                  {{"app", display}, {"path", app.target.folder.string()}, {"target", target_words(target, env)}});
}

// At a terminal, the question before anything changes: what comes in, what it replaces, what
// goes. A no changes nothing (exit 4, declined).
void ask_before_changing(Context& ctx, const IndexInstallChoice& choice, const probe::Environment& env) {
    if (choice.wheels.empty() && choice.remove.empty()) return;
    uint64_t bytes = 0;
    size_t replaced = 0;  // installed distributions the new wheels take the place of
    for (const auto& w : choice.wheels) {
        bytes += w.size.value_or(0);
        replaced += w.replaces.has_value();
    }
    if (!ctx.reporter->confirm(msg("install.confirm", {{"install", std::to_string(choice.wheels.size())},
                                                       {"size", str::human_bytes(bytes)},
                                                       {"replace", std::to_string(replaced)},
                                                       {"remove", std::to_string(choice.remove.size())},
                                                       {"path", env.root.string()}}),
                               true))
        throw Failure(ExitCode::Declined, "install.declined");
}

}  // namespace

void run_index_install(const InstallOptions& o, const probe::Environment& env, bool created, Context& ctx) {
    auto config = resolve_index_config(*o.index);
    const bool offline = config.offline.value;
    plan::PlanSources sources = plan::plan_sources(config);
    // --offline installs from what is cached: index pages from the HTTP cache, wheels from
    // the wheel cache (plan's --offline decides from the matrix alone instead).
    sources.http.offline = offline;
    sources.keep_whole_wheel = [root = installer::wheel_cache_root()](const std::string& sha256, const std::string& filename) {
        return installer::wheel_cache_file(root, sha256, filename);
    };
    PlanCliOptions plan_opts = o.plan;
    if (!o.venv.empty()) plan_opts.target = TargetOptions{.env = o.venv};
    auto choice = plan_for_install(ctx, plan_opts, sources, o.items);
    ctx.reporter->debug(msg("install.debug.planned_at", {{"ms", std::to_string(ctx.ms_since_start())}}));
    const auto& plan = choice.plan;
    // The plan's warnings (an index passed over, a yanked file taken, a package dropped) are the
    // install's: said as warnings, and in the JSON document. A plan shown in full (--dry-run, or
    // nothing fits) lists them itself in text.
    if (ctx.opts.json || !(plan.failure || o.dry_run))
        for (const auto& w : plan.warnings) ctx.reporter->warn(w);
    if (auto app = plan.failure ? std::nullopt : app_holding(plan_opts.target, env)) check_app_before_install(ctx, o, *app, env, plan);
    if (plan.failure || o.dry_run) {
        if (plan.failure) ctx.exit_code = plan.failure->code;
        if (ctx.opts.json) {
            Json doc = {{"schema_version", kJsonSchemaVersion}, {"environment", environment_json(env)}, {"dry_run", o.dry_run},
                        {"plan", install_plan_json(plan)}, {"error", nullptr}};
            doc["warnings"] = warnings_json(ctx);
            if (plan.failure) doc["error"] = error_json(Error{plan.failure->code, plan.failure->message});
            print_json(doc);
            if (plan.failure) print_error_line(Error{plan.failure->code, plan.failure->message});
        } else {
            print_install_plan(plan, ctx.opts.verbosity > 0);
        }
        return;
    }
    ask_before_changing(ctx, choice, env);

    std::vector<installer::WheelFetch> fetch;
    for (const auto& w : choice.wheels) fetch.push_back({with_index_credentials(w.url, sources), w.filename, w.sha256, w.size});
    std::set<std::string> names;
    for (const auto& w : choice.wheels) names.insert(w.canonical_name);
    // Prepare (the downloads, each wheel unpacked into the cache once checked) beside the
    // install's Plan and Commit, which take the wheels once all are there (docs/install.md).
    IndexPreparation prepared(std::move(fetch), sources, offline, env.site_packages, env.root, names, o.threads, ctx);
    installer::InstallRequest req;
    for (const auto& w : choice.wheels)
        req.wheels.push_back({std::filesystem::path(w.filename), choice.requested.count(w.canonical_name) > 0, std::nullopt});
    req.prepared = &prepared;
    req.remove = choice.remove;
    // The history's "why": the first few names, then how many more.
    std::vector<std::string> what;
    for (const auto& w : choice.wheels)
        if (what.size() < 3) what.push_back(w.name + " " + w.version);
    if (choice.wheels.size() > what.size()) what.push_back("+" + std::to_string(choice.wheels.size() - what.size()) + " more");
    req.snapshot_reason = "install " + (what.empty() ? std::string("(nothing new)") : str::join(what, ", "));
    req.check_dependencies = !o.no_deps;
    req.force_reinstall = o.force_reinstall;
    req.wait_for_lock = o.wait;
    req.break_system_packages = o.break_system_packages;
    req.threads = o.threads;
    req.ready_trees_from = ready_trees_from();
    auto result = installer::install_verified(env, req, verify_options(o, env, ctx), *ctx.reporter);
    ctx.reporter->debug(msg("install.debug.installed_at", {{"ms", std::to_string(ctx.ms_since_start())}}));
    // Where the install stopped before it took the wheels, a failed download is the error to
    // report unless the install has its own.
    if (auto ended = prepared.finish(); !ended && result) result = unexpected(std::move(ended).error());
    const auto& fetched = prepared.fetched();
    if (!ctx.opts.json) return report_install(ctx, env, o, result, created, nullptr);  // the plan and downloads only go into JSON
    Json downloads = Json::array();
    for (size_t i = 0; i < choice.wheels.size() && i < fetched.size(); ++i)
        downloads.push_back({{"filename", choice.wheels[i].filename},
                             {"url", network::redact_url(choice.wheels[i].url)},
                             {"path", fetched[i].file.string()},
                             {"from_cache", fetched[i].from_cache}});
    Json extra = {{"plan", install_plan_json(plan)}, {"downloads", downloads}};
    report_install(ctx, env, o, result, created, &extra);
}

}  // namespace envfix::cli
