#include "envfix/plan/resolve.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "envfix/common/strings.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::plan {

std::string ResolveProvider::describe(const ResolveCandidate& c) const { return c.name + " " + c.version.to_string(); }

namespace {

struct Constraint {
    standards::SpecifierSet spec;
    std::string parent;  // canonical name of who asked; "" = a root
    std::string label;  // how messages name who asked
    std::string text;  // the requirement as written
};

struct Decision {
    ResolveCandidate candidate;
    const std::vector<standards::Requirement>* deps = nullptr;  // owned by the solver's cache
};

// Everything a branch of the search decided and asked; copied per decision, so backtracking is
// only dropping a copy (a torch stack has a few dozen projects).
struct State {
    std::map<std::string, Decision> decided;
    std::vector<std::string> order;
    std::map<std::string, std::vector<Constraint>> constraints;
    std::map<std::string, std::vector<std::string>> extras;
    std::deque<std::string> pending;
};

using NameSet = std::set<std::string>;

struct Failure {
    NameSet culprits;  // decisions that took part; empty: nothing earlier can fix it
};

class Solver {
public:
    Solver(ResolveProvider& p, const ResolveOptions& o) : provider_(p), opts_(o) {}

    // Expected<void>: an error only from the provider or the step bound; a conflict is `failed`.
    Expected<bool> solve(State s, State& out, Failure& failed);
    Expected<bool> add_requirement(State& s, const standards::Requirement& r, const std::string& parent, const std::string& label,
                                   NameSet& conflict);

    size_t steps = 0;
    size_t backjumps = 0;
    Message last_conflict;
    std::string last_conflict_name;

private:
    Expected<const std::vector<ResolveCandidate>*> candidates(const std::string& name);
    Expected<const std::vector<standards::Requirement>*> dependencies(const ResolveCandidate& c);
    Expected<std::vector<const standards::Requirement*>> applicable(const std::vector<standards::Requirement>& deps,
                                                                    const std::vector<std::string>& extras, bool only_extras);
    std::vector<const ResolveCandidate*> allowed(const State& s, const std::string& name, const std::vector<ResolveCandidate>& all);
    std::string who(const State& s, const std::string& name) const;

    ResolveProvider& provider_;
    const ResolveOptions& opts_;
    std::map<std::string, std::vector<ResolveCandidate>> cand_cache_;
    std::map<std::pair<std::string, size_t>, std::vector<standards::Requirement>> dep_cache_;
};

Expected<const std::vector<ResolveCandidate>*> Solver::candidates(const std::string& name) {
    auto it = cand_cache_.find(name);
    if (it != cand_cache_.end()) return &it->second;
    ENVFIX_TRY(auto list, provider_.candidates(name));
    return &cand_cache_.emplace(name, std::move(list)).first->second;
}

Expected<const std::vector<standards::Requirement>*> Solver::dependencies(const ResolveCandidate& c) {
    auto key = std::make_pair(c.name, c.id);
    auto it = dep_cache_.find(key);
    if (it != dep_cache_.end()) return &it->second;
    ENVFIX_TRY(auto deps, provider_.dependencies(c));
    return &dep_cache_.emplace(key, std::move(deps)).first->second;
}

// The requirements that hold for the target and these extras; `only_extras`: those the extras
// add to the ones that hold without any.
Expected<std::vector<const standards::Requirement*>> Solver::applicable(const std::vector<standards::Requirement>& deps,
                                                                        const std::vector<std::string>& extras, bool only_extras) {
    std::vector<const standards::Requirement*> out;
    for (const auto& r : deps) {
        ENVFIX_TRY(bool base, r.applies(opts_.env));
        bool with = base;
        if (!extras.empty()) {
            ENVFIX_TRY(bool e, r.applies(opts_.env, extras));
            with = e;
        }
        if (only_extras ? (with && !base) : (with || base)) out.push_back(&r);
    }
    return out;
}

std::string Solver::who(const State& s, const std::string& name) const {
    std::vector<std::string> parts;
    auto it = s.constraints.find(name);
    if (it == s.constraints.end()) return "";
    for (const auto& c : it->second) {
        std::string p = c.text + (c.label.empty() ? "" : " (" + c.label + ")");
        if (std::find(parts.begin(), parts.end(), p) == parts.end()) parts.push_back(p);
    }
    return str::join(parts, ", ");
}

std::vector<const ResolveCandidate*> Solver::allowed(const State& s, const std::string& name, const std::vector<ResolveCandidate>& all) {
    const auto& cons = s.constraints.at(name);
    bool implied = provider_.allows_prereleases(name);
    bool pinned_exactly = false;
    for (const auto& c : cons) {
        if (c.spec.implies_prereleases()) implied = true;
        for (const auto& sp : c.spec.specifiers())
            if ((sp.op() == standards::SpecOp::Equal && !sp.is_wildcard()) || sp.op() == standards::SpecOp::Arbitrary)
                pinned_exactly = true;
    }
    auto pick = [&](bool pre) {
        std::vector<const ResolveCandidate*> out;
        for (const auto& c : all) {
            if (c.yanked && !pinned_exactly) continue;
            if (!pre && c.version.is_prerelease()) continue;
            bool ok = std::all_of(cons.begin(), cons.end(), [&](const Constraint& k) { return k.spec.contains(c.version, true); });
            if (ok) out.push_back(&c);
        }
        return out;
    };
    auto out = pick(implied);
    if (out.empty() && !implied) out = pick(true);  // PEP 440: pre-releases when nothing else fits
    return out;
}

Expected<bool> Solver::add_requirement(State& s, const standards::Requirement& r, const std::string& parent, const std::string& label,
                                       NameSet& conflict) {
    std::string name = r.canonical_name();
    s.constraints[name].push_back({r.specifier, parent, label, r.to_string()});
    std::vector<std::string> fresh;
    auto& asked = s.extras[name];
    for (const auto& x : r.extras) {
        std::string e = standards::canonicalize_name(x);
        if (std::find(asked.begin(), asked.end(), e) == asked.end()) {
            asked.push_back(e);
            fresh.push_back(e);
        }
    }
    auto d = s.decided.find(name);
    if (d == s.decided.end()) {
        if (std::find(s.pending.begin(), s.pending.end(), name) == s.pending.end()) s.pending.push_back(name);
        return true;
    }
    const ResolveCandidate& have = d->second.candidate;
    if (!r.specifier.contains(have.version, true)) {
        conflict.insert(name);
        if (!parent.empty()) conflict.insert(parent);
        last_conflict_name = name;
        last_conflict = msg("resolve.conflict_decided", {{"who", label.empty() ? "the plan" : label},
                                                         {"requirement", r.to_string()},
                                                         {"chosen", provider_.describe(have)},
                                                         {"asked", who(s, name)}});
        return false;
    }
    if (fresh.empty()) return true;
    // Extras asked of a project already decided bring their own requirements now.
    ENVFIX_TRY(auto more, applicable(*d->second.deps, fresh, true));
    std::string me = provider_.describe(have);
    for (const standards::Requirement* dep : more) {
        ENVFIX_TRY(bool ok, add_requirement(s, *dep, name, me, conflict));
        if (!ok) return false;
    }
    return true;
}

Expected<bool> Solver::solve(State s, State& out, Failure& failed) {
    if (s.pending.empty()) {
        out = std::move(s);
        return true;
    }
    std::string name = s.pending.front();
    s.pending.pop_front();
    ENVFIX_TRY(auto all, candidates(name));
    auto choices = allowed(s, name, *all);

    NameSet why;  // culprits gathered over every candidate tried here
    for (const auto& c : s.constraints.at(name))
        if (!c.parent.empty()) why.insert(c.parent);
    if (choices.empty()) {
        last_conflict_name = name;
        if (all->empty()) {
            last_conflict = msg("resolve.not_found", {{"name", name}, {"asked", who(s, name)}});
        } else {
            std::vector<std::string> versions;
            for (const auto& c : *all) {
                std::string v = c.version.to_string() + (c.installed ? " (installed)" : "") + (c.yanked ? " (yanked)" : "");
                if (std::find(versions.begin(), versions.end(), v) == versions.end() && versions.size() < 8) versions.push_back(v);
            }
            last_conflict = msg("resolve.no_version", {{"name", name}, {"asked", who(s, name)}, {"available", str::join(versions, ", ")}});
        }
        failed.culprits = why;
        return false;
    }

    for (const ResolveCandidate* c : choices) {
        if (++steps > opts_.max_steps)
            return fail(ExitCode::DependencyConflict, "resolve.too_many_steps", {{"steps", std::to_string(opts_.max_steps)}});
        ENVFIX_TRY(auto deps, dependencies(*c));
        State next = s;
        next.decided[name] = Decision{*c, deps};
        next.order.push_back(name);
        ENVFIX_TRY(auto reqs, applicable(*deps, s.extras[name], false));
        NameSet conflict;
        bool ok = true;
        std::string me = provider_.describe(*c);
        std::vector<std::string> fresh_names;
        for (const standards::Requirement* r : reqs) {
            bool known = next.constraints.count(r->canonical_name()) > 0;
            ENVFIX_TRY(bool added, add_requirement(next, *r, name, me, conflict));
            if (!added) {
                ok = false;
                break;
            }
            if (!known) fresh_names.push_back(r->canonical_name());
        }
        if (!ok) {
            conflict.erase(name);
            why.insert(conflict.begin(), conflict.end());
            continue;
        }
        if (!fresh_names.empty()) provider_.prefetch(fresh_names);
        Failure deeper;
        ENVFIX_TRY(bool solved, solve(std::move(next), out, deeper));
        if (solved) return true;
        if (!deeper.culprits.count(name)) {
            // Nothing this decision could change: jump over it.
            ++backjumps;
            failed = std::move(deeper);
            return false;
        }
        ++backjumps;
        deeper.culprits.erase(name);
        why.insert(deeper.culprits.begin(), deeper.culprits.end());
    }
    why.erase(name);
    failed.culprits = std::move(why);
    return false;
}

}  // namespace

Expected<Resolution> resolve(const std::vector<RootRequirement>& roots, ResolveProvider& provider, const ResolveOptions& options) {
    Resolution res;
    std::vector<bool> dropped(roots.size(), false);
    Solver solver(provider, options);
    for (;;) {
        State start;
        NameSet conflict;
        bool ok = true;
        std::vector<std::string> names;
        for (size_t i = 0; i < roots.size() && ok; ++i) {
            if (dropped[i]) continue;
            ENVFIX_TRY(ok, solver.add_requirement(start, roots[i].requirement, "", "", conflict));
            names.push_back(roots[i].requirement.canonical_name());
        }
        if (ok) {
            provider.prefetch(names);
            State done;
            Failure failed;
            ENVFIX_TRY(bool solved, solver.solve(std::move(start), done, failed));
            if (solved) {
                for (const auto& name : done.order) {
                    ResolvedPackage p;
                    p.candidate = done.decided.at(name).candidate;
                    p.extras = done.extras[name];
                    for (const auto& c : done.constraints[name])
                        if (std::find(p.required_by.begin(), p.required_by.end(), c.label) == p.required_by.end())
                            p.required_by.push_back(c.label);
                    res.packages.push_back(std::move(p));
                }
                res.steps = solver.steps;
                res.backjumps = solver.backjumps;
                return res;
            }
        }
        // Drop an optional root: the one the conflict names, else the last one still asked for.
        std::optional<size_t> victim;
        for (size_t i = roots.size(); i-- > 0;) {
            if (dropped[i] || !roots[i].optional) continue;
            if (roots[i].requirement.canonical_name() == solver.last_conflict_name) {
                victim = i;
                break;
            }
            if (!victim) victim = i;
        }
        if (!victim) {
            if (solver.last_conflict.empty()) return fail(ExitCode::DependencyConflict, "resolve.failed");
            return unexpected(Error{ExitCode::DependencyConflict, solver.last_conflict});
        }
        dropped[*victim] = true;
        res.dropped.push_back({roots[*victim].requirement.canonical_name(), solver.last_conflict});
    }
}

}  // namespace envfix::plan
