#include "envfix/matrix/coverage.hpp"

#include <algorithm>

#include "envfix/common/strings.hpp"

namespace envfix::matrix {

using probe::ArchTarget;
using probe::ComputeCapability;

GpuCoverage cover(const BinaryTargets& bin, ComputeCapability gpu, const CoverageOptions& opt) {
    GpuCoverage c;
    c.gpu = gpu;
    // SASS: exact first, then family, then the newest lower minor of the same major.
    const ArchTarget* same_major = nullptr;
    const ArchTarget* family = nullptr;
    for (const auto& t : bin.sass) {
        if (t.cc == gpu) {
            c.kind = CoverageKind::Native;
            c.target = t;
            return c;
        }
        if (opt.tegra || t.cc.major != gpu.major || t.cc.minor > gpu.minor) continue;
        if (t.variant == 'a') continue;  // arch-specific code runs only on its exact arch
        if (t.variant == 'f') {
            if (!family || t.cc > family->cc) family = &t;
        } else if (!same_major || t.cc > same_major->cc) {
            same_major = &t;
        }
    }
    if (family) {
        c.kind = CoverageKind::Family;
        c.target = *family;
        return c;
    }
    if (same_major) {
        c.kind = CoverageKind::SameMajor;
        c.target = *same_major;
        return c;
    }
    // PTX: the newest compute_XY not above the GPU (a/f PTX only on its exact arch / family).
    const ArchTarget* ptx = nullptr;
    for (const auto& t : bin.ptx) {
        bool usable = t.variant == 0 ? t.cc <= gpu : t.variant == 'a' ? t.cc == gpu : (t.cc.major == gpu.major && t.cc.minor <= gpu.minor);
        if (usable && (!ptx || t.cc > ptx->cc)) ptx = &t;
    }
    if (!ptx) return c;
    c.target = *ptx;
    bool isa_too_new = opt.ptx_isa && opt.driver_max_isa && *opt.ptx_isa > *opt.driver_max_isa;
    if (opt.minor_compat || isa_too_new) {
        c.jit_blocked = true;
        return c;
    }
    c.kind = CoverageKind::Jit;
    return c;
}

Message describe(const GpuCoverage& c, const BinaryTargets& bin, const std::string& label, const CoverageOptions& opt) {
    switch (c.kind) {
        case CoverageKind::Native: return msg("plan.cover.native", {{"gpu", label}, {"target", c.target->sm_tag()}});
        case CoverageKind::SameMajor:
            return msg("plan.cover.same_major", {{"gpu", label}, {"target", c.target->sm_tag()}, {"cc", c.gpu.to_string()}});
        case CoverageKind::Family: return msg("plan.cover.family", {{"gpu", label}, {"target", c.target->sm_tag()}});
        case CoverageKind::Jit: return msg("plan.cover.jit", {{"gpu", label}, {"target", c.target->compute_tag()}});
        case CoverageKind::None: break;
    }
    if (c.jit_blocked) {
        if (opt.minor_compat) return msg("plan.cover.jit_blocked_compat", {{"gpu", label}, {"target", c.target->compute_tag()}});
        return msg("plan.cover.jit_blocked_isa", {{"gpu", label},
                                                  {"target", c.target->compute_tag()},
                                                  {"isa", opt.ptx_isa ? opt.ptx_isa->to_string() : "?"},
                                                  {"max", opt.driver_max_isa ? opt.driver_max_isa->to_string() : "?"}});
    }
    if (bin.sass.empty() && bin.ptx.empty()) return msg("plan.cover.no_gpu_code", {{"gpu", label}});
    std::vector<ArchTarget> all = bin.sass;
    all.insert(all.end(), bin.ptx.begin(), bin.ptx.end());
    auto [lo, hi] = std::minmax_element(all.begin(), all.end());
    std::string ptx = bin.ptx.empty() ? "" : std::max_element(bin.ptx.begin(), bin.ptx.end())->compute_tag();
    std::string newest = bin.sass.empty() ? "-" : std::max_element(bin.sass.begin(), bin.sass.end())->sm_tag();
    if (opt.tegra) return msg("plan.cover.none_tegra", {{"gpu", label}, {"target", c.gpu.sm_tag()}});
    if (c.gpu > hi->cc) {
        if (ptx.empty()) return msg("plan.cover.none_newer", {{"gpu", label}, {"newest", newest}});
        return msg("plan.cover.none_newer_ptx", {{"gpu", label}, {"newest", newest}, {"ptx", ptx}});
    }
    if (c.gpu < lo->cc) return msg("plan.cover.none_older", {{"gpu", label}, {"oldest", lo->sm_tag()}});
    std::vector<std::string> tags;
    for (const auto& t : bin.sass) tags.push_back(t.sm_tag());
    return msg("plan.cover.none_gap", {{"gpu", label}, {"targets", str::join(tags, " ")}});
}

bool MachineCoverage::all_served() const {
    return std::all_of(gpus.begin(), gpus.end(), [](const GpuCoverage& c) { return c.served(); });
}

bool MachineCoverage::all_native() const {
    return std::all_of(gpus.begin(), gpus.end(), [](const GpuCoverage& c) { return c.native(); });
}

MachineCoverage cover_all(const BinaryTargets& bin, const std::vector<GpuTarget>& gpus, CoverageOptions opt) {
    MachineCoverage m;
    for (const auto& g : gpus) {
        opt.tegra = g.tegra;
        m.gpus.push_back(cover(bin, g.cc, opt));
    }
    return m;
}

}  // namespace envfix::matrix
