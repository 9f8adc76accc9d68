#pragma once
// Private to the planner: what the plan needs of a wheel it has not downloaded: its METADATA
// (the PEP 658 file when the index offers one; else read out of the wheel with range requests;
// else, from a server that ignores Range, the whole wheel, downloaded and dropped again) and
// its size (the page's PEP 700 size, what a range answer told, else HEAD). What is read out of
// a wheel is kept in the HTTP cache under its sha256, so a second plan asks nothing again.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"
#include "envfix/network/index_page.hpp"
#include "envfix/network/page_fetch.hpp"
#include "envfix/plan/plan.hpp"

namespace envfix::plan::detail {

struct WheelInfo {
    std::string metadata;
    MetadataSource source = MetadataSource::Pep658;
    std::optional<uint64_t> size;
};

class WheelInfoFetcher {
public:
    explicit WheelInfoFetcher(network::detail::PageFetcher& pages,
                              std::function<std::filesystem::path(const std::string&, const std::string&)> keep = {})
        : pages_(pages), keep_(std::move(keep)) {}
    // Thread-safe; each wheel is read once per plan.
    Expected<WheelInfo> metadata(const network::IndexFile& file, std::string_view project);
    Expected<std::optional<uint64_t>> size(const network::IndexFile& file);

private:
    Expected<WheelInfo> read_metadata(const network::IndexFile& file, std::string_view project);
    Expected<WheelInfo> from_ranges(const network::IndexFile& file, std::string_view project);
    Expected<WheelInfo> from_whole_file(const network::IndexFile& file, std::string_view project, std::optional<uint64_t> size);
    std::optional<WheelInfo> cached(const network::IndexFile& file) const;
    void remember(const network::IndexFile& file, const WheelInfo& info) const;

    network::detail::PageFetcher& pages_;
    std::function<std::filesystem::path(const std::string&, const std::string&)> keep_;  // PlanSources::keep_whole_wheel
    std::mutex mu_;
    std::map<std::string, WheelInfo> known_;  // by URL
};

}  // namespace envfix::plan::detail
