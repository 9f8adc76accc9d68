#include "policy_hints.hpp"

#include <algorithm>

#include "envfix/common/strings.hpp"

namespace envfix::matrix::detail {

namespace {

[[maybe_unused]] const Candidate* first_where(const std::vector<std::vector<Candidate>>& evaluated, auto pred) {
    for (const auto& stage : evaluated)
        for (const auto& c : stage)
            if (pred(c)) return &c;
    return nullptr;
}

// The newest fitting candidate of a request (native before JIT), or nothing.
std::optional<std::pair<std::string, std::string>> first_fit(const Matrix& m, const PolicyRequest& req) {
    PolicyResult r = choose_without_hints(m, req);
    if (!r.ok) return std::nullopt;
    return std::make_pair(r.release->torch, r.variant->name);
}

std::vector<ComputeCapability> ccs_of(const Machine& mach) {
    std::vector<ComputeCapability> out;
    for (const auto& g : mach.gpus) out.push_back(g.cc);
    return out;
}

}  // namespace

std::vector<Message> hints_for(const Matrix& m, const PolicyRequest& req, const std::vector<std::vector<Candidate>>& evaluated,
                               const std::vector<Channel>& stages) {
    std::vector<Message> hints;
    const Machine& mach = req.machine;
    bool has_gpu = !mach.gpus.empty();

    // A newer driver, unless a GPU's last driver branch is older than what it takes: the smallest
    // upgrade that makes something fit, and the one that reaches the newest release.
    auto driver_fix = [&](const Candidate& c) -> std::optional<DriverVersion> {
        if (!c.blocked_only_by({Blocker::Runtime, Blocker::GpuDriver})) return std::nullopt;
        if (std::any_of(c.gpu_drivers.begin(), c.gpu_drivers.end(),
                        [](const GpuDriverVerdict& g) { return g.fit == GpuDriverFit::TooNew; }))
            return std::nullopt;
        auto need = driver_needed(m, *c.variant, mach.platform.os, ccs_of(mach));
        for (auto cc : ccs_of(mach))
            if (const Architecture* a = m.architecture(cc); a && a->last_driver && need && need->branch() > *a->last_driver + 4)
                return std::nullopt;
        return need;
    };
    const Candidate* newest_fix = nullptr;
    const Candidate* smallest_fix = nullptr;
    std::optional<DriverVersion> newest_need, smallest_need;
    for (const auto& stage : evaluated)
        for (const auto& c : stage)
            if (auto need = driver_fix(c)) {
                if (!newest_fix) {
                    newest_fix = &c;
                    newest_need = need;
                }
                if (!smallest_fix || *need < *smallest_need) {
                    smallest_fix = &c;
                    smallest_need = need;
                }
            }
    if (smallest_fix && *smallest_need < *newest_need)
        hints.push_back(
            msg("plan.hint.driver_smallest",
                {{"need", smallest_need->to_string()}, {"torch", smallest_fix->release->torch}, {"variant", smallest_fix->variant->name}}));
    if (newest_fix)
        hints.push_back(
            msg("plan.hint.driver",
                {{"need", newest_need->to_string()}, {"torch", newest_fix->release->torch}, {"variant", newest_fix->variant->name}}));
    for (size_t i = 0; i < mach.gpus.size(); ++i) {
        const Architecture* a = m.architecture(mach.gpus[i].cc);
        if (a && a->last_driver && mach.driver && mach.driver->branch() > *a->last_driver + 4)
            hints.push_back(
                msg("plan.hint.driver_legacy",
                    {{"family", a->family}, {"gpu", machine_gpu_label(mach.gpus[i])}, {"last", std::to_string(*a->last_driver)}}));
    }
    // Another Python.
    if (const Candidate* c = first_where(evaluated, [](const Candidate& c) { return c.blocked_only_by({Blocker::Python}); })) {
        hints.push_back(msg("plan.hint.python", {{"torch", c->release->torch},
                                                 {"variant", c->variant->name},
                                                 {"python", mach.python.value_or("?")},
                                                 {"pythons", str::join(c->release->python_for(mach.platform), ", ")}}));
    }
    // Outside the caller's release filter.
    if (const Candidate* c = first_where(evaluated, [](const Candidate& c) { return c.blocked_only_by({Blocker::Filter}); }))
        hints.push_back(
            msg("plan.hint.filter", {{"torch", c->release->torch}, {"variant", c->variant->name}, {"filter", req.release_filter_text}}));
    // The other channel.
    bool stable_only = stages.size() == 1 && stages[0] == Channel::Stable;
    bool nightly_only = stages.size() == 1 && stages[0] == Channel::Nightly;
    if (stable_only || nightly_only) {
        PolicyRequest other = req;
        other.channel = stable_only ? ChannelChoice::Nightly : ChannelChoice::Stable;
        if (auto fit = first_fit(m, other))
            hints.push_back(msg(stable_only ? "plan.hint.nightly" : "plan.hint.stable", {{"torch", fit->first}, {"variant", fit->second}}));
    }
    // Another variant than the forced one.
    if (req.variant) {
        PolicyRequest other = req;
        other.variant.reset();
        if (auto fit = first_fit(m, other))
            hints.push_back(msg("plan.hint.other_variant", {{"torch", fit->first}, {"variant", fit->second}}));
    }
    // Fewer GPUs: each served alone by some build, but no build serves them all.
    if (mach.gpus.size() > 1) {
        std::vector<std::string> parts;
        for (const auto& g : mach.gpus) {
            PolicyRequest one = req;
            one.machine.gpus = {g};
            if (auto fit = first_fit(m, one)) parts.push_back(machine_gpu_label(g) + ": torch " + fit->first + " " + fit->second);
        }
        if (!parts.empty()) hints.push_back(msg("plan.hint.split_gpus", {{"options", str::join(parts, "; ")}}));
    }
    // Another operating system on the same PC (dual boot, WSL): Linux and Windows on x86_64.
    if (has_gpu && mach.platform.cpu == CpuKind::X86_64 && mach.platform.os != OsKind::MacOs) {
        for (OsKind os : {OsKind::Linux, OsKind::Windows}) {
            if (os == mach.platform.os) continue;
            PolicyRequest other = req;
            other.machine.platform.os = os;
            if (auto fit = first_fit(m, other))
                hints.push_back(msg("plan.hint.other_os",
                                    {{"platform", other.machine.platform.key()}, {"torch", fit->first}, {"variant", fit->second}}));
        }
    }
    // Jetson boards run NVIDIA's own builds.
    for (const auto& g : mach.gpus)
        if (const Architecture* a = m.architecture(g.cc); a && a->tegra) {
            hints.push_back(msg("plan.hint.jetson", {{"gpu", machine_gpu_label(g)}}));
            break;
        }
    if (has_gpu && !(req.variant && *req.variant == "cpu")) hints.push_back(msg("plan.hint.cpu"));
    return hints;
}

}  // namespace envfix::matrix::detail
