#pragma once
// An app's side of a framework change, before anything changes: the plan's versions (what it
// installs and keeps) checked against the app's constraints (apps/app_constraints.hpp), the
// companions (torchvision, torchaudio, xformers) the app needs at a version the plan does not
// bring, and whether the change may go ahead. Pure; `envfix apply` and `envfix install --app`
// call it after planning and before installing (docs/apps.md#aligning-an-app-with-a-plan).
//
//   AppCheckInput in = ...;                 // profile, installed set, matrix, requirement files
//   AppAlignment a = align_app(plan, std::move(in));
//   for (const auto& f : a.constraints.findings) reporter.warn(f.message);
//   if (a.blocked()) stop with a.reasons() (ExitCode::RequirementsUnmet) — nothing changed
#include <vector>

#include "envfix/apps/app_constraints.hpp"
#include "envfix/common/message.hpp"
#include "envfix/plan/plan.hpp"

namespace envfix::installer {

// The versions the environment holds after the plan: every wheel it installs and every
// distribution it keeps (torch first when present).
std::vector<apps::PlannedPackage> plan_packages(const plan::Plan& plan);

struct AppAlignment {
    apps::AppConstraints constraints;  // findings in order: torch range, companions, requirements, notes
    // Companions the app needs changed whose needed version the plan neither installs nor keeps
    // (a local label is compared only when the needed version names one).
    std::vector<apps::CompanionChange> not_in_plan;
    bool blocked() const { return constraints.has_conflicts() || !not_in_plan.empty(); }
    // One sentence per conflict and per missing companion (apps.finding.* / apply.companion_not_in_plan).
    std::vector<Message> reasons() const;
};

// `in.planned` is replaced by plan_packages(plan).
AppAlignment align_app(const plan::Plan& plan, apps::AppCheckInput in);

// The same check when the plan's packages were already checked (check_app_target() read the
// app's files): the companion comparison alone.
AppAlignment align_app(const plan::Plan& plan, apps::AppConstraints checked);

}  // namespace envfix::installer
