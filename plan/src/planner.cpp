#include "envfix/plan/planner.hpp"

#include <algorithm>
#include <set>

#include "envfix/common/strings.hpp"
#include "envfix/matrix/framework.hpp"
#include "envfix/network/page_fetch.hpp"
#include "envfix/network/url.hpp"
#include "envfix/plan/resolve.hpp"
#include "envfix/plan/torch_filter.hpp"
#include "envfix/standards/marker.hpp"
#include "envfix/standards/tags.hpp"
#include "framework_pick.hpp"
#include "plan_changes.hpp"
#include "plan_provider.hpp"
#include "wheel_info.hpp"

namespace envfix::plan {

namespace {

using detail::FrameworkMiss;
using detail::FrameworkPick;

matrix::PolicyRequest policy_request(const PlanRequest& req) {
    matrix::PolicyRequest p;
    p.machine = req.machine;
    p.channel = req.channel;
    p.variant = req.variant;
    if (req.torch) {
        // A pinned variant label ("==2.11.0+cu126") asks for that build, as --variant does.
        for (const auto& s : req.torch->specifiers())
            if (s.op() == standards::SpecOp::Equal && s.version() && s.version()->has_local()) {
                if (!p.variant) p.variant = matrix::variant_from_local(*s.version());
                break;
            }
        p.release_filter = release_filter(*req.torch);
        p.release_filter_text = req.torch_text;
    }
    return p;
}

std::vector<PlanAlternative> alternatives_of(const std::vector<matrix::Alternative>& list) {
    std::vector<PlanAlternative> out;
    for (const auto& a : list) out.push_back({a.torch, a.variant, std::string(to_string(a.channel)), a.fits, a.why});
    return out;
}

// The choice's fields, from the matrix.
void take_choice(Plan& plan, const matrix::PolicyResult& r) {
    plan.release = r.release->torch;
    plan.torch = r.release->torch;
    plan.channel = std::string(to_string(r.release->channel));
    plan.variant = r.variant->name;
    plan.cuda = r.variant->toolkit;
    plan.driver_needed = r.driver_needed ? r.driver_needed->to_string() : "";
    plan.reasons = r.reasons;
    plan.warnings = r.warnings;
    plan.alternatives = alternatives_of(r.alternatives);
}

PlanTarget target_of(const PlanRequest& req) {
    PlanTarget t;
    t.this_machine = req.this_machine;
    t.platform = req.machine.platform.key();
    for (const auto& g : req.machine.gpus) t.gpus.push_back(machine_gpu_label(g));
    t.driver = req.machine.driver ? req.machine.driver->to_string() : "";
    t.environment = req.environment;
    if (req.python) {
        t.python = req.python->version;
        t.interpreter = req.python->ran ? req.python->executable : "";
    } else if (req.machine.python) {
        t.python = *req.machine.python;
    }
    return t;
}

std::optional<int> cuda_major_of(const std::string& variant) {
    if (!variant.starts_with("cu") || variant.size() < 4) return std::nullopt;
    auto n = str::to_int(std::string_view(variant).substr(2, variant.size() - 3));
    return n ? std::optional<int>(static_cast<int>(*n)) : std::nullopt;
}

// A copy of the matrix without one release x variant (not on the index).
void drop_variant(matrix::Matrix& work, const std::string& torch, matrix::Channel channel, const std::string& variant) {
    for (auto& r : work.releases) {
        if (r.torch != torch || r.channel != channel) continue;
        r.variants.erase(std::remove_if(r.variants.begin(), r.variants.end(), [&](const matrix::Variant& v) { return v.name == variant; }),
                         r.variants.end());
    }
}

bool mentions(const std::vector<Message>& list, std::string_view key) {
    return std::any_of(list.begin(), list.end(), [&](const Message& m) { return m.key == key; });
}

// Torch pinned to the wheel found; companions from the same variant's index.
Expected<std::vector<RootRequirement>> root_requirements(const FrameworkPick& pick, const matrix::Release& rel, const PlanRequest& req) {
    const bool nightly = rel.channel == matrix::Channel::Nightly;
    std::vector<RootRequirement> roots;
    auto root = [&](const std::string& text, bool optional) -> Expected<void> {
        ENVFIX_TRY(auto r, standards::Requirement::parse(text));
        roots.push_back({std::move(r), optional});
        return {};
    };
    ENVFIX_TRY_VOID(root("torch==" + pick.torch.version.to_string(), false));
    auto companion = [&](const std::string& name, const std::string& version) {
        return (!nightly && !version.empty()) ? name + "==" + version : name;
    };
    // One list holding every variant (the PyTorch index's root, a mirror, a local index): "==0.26.0"
    // would take the highest label (+cu130 over +cu126), so torchvision and torchaudio carry torch's.
    const std::string label =
        req.framework_source == FrameworkSource::Indexes && pick.torch.version.has_local() ? "+" + pick.torch.version.local() : "";
    auto labelled = [&](const std::string& name, const std::string& version) {
        return (!nightly && !version.empty() && !label.empty()) ? name + "==" + version + label : companion(name, version);
    };
    ENVFIX_TRY_VOID(root(labelled("torchvision", rel.companions.torchvision), true));
    ENVFIX_TRY_VOID(root(labelled("torchaudio", rel.companions.torchaudio), true));
    // What the environment has of xformers and triton is replaced with a build for the new torch
    // (or goes, when the index has none: a CPU build needs no triton).
    if (req.installed.find("xformers")) ENVFIX_TRY_VOID(root(companion("xformers", rel.companions.xformers), true));
    if (req.installed.find("triton")) ENVFIX_TRY_VOID(root(companion("triton", rel.companions.triton), true));

    return roots;
}

}  // namespace

Expected<Plan> compute_plan(const matrix::Matrix& m, const PlanRequest& req, Reporter& reporter) {
    Plan plan;
    plan.offline = req.offline;
    plan.target = target_of(req);
    matrix::PolicyRequest preq = policy_request(req);
    matrix::PolicyResult first = choose(m, preq);
    if (first.code == ExitCode::Usage) return unexpected(Error{ExitCode::Usage, first.error});
    if (!first.ok) {
        plan.alternatives = alternatives_of(first.alternatives);
        plan.failure = PlanFailure{first.code, first.error, first.hints};
        return plan;
    }
    if (req.offline) {
        take_choice(plan, first);
        return plan;
    }
    if (!req.python) return fail(ExitCode::Usage, "plan.needs_python");

    // Online: the index decides which of the builds that fit can be had.
    const probe::PythonFacts& py = *req.python;
    standards::SupportedTags tags = standards::supported_tags(py);
    auto python = standards::Version::try_parse(py.version);
    if (!python) python = standards::Version::try_parse(std::to_string(py.major) + "." + std::to_string(py.minor));
    if (!python) return fail(ExitCode::EnvBroken, "plan.bad_python_version", {{"version", py.version}});
    plan.target.best_tag = tags.tags().empty() ? "" : tags.tags().front().to_string();

    network::detail::PageFetcher pages(req.sources.http, reporter, req.sources.parallel);
    detail::WheelInfoFetcher info(pages, req.sources.keep_whole_wheel);
    detail::FrameworkFinder finder(pages, info, req, tags, *python, plan.target.best_tag);

    // The first choice and the other variants of its release that fit, fetched at once; what a
    // fallback needs beyond them comes when it is needed.
    std::vector<std::pair<bool, std::string>> wanted{{first.release->channel == matrix::Channel::Nightly, first.variant->name}};
    for (const auto& v : first.release->variants) {
        std::pair<bool, std::string> key{first.release->channel == matrix::Channel::Nightly, v.name};
        if (std::find(wanted.begin(), wanted.end(), key) == wanted.end() && evaluate(m, preq, *first.release, v).fits())
            wanted.push_back(key);
    }
    finder.prefetch(wanted);

    matrix::Matrix work = m;
    std::vector<PlanAlternative> misses;
    std::optional<FrameworkPick> pick;
    matrix::PolicyResult chosen;
    bool any_page = false;
    std::string first_missing_page;
    // Each round removes one release x variant, so this ends; the bound only guards the data.
    for (size_t round = 0; round < 1000; ++round) {
        matrix::PolicyResult r = choose(work, preq);
        if (!r.ok) break;
        ENVFIX_TRY(auto found, finder.find(*r.release, *r.variant));
        if (auto* p = std::get_if<FrameworkPick>(&found)) {
            pick = std::move(*p);
            chosen = std::move(r);
            break;
        }
        auto& miss = std::get<FrameworkMiss>(found);
        if (!miss.no_page)
            any_page = true;
        else if (first_missing_page.empty())
            first_missing_page = miss.why.arg("url");
        misses.push_back({r.release->torch, r.variant->name, std::string(to_string(r.release->channel)), true, {miss.why}});
        reporter.debug(miss.why);
        drop_variant(work, r.release->torch, r.release->channel, r.variant->name);
    }
    if (!pick) {
        // Not one torch page: the URL is wrong, or not a PyTorch index (one without these
        // variants still has the cpu one).
        if (!any_page && !first_missing_page.empty()) {
            if (req.framework_source == FrameworkSource::Indexes)
                return fail(ExitCode::HttpStatus, "plan.index.torch_missing",
                            {{"indexes", network::redact_text(str::join(req.sources.indexes, ", "))}});
            auto cpu = pages.page({variant_index_urls(req.sources, false, "cpu"), "torch"});
            if (cpu.error) return unexpected(*cpu.error);
            if (cpu.missing)
                return fail(ExitCode::HttpStatus, "plan.index.not_found",
                            {{"url", first_missing_page},
                             {"root", req.sources.pytorch_roots.empty() ? "" : network::redact_url(req.sources.pytorch_roots.front())}});
        }
        take_choice(plan, first);
        plan.alternatives.insert(plan.alternatives.begin(), misses.begin(), misses.end());
        std::vector<Message> hints;
        for (const auto& miss : misses) {
            const Message& m = miss.why.front();
            bool seen = std::any_of(hints.begin(), hints.end(), [&](const Message& h) { return h.key == m.key && h.args == m.args; });
            if (!seen) hints.push_back(m);
        }
        plan.failure = PlanFailure{ExitCode::NothingFits,
                                   msg("plan.index.nothing_fits", {{"python", python->to_string()}, {"tag", plan.target.best_tag}}), hints};
        plan.torch.clear();
        plan.variant.clear();
        return plan;
    }

    take_choice(plan, chosen);
    plan.torch = pick->torch.version.to_string();
    plan.framework_index = pick->framework_urls.empty() ? pick->page_url : network::redact_url(pick->framework_urls.front());
    // The index confirmed the release: the matrix's doubt about it no longer matters.
    plan.warnings.erase(std::remove_if(plan.warnings.begin(), plan.warnings.end(),
                                       [](const Message& w) { return w.key == "plan.warn.release_unconfirmed"; }),
                        plan.warnings.end());
    if (!misses.empty()) {
        plan.reasons.push_back(msg("plan.reason.index_fallback",
                                   {{"skipped", std::to_string(misses.size())}, {"torch", plan.release}, {"variant", plan.variant}}));
        plan.alternatives.insert(plan.alternatives.begin(), misses.begin(), misses.end());
    }
    plan.reasons.push_back(
        msg("plan.reason.index_found",
            {{"torch", plan.torch}, {"file", pick->torch.file.filename}, {"url", pick->page_url}, {"tag", plan.target.best_tag}}));
    if (pick->note) plan.warnings.push_back(*pick->note);

    const matrix::Release& rel = *chosen.release;
    const bool nightly = rel.channel == matrix::Channel::Nightly;
    ENVFIX_TRY(auto roots, root_requirements(*pick, rel, req));
    detail::ProviderSetup setup{req.sources.indexes, pick->framework_urls, nightly, &tags, *python, &req.installed};
    detail::PlanProvider provider(pages, info, setup);
    standards::MarkerEnvironment env = standards::marker_environment(py);
    ENVFIX_TRY(auto res, resolve(roots, provider, {env, req.max_resolve_steps}));
    reporter.debug(msg("plan.debug.resolved", {{"packages", std::to_string(res.packages.size())},
                                               {"steps", std::to_string(res.steps)},
                                               {"backjumps", std::to_string(res.backjumps)}}));
    for (const auto& d : res.dropped) {
        plan.warnings.push_back(msg("plan.warn.dropped", {{"name", d.name}, {"torch", plan.torch}}));
        plan.warnings.push_back(d.reason);
    }
    ENVFIX_TRY_VOID(detail::fill_changes(plan, res, provider, req, env, cuda_major_of(plan.variant), info, pages));
    plan.warnings.insert(plan.warnings.end(), provider.warnings().begin(), provider.warnings().end());
    if (res.backjumps && !mentions(plan.reasons, "plan.reason.backtracked"))
        plan.reasons.push_back(msg("plan.reason.backtracked", {{"count", std::to_string(res.backjumps)}}));
    return plan;
}

}  // namespace envfix::plan
