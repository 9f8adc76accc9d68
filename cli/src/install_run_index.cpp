// `envfix install` from the index: the plan, the wheels from the cache or downloaded into it,
// then one transaction (old framework and companions out, new ones in) after a snapshot.
#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <set>

#include "app_target.hpp"
#include "env_json.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/app_alignment.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/installer/wheel_cache.hpp"
#include "envfix/resolver/app_target.hpp"
#include "envfix/resolver/matrix_loader.hpp"
#include "envfix/resolver/url.hpp"
#include "index_options.hpp"
#include "install_index.hpp"
#include "install_run.hpp"
#include "probe_view.hpp"
#include "ready_trees.hpp"

namespace envfix::cli {

namespace {

// The plan's URLs carry no credentials: those written in an index URL go back onto the
// wheels of that host (netrc entries the HTTP client adds by itself).
std::string with_index_credentials(const std::string& url, const resolver::PlanSources& sources) {
    if (resolver::url_credentials(url)) return url;
    auto host = resolver::split_url(url);
    std::vector<std::string> roots = sources.indexes;
    roots.insert(roots.end(), sources.pytorch_roots.begin(), sources.pytorch_roots.end());
    for (const auto& root : roots) {
        auto parts = resolver::split_url(root);
        if (parts.userinfo.empty() || parts.host != host.host || parts.port != host.port || parts.scheme != host.scheme) continue;
        host.userinfo = parts.userinfo;
        return resolver::join_url(host);
    }
    return url;
}

// --app: the app's own constraints (its torch range, companions pinned to torch, requirement
// files) against the plan, before anything changes; a conflict stops the install (issue 8).
void check_app_before_install(Context& ctx, const TargetOptions& target, const probe::Environment& env,
                              const resolver::Plan& plan) {
    auto app = resolve_app(target, ctx, TargetNeed::Files);
    if (!app.target.profile) return;
    auto matrix = value_or_throw(resolver::load_embedded_profiles());
    auto aligned = installer::align_app(plan, resolver::check_app_target(app.target, installer::plan_packages(plan), &matrix));
    for (const auto& f : aligned.constraints.findings)
        if (f.kind != resolver::AppFindingKind::Conflict) ctx.reporter->warn(f.message);
    if (!aligned.blocked()) return;
    for (const auto& r : aligned.reasons()) ctx.reporter->warn(r);
    throw Failure(ExitCode::RequirementsUnmet, "apply.app_blocked",
                  {{"name", env.root.string()}, {"app", std::string(app.target.profile->display())}});
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
    resolver::PlanSources sources = resolver::plan_sources(config);
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
    if (!plan.failure && (!plan_opts.target.app.empty() || !plan_opts.target.path.empty()))
        check_app_before_install(ctx, plan_opts.target, env, plan);
    if (plan.failure || o.dry_run) {
        if (plan.failure) ctx.exit_code = plan.failure->code;
        if (ctx.opts.json) {
            Json doc = {{"schema_version", kJsonSchemaVersion}, {"environment", environment_json(env)}, {"dry_run", o.dry_run},
                        {"plan", install_plan_json(plan)}, {"error", nullptr}};
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
    // Each wheel is unpacked into the unpacked-wheel cache as soon as it is checked, while the
    // others still download; the install then links (docs/performance.md).
    // A switch: the files the installed builds share with the new ones are linked, not inflated.
    std::set<std::string> names;
    for (const auto& w : choice.wheels) names.insert(w.canonical_name);
    auto keep = std::make_shared<const installer::InstalledContent>(installer::installed_content(env.site_packages, env.root, names));
    installer::UnpackAhead ahead(installer::unpacked_cache_root(), 0, o.threads, keep->by_hash.empty() ? nullptr : keep);
    // A switch waits for torch's largest library, one deflate stream: it is inflated on the cores
    // a cold install would keep busy with the other wheels (docs/inflate-parallel.md).
    ahead.lend_inflate_helpers(installer::inflate_helpers_for(choice.wheels.size()));
    auto ready = [&](const std::filesystem::path& file, const std::string& sha256) { ahead.add(file, sha256); };
    // A large wheel fetched in ranges: its large libraries inflated as their bytes arrive.
    auto split = [&](const std::filesystem::path& part, const std::string& sha256, std::shared_ptr<resolver::PartProgress> progress) {
        ahead.early(part, sha256, std::move(progress));
    };
    // The downloaded wheels are not flushed (DownloadFlush::Leave): they are a cache, unpacked
    // before the commit, whose flush then writes only the environment's new files, not the
    // wheels' 2.75 GB besides (docs/performance.md). Where this boot has
    // no identity (Windows) they are flushed together, left running (flush_later): the install
    // plans beside it and the unpacking, and waits for it just before its moves.
    std::unique_ptr<resolver::PendingFlush> flushing;
    // The downloads run on a thread of their own while the install takes the lock, plans what
    // goes and captures and stores the snapshot of the present; it takes the wheels once they are
    // all there (InstallRequest::wheels_ready). Where the install stops before, the downloads end
    // before this returns (the future's wait), their wheels kept in the cache.
    std::vector<installer::FetchedWheel> fetched;
    std::future<Expected<std::vector<installer::FetchedWheel>>> fetching = std::async(std::launch::async, [&] {
        return installer::fetch_wheels(installer::wheel_cache_root(), fetch, sources.http, offline, sources.parallel, *ctx.reporter,
                                       ready, ahead.reads_early() ? installer::WheelSplit(split) : installer::WheelSplit{},
                                       resolver::DownloadFlush::Leave, &flushing);
    });
    auto wheels_ready = [&]() -> Expected<std::vector<std::filesystem::path>> {
        ENVFIX_TRY(fetched, fetching.get());
        std::vector<std::filesystem::path> files;
        for (const auto& f : fetched) files.push_back(f.file);
        return files;
    };
    bool settled = false;
    auto settle = [&]() -> Expected<void> {
        if (settled) return {};
        settled = true;
        auto started = std::chrono::steady_clock::now();
        auto outcome = ahead.finish();
        // The unpacking threads' arenas keep what they freed; the install's staging and commit
        // come next, on the memory given back. Nothing inflated (a warm install): nothing to give
        // back, and malloc_trim's walk over the heap took 15-19 ms of a 0.12 s install here.
        if (outcome.files > 0 || outcome.early_taken > 0 || outcome.early_refused > 0) platform::release_free_memory();
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
        ctx.reporter->debug(msg("install.debug.unpacked_ahead", {{"unpacked", std::to_string(outcome.unpacked)},
                                                                 {"present", std::to_string(outcome.present)},
                                                                 {"runners", std::to_string(outcome.runners)},
                                                                 {"ms", std::to_string(ms)}}));
        for (const auto& b : outcome.batches) {
            if (b.files == 0) continue;  // wheels found unpacked already (a warm install's 30 lines)
            ctx.reporter->debug(msg("install.debug.unpack_batch", {{"wheels", std::to_string(b.wheels)}, {"files", std::to_string(b.files)},
                                                                   {"from", std::to_string(b.from_ms)}, {"to", std::to_string(b.to_ms)}}));
            // Where a wheel read while it downloaded spent the time after its check.
            if (b.early_ms)
                ctx.reporter->debug(msg("install.debug.unpack_batch_split", {{"early", std::to_string(b.early_ms)},
                                                                             {"staged", std::to_string(b.staged_ms)},
                                                                             {"rest", std::to_string(b.rest_ms)}}));
        }
        if (outcome.kept_vouched + outcome.kept_read > 0)
            ctx.reporter->debug(msg("install.debug.kept_linked", {{"vouched", std::to_string(outcome.kept_vouched)},
                                                                  {"read", std::to_string(outcome.kept_read)}}));
        if (outcome.early_wheels > 0)
            ctx.reporter->debug(msg("install.debug.unpacked_early", {{"wheels", std::to_string(outcome.early_wheels)},
                                                                     {"taken", std::to_string(outcome.early_taken)},
                                                                     {"refused", std::to_string(outcome.early_refused)}}));
        // The files inflated early that ended last: what the unpacking waited for, and whether on
        // their bytes (read late) or on their inflating, hashing and writing.
        auto files = outcome.early_files;
        std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.end_ms > b.end_ms; });
        if (files.size() > 6) files.resize(6);
        for (const auto& f : files) {
            ctx.reporter->debug(msg(f.joined_ms ? "install.debug.early_file_joined"
                                    : f.workers ? "install.debug.early_file_parallel"
                                                : "install.debug.early_file",
                                    {{"name", f.name},
                                     {"size", str::human_bytes(f.size)},
                                     {"compressed", str::human_bytes(f.compressed)},
                                     {"first", std::to_string(f.first_ms)},
                                     {"bytes", std::to_string(f.bytes_ms)},
                                     {"end", std::to_string(f.end_ms)},
                                     {"workers", std::to_string(f.workers)},
                                     {"joined", std::to_string(f.joined_ms)},
                                     {"decoded", str::human_bytes(f.joined_at)}}));
            ctx.reporter->debug(msg("install.debug.early_file_times", {{"between", std::to_string(f.times.between)},
                                                                       {"handing", std::to_string(f.times.handing)},
                                                                       {"full", std::to_string(f.times.full)},
                                                                       {"hashing", std::to_string(f.times.hashing)},
                                                                       {"writing", std::to_string(f.times.writing)},
                                                                       {"reading", std::to_string(f.times.reading)}}));
        }
        for (const auto& e : outcome.errors) ctx.reporter->debug(e.message);
        return {};
    };
    // A wheel that could not be made durable is gone from the cache: the install stops before it
    // changes anything, as it would have had the download failed. Waited for once the new files
    // are staged (the flush writes the wheels out beside the staging, docs/performance.md).
    auto flushed = [&]() -> Expected<void> {
        if (!flushing) return {};
        auto failed = flushing->wait(*ctx.reporter);
        if (!failed.empty()) return unexpected(std::move(failed.front().second));
        return {};
    };
    installer::InstallRequest req;
    for (const auto& w : choice.wheels)
        req.wheels.push_back({std::filesystem::path(w.filename), choice.requested.count(w.canonical_name) > 0, std::nullopt});
    req.wheels_ready = wheels_ready;
    // A switch: the files it keeps are linked into the new entries unread where the snapshot of
    // the present vouches for them.
    if (!keep->by_hash.empty()) req.present_known = [&ahead](std::shared_ptr<const installer::KnownInstalled> k) { ahead.know_present(std::move(k)); };
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
    req.before_cache = settle;
    if (flushing) req.before_moves = flushed;  // where the downloads were flushed (DownloadFlush::Batch)
    auto result = installer::install_verified(env, req, verify_options(o, env, ctx), *ctx.reporter);
    ctx.reporter->debug(msg("install.debug.installed_at", {{"ms", std::to_string(ctx.ms_since_start())}}));
    // The install stopped before it took the wheels: their downloads end first, and a failed one
    // is the error to report where the install's own is not.
    if (fetching.valid()) {
        auto got = fetching.get();
        if (got) fetched = std::move(*got);
        else if (result) result = unexpected(std::move(got).error());
    }
    // Nothing was staged (all installed, a failed check): the wheels' work ends here.
    (void)settle();
    (void)flushed();
    if (!ctx.opts.json) return report_install(ctx, env, o, result, created, nullptr);  // the plan and downloads only go into JSON
    Json downloads = Json::array();
    for (size_t i = 0; i < choice.wheels.size() && i < fetched.size(); ++i)
        downloads.push_back({{"filename", choice.wheels[i].filename}, {"url", resolver::redact_url(choice.wheels[i].url)},
                             {"path", fetched[i].file.string()}, {"from_cache", fetched[i].from_cache}});
    Json extra = {{"plan", install_plan_json(plan)}, {"downloads", downloads}};
    report_install(ctx, env, o, result, created, &extra);
}

}  // namespace envfix::cli
