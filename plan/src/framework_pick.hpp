#pragma once
// Private to the planner: is a release x variant the policy chose installable from the index?
// The torch wheel for the target's tags, or one line saying why not (no page for the variant,
// no such version, no wheel for this tag, Requires-Python, yanked, another variant's build).
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/matrix/matrix.hpp"
#include "envfix/network/page_fetch.hpp"
#include "envfix/plan/planner.hpp"
#include "envfix/plan/wheel_select.hpp"
#include "wheel_info.hpp"

namespace envfix::plan::detail {

struct FrameworkPick {
    WheelCandidate torch;
    std::vector<std::string> framework_urls;  // the variant's index and mirrors; empty: ordinary indexes
    std::string page_url;  // where the torch wheel was found (redacted)
    std::optional<Message> note;  // e.g. the variant was assumed, not read
};

struct FrameworkMiss {
    Message why;
    bool no_page = false;  // the variant's torch page is not on the index
    std::optional<std::string> other_variant;  // the index's build of this release is another variant
};

class FrameworkFinder {
public:
    FrameworkFinder(network::detail::PageFetcher& pages, WheelInfoFetcher& info, const PlanRequest& req,
                    const standards::SupportedTags& tags, standards::Version python, std::string best_tag);

    // Fetches, all at once, the torch pages of every variant that could be chosen.
    void prefetch(const std::vector<std::pair<bool, std::string>>& nightly_variant);
    Expected<std::variant<FrameworkPick, FrameworkMiss>> find(const matrix::Release& r, const matrix::Variant& v);

private:
    std::vector<network::detail::PageRequest> requests(bool nightly, const std::string& variant) const;
    FrameworkMiss explain(const network::ProjectPage& page, const matrix::Release& r, const matrix::Variant& v, bool flat) const;

    network::detail::PageFetcher& pages_;
    WheelInfoFetcher& info_;
    const PlanRequest& req_;
    const standards::SupportedTags& tags_;
    standards::Version python_;
    std::string best_tag_;
};

}  // namespace envfix::plan::detail
