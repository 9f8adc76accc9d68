#include "plan_changes.hpp"

#include <functional>
#include <map>
#include <set>

#include "envfix/matrix/framework.hpp"
#include "envfix/network/url.hpp"

namespace envfix::plan::detail {

namespace {

// What an installed distribution requires for the target (unreadable metadata: nothing).
std::vector<standards::Requirement> requirements_of(const standards::InstalledDist& d, const standards::MarkerEnvironment& env) {
    std::vector<standards::Requirement> out;
    if (d.problem) return out;
    auto reqs = parse_requires_dist(d.metadata);
    if (!reqs) return out;
    for (auto& r : *reqs) {
        auto applies = r.applies(env);
        if (applies && *applies) out.push_back(std::move(r));
    }
    return out;
}

std::string label(const standards::InstalledDist& d) { return d.name + " " + d.version; }

}  // namespace

Expected<void> fill_changes(Plan& plan, const Resolution& res, const PlanProvider& provider, const PlanRequest& req,
                            const standards::MarkerEnvironment& env, std::optional<int> new_major, WheelInfoFetcher& info,
                            network::detail::PageFetcher& pages) {
    std::map<std::string, const ResolvedPackage*> resolved;
    std::vector<network::IndexFile> files;
    for (const auto& p : res.packages) {
        const std::string& name = p.candidate.name;
        resolved[name] = &p;
        const standards::InstalledDist* d = provider.installed(name);
        if (p.candidate.installed) {
            plan.keep.push_back({d->name, d->canonical_name, d->version, p.required_by});
            continue;
        }
        const WheelCandidate* w = provider.wheel(p.candidate);
        if (!w) return fail(ExitCode::Internal, "plan.internal", {{"what", "no wheel behind " + name}});
        PlannedWheel pw;
        pw.name = name;
        pw.canonical_name = name;
        pw.version = w->version.to_string();
        pw.filename = w->file.filename;
        pw.url = network::strip_credentials(w->file.url);
        if (auto h = w->file.hashes.find("sha256"); h != w->file.hashes.end()) pw.sha256 = h->second;
        pw.size = w->file.size;
        pw.index = provider.index_of(name);
        pw.requires_python = w->file.requires_python.value_or("");
        pw.metadata = provider.metadata_source(p.candidate);
        pw.framework = matrix::is_torch_package(name);
        pw.required_by = p.required_by;
        if (d) pw.replaces = InstalledRef{d->version, d->dist_info.string()};
        plan.install.push_back(std::move(pw));
        files.push_back(w->file);
    }
    // Sizes the page did not give: asked at once (HEAD), or remembered from reading the wheel.
    std::vector<std::function<void()>> jobs;
    for (size_t i = 0; i < files.size(); ++i) {
        if (plan.install[i].size) continue;
        jobs.push_back([&, i] {
            auto n = info.size(files[i]);
            if (n)
                plan.install[i].size = *n;
            else
                pages.reporter().debug(n.error().message);
        });
    }
    pages.run_parallel(jobs);

    // What goes out: the old framework stack, and CUDA runtimes of another major.
    std::map<std::string, const DroppedRoot*> dropped;
    for (const auto& d : res.dropped) dropped[d.name] = &d;
    std::vector<const standards::InstalledDist*> out;
    std::set<std::string> out_names;
    for (const auto& d : req.installed.dists) {
        if (resolved.count(d.canonical_name)) continue;
        auto major = matrix::runtime_cuda_major(d.canonical_name, d.parsed_version);
        if (matrix::is_framework_package(d.canonical_name) || (major && major != new_major)) {
            out.push_back(&d);
            out_names.insert(d.canonical_name);
        }
    }
    std::map<std::string, std::string> needed;  // by what stays
    for (const auto& d : req.installed.dists) {
        if (resolved.count(d.canonical_name) || out_names.count(d.canonical_name)) continue;
        for (const auto& r : requirements_of(d, env)) needed.emplace(r.canonical_name(), label(d));
    }
    std::set<std::string> removed;
    for (const standards::InstalledDist* d : out) {
        const bool fw = matrix::is_framework_package(d->canonical_name);
        auto major = matrix::runtime_cuda_major(d->canonical_name, d->parsed_version);
        if (!fw && needed.count(d->canonical_name)) {
            plan.warnings.push_back(
                msg("plan.warn.runtime_kept",
                    {{"name", d->name}, {"version", d->version}, {"major", std::to_string(*major)}, {"who", needed[d->canonical_name]}}));
            continue;
        }
        Message why;
        if (fw && dropped.count(d->canonical_name))
            why = msg("plan.remove.no_build", {{"name", d->name}, {"torch", plan.torch}});
        else if (fw)
            why = msg("plan.remove.old_framework", {{"torch", plan.torch}});
        else if (new_major)
            why = msg("plan.remove.runtime", {{"major", std::to_string(*major)}, {"new", std::to_string(*new_major)}});
        else
            why = msg("plan.remove.runtime_cpu", {{"major", std::to_string(*major)}});
        plan.remove.push_back({d->name, d->canonical_name, d->version, d->dist_info.string(), std::move(why)});
        removed.insert(d->canonical_name);
    }

    // What stays and asks for something the plan changes: pip's "dependency conflicts" warning.
    for (const auto& d : req.installed.dists) {
        if (resolved.count(d.canonical_name) || removed.count(d.canonical_name)) continue;
        for (const auto& r : requirements_of(d, env)) {
            std::string n = r.canonical_name();
            if (removed.count(n)) {
                plan.warnings.push_back(msg("plan.warn.breaks_removed", {{"who", label(d)}, {"requirement", r.to_string()}}));
                continue;
            }
            auto it = resolved.find(n);
            if (it == resolved.end() || it->second->candidate.installed) continue;
            const standards::Version& v = it->second->candidate.version;
            if (!r.specifier.contains(v, true))
                plan.warnings.push_back(
                    msg("plan.warn.breaks", {{"who", label(d)}, {"requirement", r.to_string()}, {"name", n}, {"version", v.to_string()}}));
        }
    }
    return {};
}

}  // namespace envfix::plan::detail
