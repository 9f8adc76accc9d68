// An app's constraints against a plan, before anything changes (app_alignment.hpp).
#include "envfix/installer/app_alignment.hpp"

#include <algorithm>

#include "envfix/resolver/names.hpp"
#include "envfix/resolver/version.hpp"

namespace envfix::installer {

namespace {

// "0.23.0" is met by "0.23.0+cu128"; "0.23.0+cu128" only by itself.
bool version_meets(const std::string& have, const std::string& needed) {
    auto h = resolver::Version::try_parse(have);
    auto n = resolver::Version::try_parse(needed);
    if (!h || !n) return have == needed;
    if (!n->local().empty()) return *h == *n;
    return h->public_version() == n->public_version();
}

}  // namespace

std::vector<resolver::PlannedPackage> plan_packages(const resolver::Plan& plan) {
    std::vector<resolver::PlannedPackage> out;
    for (const auto& w : plan.install) out.push_back({w.canonical_name, w.version});
    for (const auto& k : plan.keep) out.push_back({k.canonical_name, k.version});
    std::stable_partition(out.begin(), out.end(), [](const resolver::PlannedPackage& p) { return p.name == "torch"; });
    return out;
}

std::vector<Message> AppAlignment::reasons() const {
    std::vector<Message> out;
    for (const auto& f : constraints.findings)
        if (f.kind == resolver::AppFindingKind::Conflict) out.push_back(f.message);
    for (const auto& c : not_in_plan)
        out.push_back(msg("apply.companion_not_in_plan", {{"package", c.package}, {"needed", c.needed},
                                                          {"installed", c.installed.empty() ? "-" : c.installed}}));
    return out;
}

AppAlignment align_app(const resolver::Plan& plan, resolver::AppCheckInput in) {
    in.planned = plan_packages(plan);
    return align_app(plan, resolver::check_app_constraints(in));
}

AppAlignment align_app(const resolver::Plan& plan, resolver::AppConstraints checked) {
    AppAlignment a;
    a.constraints = std::move(checked);
    auto packages = plan_packages(plan);
    for (const auto& c : a.constraints.companions) {
        if (c.needed.empty()) continue;  // envfix cannot name it: the finding says what to do
        bool brought = false;
        for (const auto& p : packages)
            if (resolver::canonicalize_name(p.name) == c.package && version_meets(p.version, c.needed)) brought = true;
        if (!brought) a.not_in_plan.push_back(c);
    }
    return a;
}

}  // namespace envfix::installer
