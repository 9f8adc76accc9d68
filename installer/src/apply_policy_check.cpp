// The apply spec's policy values against the matrix (apply_spec.hpp): a value that no release
// envfix knows can satisfy is refused when the spec is read, at its line, not later per
// environment (where a venv may already have been made).
#include <set>

#include "envfix/common/strings.hpp"
#include "envfix/installer/apply_spec.hpp"
#include "envfix/plan/torch_filter.hpp"

namespace envfix::installer {

namespace {

Error invalid(const ApplySpec& spec, int line, const Message& reason) {
    return make_error(ExitCode::BadInput, "apply.spec_invalid",
                      {{"file", spec.file.string()}, {"line", std::to_string(line)}, {"reason", render(reason)}});
}

std::vector<const matrix::Release*> in_channel(const matrix::Matrix& m, const ApplyPolicy& p) {
    std::optional<matrix::Channel> channel;
    if (p.channel == "stable") channel = matrix::Channel::Stable;
    if (p.channel == "nightly") channel = matrix::Channel::Nightly;
    auto list = m.newest_first(channel);
    return {list.rbegin(), list.rend()};  // oldest first, as a reader lists them
}

// "2.0.0 to 2.11.0", or the one release.
std::string span_of(const std::vector<const matrix::Release*>& releases) {
    if (releases.empty()) return "-";
    if (releases.size() == 1) return releases.front()->torch;
    return releases.front()->torch + " … " + releases.back()->torch;
}

std::string variants_of(const std::vector<const matrix::Release*>& releases) {
    std::set<std::string> names;
    for (const auto* r : releases)
        for (const auto& v : r->variants) names.insert(v.name);
    return str::join(std::vector<std::string>(names.begin(), names.end()), ", ");
}

Expected<void> check_policy(const ApplySpec& spec, const ApplyPolicy& p, const matrix::Matrix& m) {
    auto releases = in_channel(m, p);
    if (p.torch) {
        auto filter = plan::parse_torch_filter(*p.torch);
        if (!filter)
            return unexpected(invalid(spec, p.torch_line,
                                      msg("apply.spec.torch_invalid", {{"value", *p.torch}, {"reason", render(filter.error().message)}})));
        auto passes = plan::release_filter(filter->spec);
        std::vector<const matrix::Release*> named;
        for (const auto* r : releases)
            if (passes(*r)) named.push_back(r);
        if (named.empty())
            return unexpected(
                invalid(spec, p.torch_line, msg("apply.spec.torch_matches_nothing", {{"value", *p.torch}, {"known", span_of(releases)}})));
        releases = named;
    }
    if (!p.variant) return {};
    for (const auto* r : releases)
        if (r->variant(*p.variant)) return {};
    auto all = in_channel(m, {});
    bool anywhere = false;
    for (const auto* r : all) anywhere = anywhere || r->variant(*p.variant);
    if (!anywhere)
        return unexpected(
            invalid(spec, p.variant_line, msg("apply.spec.variant_unknown", {{"value", *p.variant}, {"known", variants_of(all)}})));
    // The variant exists, only not for the releases the channel and torch leave.
    return unexpected(invalid(spec, p.variant_line,
                              msg("apply.spec.variant_not_in_releases",
                                  {{"value", *p.variant}, {"releases", span_of(releases)}, {"known", variants_of(releases)}})));
}

}  // namespace

Expected<void> check_apply_policies(const ApplySpec& spec, const matrix::Matrix& matrix) {
    for (const auto& e : spec.environments)
        if (!e.lock) ENVFIX_TRY_VOID(check_policy(spec, e.policy, matrix));
    return {};
}

}  // namespace envfix::installer
