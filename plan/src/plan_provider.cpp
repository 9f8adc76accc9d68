#include "plan_provider.hpp"

#include <algorithm>
#include <functional>

#include "envfix/matrix/framework.hpp"
#include "envfix/standards/core_metadata.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::plan::detail {

std::vector<network::detail::PageRequest> PlanProvider::requests_for(const std::string& name) const {
    std::vector<network::detail::PageRequest> out;
    if (matrix::is_torch_package(name) && !setup_.framework_urls.empty()) {
        out.push_back({setup_.framework_urls, name});
        return out;
    }
    for (const auto& idx : setup_.indexes)
        if (std::find(failed_indexes_.begin(), failed_indexes_.end(), idx) == failed_indexes_.end()) out.push_back({{idx}, name});
    if (!setup_.framework_urls.empty()) out.push_back({setup_.framework_urls, name});
    return out;
}

bool PlanProvider::keepable(const std::string& name, const standards::InstalledDist& d, const std::vector<WheelCandidate>& wheels) const {
    if (d.problem || !d.parsed_version) return false;
    // A framework build stays only when it is exactly a build the chosen index serves: another
    // variant of the same version ("2.11.0+cu130" for "==2.11.0") would mix stacks.
    if (matrix::is_torch_package(name))
        return std::any_of(wheels.begin(), wheels.end(), [&](const WheelCandidate& w) { return w.version == *d.parsed_version; });
    return true;
}

Expected<PlanProvider::Entry*> PlanProvider::entry(const std::string& name) {
    auto it = entries_.find(name);
    if (it != entries_.end()) return &it->second;
    Entry e;
    WheelSelectContext ctx{setup_.tags, setup_.python};
    std::optional<std::pair<std::string, WheelSelection>> first_page;
    std::optional<Error> failed;
    for (const auto& req : requests_for(name)) {
        auto r = pages_.page(req);
        if (r.error) {
            // The framework's own index must answer; an ordinary one that does not is passed
            // over, as pip does, and said once.
            if (req.index_urls == setup_.framework_urls || r.error->code == ExitCode::Interrupted) return unexpected(*r.error);
            const std::string& idx = req.index_urls.front();
            if (std::find(failed_indexes_.begin(), failed_indexes_.end(), idx) == failed_indexes_.end()) {
                failed_indexes_.push_back(idx);
                warnings_.push_back(msg("plan.warn.index_failed", {{"reason", render(r.error->message)}}));
            }
            if (!failed) failed = r.error;
            continue;
        }
        if (r.missing || !r.page) continue;
        auto sel = select_wheels(r.page->files, name, ctx);
        if (!sel.candidates.empty()) {
            e.wheels = std::move(sel.candidates);
            e.index = r.page->url;
            break;
        }
        if (!first_page) first_page.emplace(r.page->url, std::move(sel));
    }
    if (e.wheels.empty() && first_page) e.index = first_page->first;
    if (e.wheels.empty() && !first_page && failed) return unexpected(*failed);
    if (setup_.installed) {
        const standards::InstalledDist* d = setup_.installed->find(name);
        if (d && keepable(name, *d, e.wheels)) {
            e.installed = d;
            e.candidates.push_back({name, *d->parsed_version, true, false, kInstalledId});
        } else {
            e.installed = d;
        }
    }
    for (size_t i = 0; i < e.wheels.size(); ++i) e.candidates.push_back({name, e.wheels[i].version, false, e.wheels[i].file.yanked, i});
    return &entries_.emplace(name, std::move(e)).first->second;
}

Expected<std::vector<ResolveCandidate>> PlanProvider::candidates(const std::string& name) {
    ENVFIX_TRY(Entry * e, entry(name));
    return e->candidates;
}

Expected<std::vector<standards::Requirement>> PlanProvider::dependencies(const ResolveCandidate& c) {
    ENVFIX_TRY(Entry * e, entry(c.name));
    if (c.installed) {
        e->sources[c.id] = MetadataSource::Installed;
        return parse_requires_dist(e->installed->metadata);
    }
    const WheelCandidate& w = e->wheels.at(c.id);
    ENVFIX_TRY(auto info, info_.metadata(w.file, c.name));
    e->sources[c.id] = info.source;
    ENVFIX_TRY(auto md, standards::parse_core_metadata(info.metadata, w.file.filename + "/METADATA"));
    // The metadata must be the wheel's own (pip checks the same).
    auto version = standards::Version::try_parse(md.version);
    if (standards::canonicalize_name(md.name) != c.name || !version || *version != w.version)
        return fail(ExitCode::BadWheel, "plan.wheel.metadata_mismatch",
                    {{"file", w.file.filename}, {"name", md.name}, {"version", md.version}});
    return standards::parse_requires_dist(md);
}

void PlanProvider::prefetch(const std::vector<std::string>& names) {
    std::vector<network::detail::PageRequest> reqs;
    for (const auto& n : names) {
        if (entries_.count(n)) continue;
        auto r = requests_for(n);
        if (!r.empty()) reqs.push_back(r.front());
    }
    pages_.prefetch(reqs);
    // Then the metadata of each project's most preferred wheel, all at once.
    std::vector<std::function<void()>> jobs;
    for (const auto& n : names) {
        auto e = entry(n);
        if (!e || (*e)->candidates.empty() || (*e)->candidates.front().installed) continue;
        network::IndexFile file = (*e)->wheels.at((*e)->candidates.front().id).file;
        jobs.push_back([this, file, n] { (void)info_.metadata(file, n); });
    }
    pages_.run_parallel(jobs);
}

bool PlanProvider::allows_prereleases(const std::string& name) const { return setup_.nightly && matrix::is_torch_package(name); }

std::string PlanProvider::describe(const ResolveCandidate& c) const {
    std::string s = c.name + " " + c.version.to_string();
    if (c.installed) s += " (installed)";
    return s;
}

const WheelCandidate* PlanProvider::wheel(const ResolveCandidate& c) const {
    auto it = entries_.find(c.name);
    if (it == entries_.end() || c.installed || c.id >= it->second.wheels.size()) return nullptr;
    return &it->second.wheels[c.id];
}

std::string PlanProvider::index_of(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? "" : it->second.index;
}

MetadataSource PlanProvider::metadata_source(const ResolveCandidate& c) const {
    auto it = entries_.find(c.name);
    if (it == entries_.end()) return MetadataSource::Pep658;
    auto s = it->second.sources.find(c.id);
    return s == it->second.sources.end() ? MetadataSource::Pep658 : s->second;
}

const standards::InstalledDist* PlanProvider::installed(const std::string& name) const {
    return setup_.installed ? setup_.installed->find(name) : nullptr;
}

}  // namespace envfix::plan::detail
