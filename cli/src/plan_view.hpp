#pragma once
// How a plan is shown: `envfix plan --json` (docs/json.md "envfix plan") and the text: the choice
// first, then why, warnings, the alternatives, and the packages (install / keep / remove).
#include "envfix/plan/plan.hpp"
#include "output.hpp"

namespace envfix::cli {

Json plan_json(const plan::Plan& plan);
// `verbose`: every alternative, not the first few.
void print_plan(const plan::Plan& plan, bool verbose);

}  // namespace envfix::cli
