// The torch filter of `--torch` and the apply spec (torch_filter.hpp).
#include "envfix/plan/torch_filter.hpp"

#include "envfix/common/strings.hpp"

namespace envfix::plan {

Expected<TorchFilter> parse_torch_filter(std::string_view text) {
    std::string written(str::trim(text));
    // A bare version: what a conda user writes for a release line, where pip would need "==".
    if (auto v = standards::Version::try_parse(written)) {
        bool plain = !v->is_prerelease() && !v->is_postrelease() && !v->has_local();
        written = "==" + written + (plain ? ".*" : "");
    }
    ENVFIX_TRY(auto spec, standards::SpecifierSet::parse(written));
    return TorchFilter{std::move(spec), std::move(written)};
}

std::function<bool(const matrix::Release&)> release_filter(const standards::SpecifierSet& spec) {
    std::vector<std::string> labels;
    for (const auto& s : spec.specifiers())
        if (s.op() == standards::SpecOp::Equal && s.version() && s.version()->has_local()) labels.push_back(s.version()->local());
    return [spec, labels](const matrix::Release& r) {
        auto v = standards::Version::try_parse(r.torch);
        if (!v || spec.contains(*v, true)) return true;
        for (const auto& l : labels)
            if (auto lv = standards::Version::try_parse(r.torch + "+" + l); lv && spec.contains(*lv, true)) return true;
        return false;
    };
}

}  // namespace envfix::plan
