#pragma once
// `envfix install` from the index: the plan (as `envfix plan` computes it) narrowed to what the
// command line names, and how it is shown. Kept apart from cmd_install.cpp because it includes
// the matrix (plan_request.hpp), which must not meet the index configuration in one file.
#include <set>
#include <string>
#include <vector>

#include "envfix/plan/plan.hpp"
#include "output.hpp"
#include "plan_command.hpp"

namespace envfix::cli {

struct IndexInstallChoice {
    plan::Plan plan;
    std::vector<plan::PlannedWheel> wheels;  // to fetch and install
    std::vector<std::string> remove;             // installed distributions that go (canonical names)
    std::set<std::string> requested;             // named on the command line (REQUESTED)
};

// The framework stack's names envfix installs from the index.
bool is_framework_package(const std::string& canonical_name);

// `requirements`: "torch==2.7.1", "torchvision" ... (empty: what `envfix plan` picks). Only the
// framework stack is planned; others are Usage errors ("install.not_framework"). A plan whose
// choice misses a named specifier is NothingFits. Throws Failure.
IndexInstallChoice plan_for_install(Context& ctx, PlanCliOptions o, const plan::PlanSources& sources,
                                    const std::vector<std::string>& requirements);

void print_install_plan(const plan::Plan& plan, bool verbose);
Json install_plan_json(const plan::Plan& plan);

}  // namespace envfix::cli
