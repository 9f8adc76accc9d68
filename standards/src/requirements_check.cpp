#include "envfix/standards/requirements_check.hpp"

#include <algorithm>
#include <map>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/standards/core_metadata.hpp"
#include "envfix/standards/requirement.hpp"

namespace envfix::standards {

std::string_view check_problem_kind_name(CheckProblemKind k) {
    switch (k) {
        case CheckProblemKind::Missing: return "missing";
        case CheckProblemKind::Conflict: return "conflict";
        case CheckProblemKind::Unsupported: return "unsupported";
        case CheckProblemKind::BadMetadata: return "bad-metadata";
    }
    return "missing";
}

namespace {

size_t folder_rank(const std::vector<std::filesystem::path>& order, const std::filesystem::path& folder) {
    for (size_t i = 0; i < order.size(); ++i)
        if (order[i] == folder) return i;
    return order.size();
}

}  // namespace

CheckResult check_requirements(const InstalledSet& set, const CheckInput& in) {
    CheckResult out;
    // The distribution of each name Python finds first: sys.path order, then the folder order.
    std::map<std::string, size_t> by_name;
    for (size_t i = 0; i < set.dists.size(); ++i) {
        const auto& d = set.dists[i];
        // A dist-info without readable METADATA still counts as installed under its folder's
        // name and version (pip 23.3 and later; older pips skip it), with no requirements.
        if (d.problem) out.skipped.push_back(d.problem->message);
        auto [it, fresh] = by_name.emplace(d.canonical_name, i);
        if (!fresh && folder_rank(in.order, d.site_packages) < folder_rank(in.order, set.dists[it->second].site_packages)) it->second = i;
    }
    MarkerEnvironment env = in.markers;
    env.extra.clear();

    for (const auto& [name, index] : by_name) {
        const InstalledDist& d = set.dists[index];
        if (d.problem) continue;
        ++out.checked;
        std::string who = d.name + " " + d.version;
        for (const auto& text : d.metadata.requires_dist) {
            auto bad = [&](const char* key, const Error& e) {
                out.problems.push_back({.kind = CheckProblemKind::BadMetadata,
                                        .name = d.name,
                                        .version = d.version,
                                        .requirement = text,
                                        .text = msg(key, {{"dist", who}, {"requirement", text}, {"reason", render(e.message)}})});
            };
            auto r = Requirement::parse(text);
            if (!r) {
                bad("check.bad_requirement", r.error());
                continue;
            }
            auto applies = r->applies(env);
            if (!applies) {
                bad("check.bad_marker", applies.error());
                continue;
            }
            if (!*applies) continue;
            std::string dep = r->canonical_name();
            std::string req = r->to_string();
            auto found = by_name.find(dep);
            if (found == by_name.end()) {
                out.problems.push_back({.kind = CheckProblemKind::Missing,
                                        .name = d.name,
                                        .version = d.version,
                                        .requirement = req,
                                        .dependency = dep,
                                        .text = msg("check.missing", {{"dist", who}, {"requirement", req}})});
                continue;
            }
            const InstalledDist& have = set.dists[found->second];
            if (!have.parsed_version) continue;  // a legacy version: nothing to compare (pip cannot either)
            if (r->specifier.contains(*have.parsed_version, true)) continue;
            out.problems.push_back(
                {.kind = CheckProblemKind::Conflict,
                 .name = d.name,
                 .version = d.version,
                 .requirement = req,
                 .dependency = dep,
                 .installed = have.version,
                 .text = msg("check.conflict", {{"dist", who}, {"requirement", req}, {"installed", have.name + " " + have.version}})});
        }
        // A wheel for another platform or Python (pip 24.1 and later check this too).
        if (in.tags && index < in.wheel_tags.size() && in.wheel_tags[index] && !in.tags->supports(*in.wheel_tags[index])) {
            std::vector<std::string> tags;
            for (const auto& t : *in.wheel_tags[index]) tags.push_back(t.to_string());
            std::string list = tags.empty() ? "-" : str::join(tags, ", ");
            out.problems.push_back({.kind = CheckProblemKind::Unsupported,
                                    .name = d.name,
                                    .version = d.version,
                                    .requirement = list,
                                    .text = msg("check.unsupported", {{"dist", who}, {"tags", list}})});
        }
    }
    std::stable_sort(out.problems.begin(), out.problems.end(), [](const CheckProblem& a, const CheckProblem& b) {
        return std::tie(a.name, a.requirement) < std::tie(b.name, b.requirement);
    });
    return out;
}

std::vector<std::optional<std::vector<Tag>>> read_wheel_tags(const InstalledSet& set) {
    std::vector<std::optional<std::vector<Tag>>> out(set.dists.size());
    for (size_t i = 0; i < set.dists.size(); ++i) {
        const auto& d = set.dists[i];
        if (d.egg_info) continue;
        auto path = d.dist_info / "WHEEL";
        auto text = fs::read_file(path);
        if (!text) continue;
        std::vector<Tag> tags;
        if (auto wheel = parse_metadata_file(*text, path.string()))
            for (const auto& t : wheel->get_all("Tag"))
                if (auto set_tags = parse_tag_set(str::trim(t))) tags.insert(tags.end(), set_tags->begin(), set_tags->end());
        out[i] = std::move(tags);
    }
    return out;
}

}  // namespace envfix::standards
