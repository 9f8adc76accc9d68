#include "envfix/matrix/policy.hpp"

#include <algorithm>
#include <tuple>

#include "envfix/common/strings.hpp"
#include "policy_hints.hpp"

namespace envfix::matrix {

namespace {

std::vector<std::string> names_of(const std::vector<const Candidate*>& cs) {
    std::vector<std::string> out;
    for (const auto* c : cs) out.push_back(c->variant->name);
    return out;
}

// Within one release, lower ranks first (docs/matrix.md "Rules", 7). The first two fields are the
// passes of choose(): native code before PTX JIT, official variants before the others.
struct Rank {
    int jit = 0;
    int unofficial = 0;  // extra/experimental (not when forced with --variant)
    int runtime = 0;  // exact (or no driver needed) 0, driver unknown 1, minor-version floor 2
    int not_default = 0;  // driver unknown: PyPI's default variant first
    int status = 0;  // official, extra, experimental
    long cuda = 0;  // newest CUDA first; under the floor the CUDA closest to the driver's
    auto tie() const { return std::tie(jit, unofficial, runtime, not_default, status, cuda); }
    bool operator<(const Rank& o) const { return tie() < o.tie(); }
};

bool official(const Candidate& c, const PolicyRequest& req) {
    return c.variant->status == VariantStatus::Official || (req.variant && *req.variant == c.variant->name);
}

Rank rank_of(const Candidate& c, const PolicyRequest& req) {
    Rank r;
    r.jit = c.jit();
    r.unofficial = !official(c, req);
    switch (c.runtime.fit) {
        case RuntimeFit::Exact:
        case RuntimeFit::NotNeeded: r.runtime = 0; break;
        case RuntimeFit::Unknown: r.runtime = 1; break;
        case RuntimeFit::MinorCompat:
        case RuntimeFit::TooOld: r.runtime = 2; break;
    }
    r.not_default = c.runtime.fit == RuntimeFit::Unknown && c.release->pypi_default != c.variant->name;
    r.status = static_cast<int>(c.variant->status);
    long cu = c.variant->cuda ? c.variant->cuda->encoded() : 0;
    r.cuda = c.runtime.fit == RuntimeFit::MinorCompat ? cu : -cu;
    return r;
}

// Why `better` ranks before `worse` (same release, both fit): from `better`'s side for the
// reasons, and from `worse`'s side for the alternatives.
std::pair<Message, Message> rank_reason(const Candidate& better, const Candidate& worse, const std::string& others,
                                        const PolicyRequest& req) {
    Rank a = rank_of(better, req), b = rank_of(worse, req);
    const std::string& v = better.variant->name;
    if (a.jit != b.jit) return {msg("plan.reason.variant_native", {{"variant", v}, {"others", others}}), msg("plan.alt.jit_only")};
    if (a.unofficial != b.unofficial || a.status != b.status)
        return {msg("plan.reason.variant_status", {{"variant", v}, {"others", others}}),
                msg("plan.alt.status", {{"status", std::string(to_string(worse.variant->status))}})};
    if (a.runtime != b.runtime)
        return {msg("plan.reason.variant_exact", {{"variant", v}, {"others", others}}), msg("plan.alt.compat_only")};
    if (a.not_default != b.not_default)
        return {msg("plan.reason.variant_default", {{"variant", v}}), msg("plan.alt.not_default", {{"variant", v}})};
    if (better.runtime.fit == RuntimeFit::MinorCompat)
        return {msg("plan.reason.variant_closest_cuda", {{"variant", v}, {"others", others}}),
                msg("plan.alt.further_cuda", {{"variant", v}})};
    return {msg("plan.reason.variant_newest_cuda", {{"variant", v}, {"others", others}}), msg("plan.alt.older_cuda", {{"variant", v}})};
}

std::vector<Channel> stages_of(ChannelChoice c) {
    switch (c) {
        case ChannelChoice::Stable: return {Channel::Stable};
        case ChannelChoice::Nightly: return {Channel::Nightly};
        case ChannelChoice::Auto: break;
    }
    return {Channel::Stable, Channel::Nightly};
}

std::vector<ComputeCapability> ccs_of(const Machine& m) {
    std::vector<ComputeCapability> out;
    for (const auto& g : m.gpus) out.push_back(g.cc);
    return out;
}

void add_warnings(const Matrix& m, const PolicyRequest& req, const Candidate& c, PolicyResult& res) {
    const Machine& mach = req.machine;
    const Release& r = *c.release;
    const Variant& v = *c.variant;
    std::string torch = r.torch, variant = v.name, os(os_key(mach.platform.os));
    if (c.runtime.fit == RuntimeFit::MinorCompat && c.runtime.need)
        res.warnings.push_back(
            msg("plan.warn.minor_compat",
                {{"driver", mach.driver->to_string()}, {"toolkit", c.runtime.need->toolkit}, {"need", c.runtime.need->exact.to_string()}}));
    if (c.runtime.fit == RuntimeFit::Unknown && !mach.gpus.empty()) {
        auto need = driver_needed(m, v, mach.platform.os, ccs_of(mach));
        res.warnings.push_back(msg("plan.warn.driver_unknown",
                                   {{"torch", torch}, {"variant", variant}, {"need", need ? need->to_string() : "?"}, {"os", os}}));
    }
    if (c.runtime.need && !c.runtime.need->figure_confirmed && c.runtime.fit == RuntimeFit::Exact)
        res.warnings.push_back(msg("plan.warn.driver_minimum_unconfirmed",
                                   {{"toolkit", c.runtime.need->toolkit}, {"os", os}, {"need", c.runtime.need->exact.to_string()}}));
    for (size_t i = 0; i < c.coverage.gpus.size(); ++i)
        if (c.coverage.gpus[i].kind == CoverageKind::Jit)
            res.warnings.push_back(msg("plan.warn.jit", {{"gpu", machine_gpu_label(mach.gpus[i])}}));
    if (!mach.python)
        res.warnings.push_back(
            msg("plan.warn.python_unknown", {{"torch", torch}, {"pythons", str::join(r.python_for(mach.platform), ", ")}}));
    if (r.confidence == Confidence::Unconfirmed)
        res.warnings.push_back(msg("plan.warn.release_unconfirmed", {{"torch", torch}, {"source", r.source.str()}}));
    else if (c.build && c.build->confidence == Confidence::Unconfirmed && !v.is_cpu())
        res.warnings.push_back(
            msg("plan.warn.unconfirmed",
                {{"torch", torch}, {"variant", variant}, {"platform", mach.platform.key()}, {"source", c.build->source.str()}}));
    if (v.is_cpu() && !mach.gpus.empty()) res.warnings.push_back(msg("plan.warn.cpu_on_gpu"));
    if (!v.is_cpu() && mach.gpus.empty()) res.warnings.push_back(msg("plan.warn.cuda_without_gpu", {{"variant", variant}}));
    if (r.channel == Channel::Nightly) res.warnings.push_back(msg("plan.warn.nightly", {{"torch", torch}}));
}

void add_reasons(const PolicyRequest& req, const Candidate& c, const std::vector<const Candidate*>& fits_in_release, Channel stage,
                 bool nightly_fallback, PolicyResult& res) {
    const Machine& mach = req.machine;
    const Release& r = *c.release;
    const Variant& v = *c.variant;
    if (mach.gpus.empty()) res.reasons.push_back(msg("plan.reason.no_gpu"));
    for (const auto& m : c.coverage_reasons) res.reasons.push_back(m);
    for (const auto& g : c.gpu_drivers)
        if (!g.reason.empty()) res.reasons.push_back(g.reason);
    if (!v.is_cpu() && c.runtime.fit != RuntimeFit::Unknown) res.reasons.push_back(c.runtime.reason);  // else a warning
    if (mach.python)
        res.reasons.push_back(msg("plan.reason.python", {{"torch", r.torch}, {"python", *mach.python}, {"platform", mach.platform.key()}}));
    if (!req.release_filter_text.empty())
        res.reasons.push_back(msg("plan.reason.filter", {{"torch", r.torch}, {"filter", req.release_filter_text}}));
    if (stage == Channel::Stable)
        res.reasons.push_back(msg("plan.reason.newest_stable", {{"torch", r.torch}}));
    else if (nightly_fallback)
        res.reasons.push_back(msg("plan.reason.nightly_fallback", {{"torch", r.torch}}));
    else
        res.reasons.push_back(msg("plan.reason.nightly_requested", {{"torch", r.torch}}));
    if (req.variant) {
        res.reasons.push_back(msg("plan.reason.forced", {{"variant", v.name}}));
    } else if (fits_in_release.size() > 1) {
        std::vector<const Candidate*> others(fits_in_release.begin() + 1, fits_in_release.end());
        res.reasons.push_back(rank_reason(c, *fits_in_release[1], str::join(names_of(others), ", "), req).first);
    } else {
        res.reasons.push_back(msg("plan.reason.variant_only", {{"variant", v.name}, {"torch", r.torch}}));
    }
}

// Alternatives worth showing: published for the platform, and not a CPU build on a GPU machine.
bool listed(const Candidate& c, const Machine& mach) { return c.build && !(c.variant->is_cpu() && !mach.gpus.empty()); }

Alternative alternative_of(const Candidate& c) { return {c.release->torch, c.variant->name, c.release->channel, c.fits(), c.why_not}; }

}  // namespace

bool Candidate::blocked_only_by(std::initializer_list<Blocker> allowed) const {
    if (blockers.empty()) return false;
    return std::all_of(blockers.begin(), blockers.end(),
                       [&](Blocker b) { return std::find(allowed.begin(), allowed.end(), b) != allowed.end(); });
}

std::string machine_gpu_label(const MachineGpu& g) {
    if (g.name.empty()) return g.cc.sm_tag();
    return g.name + " (" + g.cc.sm_tag() + ")";
}

Candidate evaluate(const Matrix& m, const PolicyRequest& req, const Release& r, const Variant& v) {
    Candidate c;
    c.release = &r;
    c.variant = &v;
    const Machine& mach = req.machine;
    auto block = [&](Blocker b, Message why) {
        if (std::find(c.blockers.begin(), c.blockers.end(), b) == c.blockers.end()) c.blockers.push_back(b);
        c.why_not.push_back(std::move(why));
    };
    c.build = v.build(mach.platform);
    if (!c.build)
        block(Blocker::Platform, msg("plan.why.platform", {{"torch", r.torch}, {"variant", v.name}, {"platform", mach.platform.key()}}));
    if (mach.python && !r.offers_python(*mach.python, mach.platform)) {
        auto offered = r.python_for(mach.platform);
        block(Blocker::Python,
              msg("plan.why.python",
                  {{"torch", r.torch}, {"python", *mach.python}, {"pythons", offered.empty() ? "-" : str::join(offered, ", ")}}));
    }
    if (req.release_filter && !req.release_filter(r))
        block(Blocker::Filter, msg("plan.why.filter", {{"torch", r.torch}, {"filter", req.release_filter_text}}));

    bool forced = req.variant && *req.variant == v.name;
    if (v.is_cpu()) {
        c.runtime.fit = RuntimeFit::NotNeeded;
        c.runtime.reason = msg("plan.runtime.cpu");
        if (!mach.gpus.empty() && !forced) block(Blocker::Coverage, msg("plan.why.cpu_on_gpu"));
        return c;
    }
    if (mach.gpus.empty()) {
        if (!forced) block(Blocker::NoGpu, msg("plan.why.no_gpu", {{"variant", v.name}}));
        c.runtime = check_runtime(m, v, mach.platform.os, mach.driver);
        return c;
    }
    c.runtime = check_runtime(m, v, mach.platform.os, mach.driver);
    if (c.runtime.fit == RuntimeFit::TooOld) block(Blocker::Runtime, c.runtime.reason);

    for (const auto& g : mach.gpus) {
        auto gv = check_gpu_driver(m, g.cc, mach.driver, machine_gpu_label(g));
        if (gv.fit == GpuDriverFit::TooOld || gv.fit == GpuDriverFit::TooNew) block(Blocker::GpuDriver, gv.reason);
        c.gpu_drivers.push_back(std::move(gv));
    }
    if (!c.build) return c;
    BinaryTargets bin{c.build->sass, c.build->ptx};
    CoverageOptions opt;
    opt.minor_compat = c.runtime.fit == RuntimeFit::MinorCompat;
    if (const Toolkit* tk = m.toolkit(*v.cuda)) opt.ptx_isa = tk->ptx_isa;
    auto driver_cuda = mach.driver_cuda;
    if (!driver_cuda && mach.driver) driver_cuda = m.driver_cuda(*mach.driver);
    if (driver_cuda) opt.driver_max_isa = m.max_ptx_isa(*driver_cuda);
    for (const auto& g : mach.gpus) {
        const Architecture* a = m.architecture(g.cc);
        opt.tegra = a && a->tegra;
        GpuCoverage cov = cover(bin, g.cc, opt);
        Message why = describe(cov, bin, machine_gpu_label(g), opt);
        if (!cov.served()) block(Blocker::Coverage, why);
        c.coverage.gpus.push_back(cov);
        c.coverage_reasons.push_back(std::move(why));
    }
    return c;
}

namespace {

PolicyResult choose_impl(const Matrix& m, const PolicyRequest& req, bool with_hints) {
    PolicyResult res;
    const Machine& mach = req.machine;
    if (req.variant) {
        std::vector<std::string> known;
        for (const auto& r : m.releases)
            for (const auto& v : r.variants)
                if (std::find(known.begin(), known.end(), v.name) == known.end()) known.push_back(v.name);
        if (std::find(known.begin(), known.end(), *req.variant) == known.end()) {
            std::sort(known.begin(), known.end());
            res.code = ExitCode::Usage;
            res.error = msg("plan.unknown_variant", {{"variant", *req.variant}, {"known", str::join(known, ", ")}});
            return res;
        }
    }

    auto stages = stages_of(req.channel);
    // Candidates per stage, releases newest first.
    std::vector<std::vector<Candidate>> evaluated(stages.size());
    for (size_t s = 0; s < stages.size(); ++s)
        for (const Release* r : m.newest_first(stages[s]))
            for (const auto& v : r->variants)
                if (!req.variant || *req.variant == v.name) evaluated[s].push_back(evaluate(m, req, *r, v));

    // Passes, best first: official variants with native code, then any variant with native code
    // (extra/experimental variants are index-only or announced as experimental, and their data is
    // often third-party), then the same two with PTX JIT.
    struct Pass {
        bool allow_jit;
        bool allow_unofficial;
    };
    const Pass passes[] = {{false, false}, {false, true}, {true, false}, {true, true}};
    for (size_t s = 0; s < stages.size(); ++s) {
        for (const Pass& pass : passes) {
            const auto& cands = evaluated[s];
            for (size_t i = 0; i < cands.size();) {
                // one release at a time
                size_t j = i;
                bool eligible = false;
                std::vector<const Candidate*> fits;  // every fitting variant of the release
                for (; j < cands.size() && cands[j].release == cands[i].release; ++j) {
                    const Candidate& c = cands[j];
                    if (!c.fits()) continue;
                    fits.push_back(&c);
                    if ((pass.allow_jit || !c.jit()) && (pass.allow_unofficial || official(c, req))) eligible = true;
                }
                if (!eligible) {
                    i = j;
                    continue;
                }
                std::stable_sort(fits.begin(), fits.end(),
                                 [&](const Candidate* a, const Candidate* b) { return rank_of(*a, req) < rank_of(*b, req); });
                const Candidate& best = *fits.front();
                res.ok = true;
                res.release = best.release;
                res.variant = best.variant;
                res.build = best.build;
                res.runtime_fit = best.runtime.fit;
                res.driver_needed = driver_needed(m, *best.variant, mach.platform.os, ccs_of(mach));
                bool fallback = stages[s] == Channel::Nightly && req.channel == ChannelChoice::Auto;
                add_reasons(req, best, fits, stages[s], fallback, res);
                add_warnings(m, req, best, res);
                // Alternatives: newer releases of this channel, the chosen release's other variants,
                // and the nightly line when stable won.
                for (size_t k = 0; k < j; ++k) {
                    const Candidate& c = cands[k];
                    if (&c == &best || !listed(c, mach)) continue;
                    Alternative alt = alternative_of(c);
                    if (c.fits()) {
                        if (c.release == best.release)
                            alt.why = {rank_reason(best, c, "", req).second};
                        else if (c.jit() && !best.jit())
                            alt.why = {msg("plan.alt.jit_only")};
                        else
                            alt.why = {msg("plan.alt.status", {{"status", std::string(to_string(c.variant->status))}})};
                    }
                    res.alternatives.push_back(std::move(alt));
                }
                if (stages[s] == Channel::Stable && req.channel == ChannelChoice::Auto)
                    for (const Release* r : m.newest_first(Channel::Nightly))
                        for (const auto& v : r->variants) {
                            if (req.variant && *req.variant != v.name) continue;
                            Candidate c = evaluate(m, req, *r, v);
                            if (!listed(c, mach)) continue;
                            Alternative alt = alternative_of(c);
                            if (c.fits()) alt.why = {msg("plan.alt.stable_first")};
                            res.alternatives.push_back(std::move(alt));
                        }
                return res;
            }
        }
    }

    // Nothing fits: say why for the newest releases, and what would fit.
    res.code = ExitCode::NothingFits;
    std::vector<std::string> gpu_labels;
    for (const auto& g : mach.gpus) gpu_labels.push_back(machine_gpu_label(g));
    res.error = msg("plan.nothing_fits", {{"platform", mach.platform.key()},
                                          {"gpus", gpu_labels.empty() ? "-" : str::join(gpu_labels, ", ")},
                                          {"driver", mach.driver ? mach.driver->to_string() : "?"},
                                          {"python", mach.python.value_or("?")}});
    for (size_t s = 0; s < stages.size(); ++s) {
        const Release* newest = nullptr;
        for (const auto& c : evaluated[s]) {
            if (!newest) newest = c.release;
            if (c.release != newest || !listed(c, mach)) continue;
            res.alternatives.push_back(alternative_of(c));
        }
    }
    if (with_hints) res.hints = detail::hints_for(m, req, evaluated, stages);
    return res;
}

}  // namespace

PolicyResult choose(const Matrix& m, const PolicyRequest& req) { return choose_impl(m, req, true); }

PolicyResult detail::choose_without_hints(const Matrix& m, const PolicyRequest& req) { return choose_impl(m, req, false); }

}  // namespace envfix::matrix
