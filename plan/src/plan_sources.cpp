// The planner's view of the index configuration: roots of the PyTorch index (and mirrors), other indexes.
#include "envfix/plan/plan_sources.hpp"

#include <algorithm>

#include "envfix/network/index_client.hpp"
#include "envfix/network/index_config.hpp"

namespace envfix::plan {

PlanSources plan_sources(const network::IndexConfig& config) {
    PlanSources s;
    s.pytorch_roots.push_back(config.pytorch_index.value);
    for (const auto& m : config.pytorch_mirrors.value)
        if (std::find(s.pytorch_roots.begin(), s.pytorch_roots.end(), m) == s.pytorch_roots.end()) s.pytorch_roots.push_back(m);
    s.indexes.push_back(config.index_url.value);
    for (const auto& u : config.extra_index_urls.value)
        if (std::find(s.indexes.begin(), s.indexes.end(), u) == s.indexes.end()) s.indexes.push_back(u);
    s.http = config.http_options();
    s.parallel = std::max(1, config.parallel_downloads.value);
    return s;
}

std::vector<std::string> variant_index_urls(const PlanSources& sources, bool nightly, std::string_view variant) {
    std::vector<std::string> out;
    for (const auto& root : sources.pytorch_roots) {
        auto u = pytorch_index_url(root, nightly ? network::IndexChannel::Nightly : network::IndexChannel::Stable, variant);
        if (std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
    }
    return out;
}

}  // namespace envfix::plan
