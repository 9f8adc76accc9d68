#pragma once
// Private to the planner: a resolution turned into the plan's lists: wheels to fetch (with sizes,
// fetched at once), distributions that stay, and what goes out with the old framework stack.
#include <optional>

#include "envfix/common/error.hpp"
#include "envfix/plan/plan.hpp"
#include "envfix/plan/planner.hpp"
#include "envfix/plan/resolve.hpp"
#include "envfix/standards/marker.hpp"
#include "plan_provider.hpp"

namespace envfix::plan::detail {

// `new_major`: the CUDA major of the chosen variant (nullopt for cpu): runtime wheels of another
// major that nothing staying needs go out.
Expected<void> fill_changes(Plan& plan, const Resolution& res, const PlanProvider& provider, const PlanRequest& req,
                            const standards::MarkerEnvironment& env, std::optional<int> new_major, WheelInfoFetcher& info,
                            network::detail::PageFetcher& pages);

}  // namespace envfix::plan::detail
