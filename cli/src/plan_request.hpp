#pragma once
// The planner's request made from `envfix plan`'s options (plan_command.hpp): the matrix, the
// machine (probed, or described by --gpu/--driver/--os/--arch), the target environment with its
// interpreter facts and installed distributions. `envfix install` builds its plan the same way.
// Includes the matrix: keep it out of files that include the index configuration.
#include "envfix/matrix/matrix.hpp"
#include "envfix/plan/planner.hpp"
#include "plan_command.hpp"

namespace envfix::cli {

// The built-in matrix, or --profiles DIR. Throws Failure (ProfileInvalid, BadInput).
matrix::Matrix load_plan_matrix(const PlanCliOptions& o);

// Throws Failure: Usage (bad option values), BadInput (unknown GPU name), EnvNotFound/EnvBroken
// (the environment named), the probe's failure when a driver is there but broken. What is worth
// telling (no GPU seen: the CPU build) goes into `notes`, for the plan's warnings.
plan::PlanRequest plan_request(Context& ctx, PlanCliOptions o, const matrix::Matrix& matrix, const plan::PlanSources& sources, bool offline,
                               std::vector<Message>& notes);

}  // namespace envfix::cli
