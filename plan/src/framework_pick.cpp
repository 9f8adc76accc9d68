#include "framework_pick.hpp"

#include <algorithm>

#include "envfix/common/strings.hpp"
#include "envfix/matrix/framework.hpp"
#include "envfix/standards/core_metadata.hpp"

namespace envfix::plan::detail {

namespace {

bool pins_exactly(const std::optional<standards::SpecifierSet>& spec) {
    if (!spec) return false;
    for (const auto& s : spec->specifiers())
        if ((s.op() == standards::SpecOp::Equal && !s.is_wildcard()) || s.op() == standards::SpecOp::Arbitrary) return true;
    return false;
}

}  // namespace

FrameworkFinder::FrameworkFinder(network::detail::PageFetcher& pages, WheelInfoFetcher& info, const PlanRequest& req,
                                 const standards::SupportedTags& tags, standards::Version python, std::string best_tag)
    : pages_(pages), info_(info), req_(req), tags_(tags), python_(std::move(python)), best_tag_(std::move(best_tag)) {}

std::vector<network::detail::PageRequest> FrameworkFinder::requests(bool nightly, const std::string& variant) const {
    std::vector<network::detail::PageRequest> out;
    if (req_.framework_source == FrameworkSource::Indexes) {
        for (const auto& idx : req_.sources.indexes) out.push_back({{idx}, "torch"});
    } else {
        out.push_back({variant_index_urls(req_.sources, nightly, variant), "torch"});
    }
    return out;
}

void FrameworkFinder::prefetch(const std::vector<std::pair<bool, std::string>>& nightly_variant) {
    std::vector<network::detail::PageRequest> all;
    for (const auto& [nightly, variant] : nightly_variant)
        for (auto& r : requests(nightly, variant)) all.push_back(std::move(r));
    pages_.prefetch(all);
}

FrameworkMiss FrameworkFinder::explain(const network::ProjectPage& page, const matrix::Release& r, const matrix::Variant& v,
                                       bool flat) const {
    const bool nightly = r.channel == matrix::Channel::Nightly;
    auto want = standards::Version::try_parse(r.torch);
    bool any = false, tag_ok = false, py_ok = false, allowed = false;
    std::string requires_python, yanked_reason;
    std::vector<std::string> tags_seen;
    std::optional<standards::Version> newest;
    for (const auto& f : page.files) {
        auto w = standards::parse_wheel_name(f.filename);
        if (!w || w->canonical_name != "torch") continue;
        if (!flat)
            if (auto lv = matrix::variant_from_local(w->version); lv && *lv != v.name) continue;
        if (!newest || w->version > *newest) newest = w->version;
        bool match = nightly ? w->version.is_prerelease() : (want && w->version.without_local() == *want);
        if (!match) continue;
        any = true;
        if (!tags_.supports(w->tags)) {
            for (const auto& t : w->tags)
                if (tags_seen.size() < 6 && std::find(tags_seen.begin(), tags_seen.end(), t.to_string()) == tags_seen.end())
                    tags_seen.push_back(t.to_string());
            continue;
        }
        tag_ok = true;
        if (f.requires_python && !requires_python_allows(*f.requires_python, python_)) {
            requires_python = *f.requires_python;
            continue;
        }
        py_ok = true;
        if (req_.torch && !req_.torch->contains(w->version, true)) continue;
        allowed = true;
        if (f.yanked) yanked_reason = f.yanked_reason.empty() ? "-" : f.yanked_reason;
    }
    MessageArgs base = {{"torch", r.torch}, {"variant", v.name}, {"url", page.url}};
    auto with = [&](std::string key, std::vector<std::pair<std::string, std::string>> more) {
        Message m = msg(std::move(key), base);
        for (auto& [k, val] : more) m.with(k, val);
        return FrameworkMiss{m, false, std::nullopt};
    };
    if (!any) return with("plan.index.no_version", {{"newest", newest ? newest->to_string() : "-"}});
    if (!tag_ok) return with("plan.index.no_tag", {{"tag", best_tag_}, {"tags", str::join(tags_seen, ", ")}});
    if (!py_ok) return with("plan.index.requires_python", {{"python", python_.to_string()}, {"requires", requires_python}});
    if (!allowed) return with("plan.index.filter", {{"filter", req_.torch_text}});
    return with("plan.index.yanked", {{"reason", yanked_reason}});
}

Expected<std::variant<FrameworkPick, FrameworkMiss>> FrameworkFinder::find(const matrix::Release& r, const matrix::Variant& v) {
    const bool nightly = r.channel == matrix::Channel::Nightly;
    const bool flat = req_.framework_source == FrameworkSource::Indexes;
    auto reqs = requests(nightly, v.name);
    std::shared_ptr<const network::ProjectPage> page;
    std::string first_url;
    for (const auto& q : reqs) {
        auto res = pages_.page(q);
        if (first_url.empty()) first_url = res.url;
        if (res.error) return unexpected(*res.error);
        if (res.missing) continue;
        page = res.page;
        break;
    }
    if (!page) return FrameworkMiss{msg("plan.index.no_page", {{"url", first_url}, {"variant", v.name}}), true, std::nullopt};

    auto sel = select_wheels(page->files, "torch", {&tags_, python_});
    auto want = standards::Version::try_parse(r.torch);
    const bool pinned = pins_exactly(req_.torch);
    auto accept = [&](const WheelCandidate& c, bool prefix_only) {
        // A build labelled for another variant is never this one, on a flat index (every variant in
        // one list, as the PyTorch index's root or a mirror) as on the variant's own index.
        if (auto lv = matrix::variant_from_local(c.version); lv && !matrix::variant_matches(*lv, v.name)) return false;
        if (nightly) {
            // The matrix names the nightly line by a prefix ("2.16.0.dev"); the index completes it.
            if (!c.version.is_prerelease()) return false;
            if (prefix_only && !c.version.to_string().starts_with(r.torch)) return false;
        } else if (!want || c.version.without_local() != *want) {
            return false;
        }
        if (req_.torch && !req_.torch->contains(c.version, true)) return false;
        return !c.file.yanked || pinned;
    };
    const WheelCandidate* hit = nullptr;
    for (bool prefix_only : nightly ? std::vector<bool>{true, false} : std::vector<bool>{false}) {
        for (const auto& c : sel.candidates)
            if (accept(c, prefix_only)) {
                hit = &c;
                break;
            }
        if (hit) break;
    }
    if (!hit) return explain(*page, r, v, flat);

    FrameworkPick pick{*hit, flat ? std::vector<std::string>{} : reqs.front().index_urls, page->url, std::nullopt};
    if (!flat) return pick;
    // One index, every variant in one list: which build is this? Its local label, else what its
    // metadata requires (PyPI's Linux CUDA builds pin their runtime wheels).
    std::optional<std::string> found = matrix::variant_from_local(hit->version);
    if (!found) {
        // The same version installed says the same (and spares reading a 900 MB wheel).
        const standards::InstalledDist* have = req_.installed.find("torch");
        std::vector<standards::Requirement> deps;
        if (have && !have->problem && have->parsed_version == hit->version) {
            ENVFIX_TRY(deps, parse_requires_dist(have->metadata));
        } else {
            ENVFIX_TRY(auto info, info_.metadata(hit->file, "torch"));
            ENVFIX_TRY(auto md, standards::parse_core_metadata(info.metadata, hit->file.filename + "/METADATA"));
            ENVFIX_TRY(deps, standards::parse_requires_dist(md));
        }
        found = matrix::variant_from_requirements(deps);
        if (!found && req_.machine.platform.os == matrix::OsKind::Linux) found = "cpu";
    }
    if (!found) {
        // Windows and macOS wheels bundle CUDA and pin nothing; PyPI's are CPU builds.
        found = req_.variant.value_or("cpu");
        pick.note = msg("plan.index.variant_assumed", {{"torch", hit->version.to_string()}, {"variant", *found}, {"url", page->url}});
    }
    if (!matrix::variant_matches(*found, v.name))
        return FrameworkMiss{msg("plan.index.other_variant",
                                 {{"torch", hit->version.to_string()}, {"found", *found}, {"variant", v.name}, {"url", page->url}}),
                             false, *found};
    return pick;
}

}  // namespace envfix::plan::detail
