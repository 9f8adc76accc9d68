#pragma once
// A small dependency resolver (pure: candidates and their Requires-Dist come from a provider, the
// planner's reads an index and the environment). Rules:
//   - one version per project; names are PEP 503-normalised;
//   - candidates in the provider's order (the installed distribution first when it may stay,
//     then newest first); a candidate must satisfy every constraint gathered so far; pre-releases
//     only when a constraint names one, the project allows them (nightly), or nothing else fits;
//     yanked files only for an exact pin (PEP 592);
//   - Requires-Dist markers are evaluated for the target interpreter and the extras asked of the
//     project; extras asked later of a project already decided add their requirements then;
//   - a conflict backtracks to the most recent decision that took part in it (conflict-directed
//     backjumping), so unrelated decisions are not retried; the order is fixed (first-come names,
//     provider order), so the same input always gives the same answer;
//   - the work is bounded (max_steps candidate tries), then it gives up with DependencyConflict;
//   - optional roots (torchvision, xformers ...) that cannot be had are dropped, with the reason.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/message.hpp"
#include "envfix/standards/marker.hpp"
#include "envfix/standards/requirement.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::plan {

struct ResolveCandidate {
    std::string name;  // canonical
    standards::Version version;
    bool installed = false;  // the distribution already in the environment
    bool yanked = false;
    size_t id = 0;  // the provider's handle
};

class ResolveProvider {
public:
    virtual ~ResolveProvider() = default;
    // Every candidate of `name`, most preferred first. An empty list is "not found anywhere"
    // (a conflict, not an error); errors (network, bad page) stop the resolution.
    virtual Expected<std::vector<ResolveCandidate>> candidates(const std::string& name) = 0;
    // The Requires-Dist of a candidate, unevaluated.
    virtual Expected<std::vector<standards::Requirement>> dependencies(const ResolveCandidate& c) = 0;
    // Names the resolution will soon need: a provider may fetch them in parallel meanwhile.
    virtual void prefetch(const std::vector<std::string>& names) { (void)names; }
    // Pre-releases allowed for this project (nightly torch packages).
    virtual bool allows_prereleases(const std::string& name) const {
        (void)name;
        return false;
    }
    // "torch 2.7.0+cu128", "(installed) filelock 3.16.1": how messages name a candidate.
    virtual std::string describe(const ResolveCandidate& c) const;
};

struct RootRequirement {
    standards::Requirement requirement;
    bool optional = false;  // dropped (with a reason) when it cannot be satisfied
};

struct ResolveOptions {
    standards::MarkerEnvironment env;
    size_t max_steps = 20000;  // candidate tries before giving up
};

struct ResolvedPackage {
    ResolveCandidate candidate;
    std::vector<std::string> extras;  // extras asked of it
    std::vector<std::string> required_by;  // "torch 2.7.0+cu128", "" for a root
};

struct DroppedRoot {
    std::string name;
    Message reason;  // why it could not be had
};

struct Resolution {
    std::vector<ResolvedPackage> packages;  // in decision order
    std::vector<DroppedRoot> dropped;
    size_t steps = 0;  // candidate tries
    size_t backjumps = 0;  // decisions undone
};

// Errors: DependencyConflict (no choice satisfies every requirement; the message names the
// project, its requirements and who asked), DependencyConflict "resolve.too_many_steps", and the
// provider's own errors.
Expected<Resolution> resolve(const std::vector<RootRequirement>& roots, ResolveProvider& provider, const ResolveOptions& options);

}  // namespace envfix::plan
