// An app's constraints against a plan, before anything changes (app_alignment.hpp).
#include "envfix/installer/app_alignment.hpp"

#include <algorithm>

#include "envfix/standards/names.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::installer {

namespace {

// "0.23.0" is met by "0.23.0+cu128"; "0.23.0+cu128" only by itself.
bool version_meets(const std::string& have, const std::string& needed) {
    auto h = standards::Version::try_parse(have);
    auto n = standards::Version::try_parse(needed);
    if (!h || !n) return have == needed;
    if (!n->local().empty()) return *h == *n;
    return h->public_version() == n->public_version();
}

}  // namespace

std::vector<apps::PlannedPackage> plan_packages(const plan::Plan& plan) {
    std::vector<apps::PlannedPackage> out;
    for (const auto& w : plan.install) out.push_back({w.canonical_name, w.version});
    for (const auto& k : plan.keep) out.push_back({k.canonical_name, k.version});
    std::stable_partition(out.begin(), out.end(), [](const apps::PlannedPackage& p) { return p.name == "torch"; });
    return out;
}

std::vector<Message> AppAlignment::reasons() const {
    std::vector<Message> out;
    for (const auto& f : constraints.findings)
        if (f.kind == apps::AppFindingKind::Conflict) out.push_back(f.message);
    for (const auto& c : not_in_plan)
        out.push_back(msg("apply.companion_not_in_plan", {{"package", c.package}, {"needed", c.needed},
                                                          {"installed", c.installed.empty() ? "-" : c.installed}}));
    return out;
}

AppAlignment align_app(const plan::Plan& plan, apps::AppCheckInput in) {
    in.planned = plan_packages(plan);
    return align_app(plan, apps::check_app_constraints(in));
}

AppAlignment align_app(const plan::Plan& plan, apps::AppConstraints checked) {
    AppAlignment a;
    a.constraints = std::move(checked);
    auto packages = plan_packages(plan);
    for (const auto& c : a.constraints.companions) {
        if (c.needed.empty()) continue;  // envfix cannot name it: the finding says what to do
        bool brought = false;
        for (const auto& p : packages)
            if (standards::canonicalize_name(p.name) == c.package && version_meets(p.version, c.needed)) brought = true;
        if (!brought) a.not_in_plan.push_back(c);
    }
    return a;
}

}  // namespace envfix::installer
