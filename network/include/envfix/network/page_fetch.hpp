#pragma once
// For the planner (plan/): project pages and PEP 658 metadata files through the index client,
// fetched in parallel (a few threads, each with its own curl handle; the HTTP cache is shared on
// disk) and kept for the rest of the plan. 404 is "not on this index", not an error.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/network/http_client.hpp"
#include "envfix/network/index_page.hpp"

namespace envfix::network::detail {

struct PageResult {
    std::shared_ptr<const ProjectPage> page;  // set when found
    bool missing = false;  // every index answered 404/410
    std::optional<Error> error;  // any other failure
    std::string url;  // the project URL on the first index (redacted)
};

// One project on an index and its mirrors (tried in order).
struct PageRequest {
    std::vector<std::string> index_urls;
    std::string project;
};

class PageFetcher {
public:
    PageFetcher(const HttpOptions& http, Reporter& reporter, int parallel);
    ~PageFetcher();
    PageFetcher(const PageFetcher&) = delete;
    PageFetcher& operator=(const PageFetcher&) = delete;

    // Fetches what is not known yet, all at once; returns when every page is in.
    void prefetch(const std::vector<PageRequest>& requests);
    PageResult page(const PageRequest& request);
    // PEP 658 metadata, checked against the page's hash.
    Expected<std::string> core_metadata(const IndexFile& file);

    const HttpOptions& http_options() const;
    Reporter& reporter() const;
    // Runs the jobs on up to `parallel` threads; returns when all are done.
    void run_parallel(const std::vector<std::function<void()>>& jobs) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace envfix::network::detail
