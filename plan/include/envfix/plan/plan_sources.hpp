#pragma once
// Where a plan looks for wheels: the PyTorch index roots (main, then mirrors) for the framework's
// variant indexes, the ordinary indexes (--index-url, then --extra-index-url) for everything
// else, and the HTTP settings. A narrow value made from the configuration, so the planner
// depends on what it reads, not on the whole configuration.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/network/http_client.hpp"

namespace envfix::network {
struct IndexConfig;
}  // namespace envfix::network

namespace envfix::plan {

struct PlanSources {
    std::vector<std::string> pytorch_roots;  // main root first, then the mirrors
    std::vector<std::string> indexes;  // the index URL, then the extra ones
    network::HttpOptions http;
    int parallel = 4;  // requests at once (network.parallel-downloads)
    // Where a wheel downloaded whole to read its metadata (an index without PEP 658 files, a
    // server without Range) is kept, by its sha256 and file name: install passes the wheel
    // cache, so the wheel is not downloaded a second time; empty (plan), or an empty path
    // returned: the file is deleted once read.
    std::function<std::filesystem::path(const std::string& sha256, const std::string& filename)> keep_whole_wheel;
};

PlanSources plan_sources(const network::IndexConfig& config);

// The PyTorch index URLs of one variant, main root first: <root>/<variant>/ for the stable
// channel, <root>/nightly/<variant>/ for nightly.
std::vector<std::string> variant_index_urls(const PlanSources& sources, bool nightly, std::string_view variant);

}  // namespace envfix::plan
