// `envfix install` from the index: planning (install_index.hpp).
#include "install_index.hpp"

#include <algorithm>

#include "envfix/standards/names.hpp"
#include "envfix/standards/requirement.hpp"
#include "plan_request.hpp"
#include "plan_view.hpp"

namespace envfix::cli {

namespace {

// "torch 2.11.0+cu128" (a required_by entry) -> "torch".
std::string name_of(const std::string& who) { return standards::canonicalize_name(who.substr(0, who.find(' '))); }

}  // namespace

bool is_framework_package(const std::string& n) {
    return n == "torch" || n == "torchvision" || n == "torchaudio" || n == "xformers" || n == "triton" || n == "pytorch-triton";
}

IndexInstallChoice plan_for_install(Context& ctx, PlanCliOptions o, const plan::PlanSources& sources,
                                    const std::vector<std::string>& requirements) {
    std::vector<standards::Requirement> named;
    for (const auto& text : requirements) {
        auto r = standards::Requirement::parse(text);
        if (!r) throw Failure(ExitCode::Usage, "install.bad_requirement_arg", {{"item", text}, {"reason", render(r.error().message)}});
        if (!r->url.empty()) throw Failure(ExitCode::Usage, "install.requirement_url", {{"item", text}});
        if (!is_framework_package(r->canonical_name())) throw Failure(ExitCode::Usage, "install.not_framework", {{"item", text}});
        if (r->canonical_name() == "torch" && !r->specifier.empty()) {
            if (!o.torch.empty()) throw Failure(ExitCode::Usage, "install.torch_twice", {{"item", text}});
            o.torch = r->specifier.to_string();
        }
        named.push_back(std::move(*r));
    }
    matrix::Matrix matrix = load_plan_matrix(o);
    std::vector<Message> notes;
    plan::PlanRequest req = plan_request(ctx, o, matrix, sources, false, notes);
    if (!req.python) throw Failure(ExitCode::Usage, "install.needs_interpreter");
    IndexInstallChoice c;
    c.plan = value_or_throw(plan::compute_plan(matrix, req, *ctx.reporter));
    c.plan.warnings.insert(c.plan.warnings.begin(), notes.begin(), notes.end());
    if (c.plan.failure) return c;

    // Every named specifier must hold for the planned version.
    for (const auto& r : named) {
        c.requested.insert(r.canonical_name());
        auto it = std::find_if(c.plan.install.begin(), c.plan.install.end(), [&](const auto& w) { return w.canonical_name == r.canonical_name(); });
        std::string version;
        if (it != c.plan.install.end()) version = it->version;
        else if (auto k = std::find_if(c.plan.keep.begin(), c.plan.keep.end(), [&](const auto& d) { return d.canonical_name == r.canonical_name(); });
                 k != c.plan.keep.end())
            version = k->version;
        if (version.empty()) throw Failure(ExitCode::NothingFits, "install.not_in_plan", {{"item", r.to_string()}});
        auto v = standards::Version::parse(version);
        if (!r.specifier.empty() && (!v || !r.specifier.contains(*v, true)))
            throw Failure(ExitCode::NothingFits, "install.plan_misses", {{"item", r.to_string()}, {"version", version}});
    }

    // With names given: those, the companions they replace (an old torchvision cannot stay with
    // a new torch), and what they need. Without: the whole plan.
    if (named.empty()) {
        c.wheels = c.plan.install;
        for (const auto& w : c.plan.install)
            if (w.required_by.empty() || std::find(w.required_by.begin(), w.required_by.end(), "") != w.required_by.end())
                c.requested.insert(w.canonical_name);
    } else {
        std::set<std::string> wanted = c.requested;
        for (const auto& w : c.plan.install)
            if (w.replaces && is_framework_package(w.canonical_name)) wanted.insert(w.canonical_name);
        for (bool grew = true; grew;) {
            grew = false;
            for (const auto& w : c.plan.install) {
                if (wanted.count(w.canonical_name)) continue;
                for (const auto& by : w.required_by)
                    if (!by.empty() && wanted.count(name_of(by))) {
                        wanted.insert(w.canonical_name);
                        grew = true;
                        break;
                    }
            }
        }
        for (const auto& w : c.plan.install)
            if (wanted.count(w.canonical_name)) c.wheels.push_back(w);
    }
    for (const auto& d : c.plan.remove) c.remove.push_back(d.canonical_name);
    return c;
}

void print_install_plan(const plan::Plan& plan, bool verbose) { print_plan(plan, verbose); }
Json install_plan_json(const plan::Plan& plan) { return plan_json(plan); }

}  // namespace envfix::cli
