#include "envfix/plan/wheel_select.hpp"

#include <algorithm>
#include <map>

#include "envfix/standards/names.hpp"
#include "envfix/standards/specifier.hpp"

namespace envfix::plan {

bool requires_python_allows(std::string_view requires_python, const standards::Version& python) {
    auto spec = standards::SpecifierSet::parse(requires_python);
    if (!spec) return true;
    // Pre-releases of Python itself (3.14.0rc1) count as that version, as pip decides.
    return spec->contains(python, true);
}

WheelSelection select_wheels(const std::vector<network::IndexFile>& files, std::string_view project, const WheelSelectContext& ctx) {
    WheelSelection out;
    const std::string want = standards::canonicalize_name(project);
    // Per version: the best file so far.
    std::map<standards::Version, WheelCandidate, std::greater<>> best;
    for (const auto& f : files) {
        if (standards::distribution_kind(f.filename) != standards::DistributionKind::Wheel) {
            ++out.files;
            ++out.not_wheels;
            continue;
        }
        auto w = standards::parse_wheel_name(f.filename);
        if (!w) {
            ++out.files;
            ++out.bad_names;
            continue;
        }
        if (w->canonical_name != want) {
            ++out.other_project;
            continue;
        }
        ++out.files;
        auto rank = ctx.tags ? ctx.tags->rank(w->tags) : std::optional<size_t>(0);
        if (!rank) {
            ++out.other_tags;
            if (out.tag_examples.size() < 4 && !w->tags.empty()) {
                std::string t = w->tags.front().to_string();
                if (std::find(out.tag_examples.begin(), out.tag_examples.end(), t) == out.tag_examples.end()) out.tag_examples.push_back(t);
            }
            continue;
        }
        if (f.requires_python && !requires_python_allows(*f.requires_python, ctx.python)) {
            ++out.requires_python;
            continue;
        }
        WheelCandidate c{w->version, f, *w, *rank};
        auto it = best.find(c.version);
        if (it == best.end()) {
            best.emplace(c.version, std::move(c));
            continue;
        }
        WheelCandidate& have = it->second;
        // A yanked file never beats one that is not; then the better tag; then the higher build tag.
        auto key = [](const WheelCandidate& x) {
            return std::make_tuple(!x.file.yanked, -static_cast<long long>(x.rank), x.wheel.build.value_or(standards::BuildTag{"0", ""}));
        };
        if (key(c) > key(have)) have = std::move(c);
    }
    for (auto& [v, c] : best) out.candidates.push_back(std::move(c));
    return out;
}

}  // namespace envfix::plan
