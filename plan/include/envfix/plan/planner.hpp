#pragma once
// Computing a plan (plan.hpp): the policy's choice from the matrix (policy.hpp), then, online,
// the index: the chosen build's torch wheel for the target interpreter's tags (falling back to
// the next build that fits when the index lacks it, and saying why), torch's companions from the
// same variant's index, and their dependencies resolved (resolve.hpp) across the user's indexes,
// keeping what the environment already satisfies and listing what goes out with the old stack.
//
//   PlanRequest req;                    // machine, target interpreter, installed set, sources
//   auto plan = compute_plan(matrix, req, reporter);   // Expected<Plan>
//   if (plan && !plan->ok()) plan->failure->hints ...  // nothing fits: not an error value
//
// docs/plan.md describes the rules; `envfix install` calls compute_plan() directly.
#include <cstddef>
#include <optional>
#include <string>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/matrix/matrix.hpp"
#include "envfix/matrix/policy.hpp"
#include "envfix/plan/plan.hpp"
#include "envfix/plan/plan_sources.hpp"
#include "envfix/probe/python_facts.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/specifier.hpp"

namespace envfix::plan {

// Where torch and its companions come from.
enum class FrameworkSource {
    PytorchIndex,  // the chosen variant's index on the PyTorch index (and its mirrors)
    Indexes,  // the ordinary indexes, like any package: PyPI's builds (one variant per release,
    // read from each wheel's local label or metadata), a mirror, a repacked index
};

struct PlanRequest {
    matrix::Machine machine;  // GPUs, driver, platform, Python version ("3.12")
    bool this_machine = true;  // probed here (else described by options)
    matrix::ChannelChoice channel = matrix::ChannelChoice::Auto;
    std::optional<std::string> variant;  // --variant
    std::optional<standards::SpecifierSet> torch;  // --torch: the releases (and the torch version) allowed
    std::string torch_text;  // as the user wrote it, for messages
    // The target interpreter (probed, or synthetic_facts() for another machine): tags, markers,
    // Requires-Python. Needed unless offline.
    std::optional<probe::PythonFacts> python;
    std::string environment;  // the environment's folder, for the record
    standards::InstalledSet installed;  // what it has (empty when planning for another machine)
    bool offline = false;  // the matrix alone: no index, no network
    PlanSources sources;
    FrameworkSource framework_source = FrameworkSource::PytorchIndex;
    size_t max_resolve_steps = 20000;
};

// Errors: Usage (an unknown --variant; online without a target interpreter), the index's and
// the network's errors (HttpStatus when the framework's page itself is missing everywhere,
// BadIndexPage, Network, Tls ...), DependencyConflict, BadWheel (a wheel whose metadata cannot be
// read). Nothing fitting the machine is a Plan with `failure` set (NothingFits).
Expected<Plan> compute_plan(const matrix::Matrix& matrix, const PlanRequest& request, Reporter& reporter);

}  // namespace envfix::plan
