#pragma once
// Private to the planner: the resolver's candidates and dependencies, from the indexes and the
// environment. Torch packages come only from the framework's index (the chosen variant's, or
// the ordinary indexes when they carry the framework); every other project from the ordinary
// indexes in order, the first that has it (uv's first-index rule), else the variant index,
// which copies the framework's dependencies. An installed distribution is offered first when
// it may stay.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "envfix/network/page_fetch.hpp"
#include "envfix/plan/resolve.hpp"
#include "envfix/plan/wheel_select.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/marker.hpp"
#include "envfix/standards/tags.hpp"
#include "wheel_info.hpp"

namespace envfix::plan::detail {

struct ProviderSetup {
    std::vector<std::string> indexes;  // ordinary indexes, in order
    std::vector<std::string> framework_urls;  // the variant's index and its mirrors; empty: the framework
        // comes from `indexes` too
    bool nightly = false;  // pre-releases for torch packages
    const standards::SupportedTags* tags = nullptr;
    standards::Version python;
    const standards::InstalledSet* installed = nullptr;
};

class PlanProvider final : public ResolveProvider {
public:
    PlanProvider(network::detail::PageFetcher& pages, WheelInfoFetcher& info, ProviderSetup setup)
        : pages_(pages), info_(info), setup_(std::move(setup)) {}

    Expected<std::vector<ResolveCandidate>> candidates(const std::string& name) override;
    Expected<std::vector<standards::Requirement>> dependencies(const ResolveCandidate& c) override;
    void prefetch(const std::vector<std::string>& names) override;
    bool allows_prereleases(const std::string& name) const override;
    std::string describe(const ResolveCandidate& c) const override;

    // After resolving: the wheel behind a candidate, the index it came from, how its metadata
    // was read.
    const WheelCandidate* wheel(const ResolveCandidate& c) const;
    std::string index_of(const std::string& name) const;
    MetadataSource metadata_source(const ResolveCandidate& c) const;
    const standards::InstalledDist* installed(const std::string& name) const;
    // Ordinary indexes that could not be read and were passed over (once per index).
    const std::vector<Message>& warnings() const { return warnings_; }

    static constexpr size_t kInstalledId = static_cast<size_t>(-1);

private:
    struct Entry {
        std::vector<WheelCandidate> wheels;
        std::vector<ResolveCandidate> candidates;
        const standards::InstalledDist* installed = nullptr;
        std::string index;  // the page the wheels came from (redacted)
        std::map<size_t, MetadataSource> sources;
    };
    std::vector<network::detail::PageRequest> requests_for(const std::string& name) const;
    Expected<Entry*> entry(const std::string& name);
    bool keepable(const std::string& name, const standards::InstalledDist& d, const std::vector<WheelCandidate>& wheels) const;

    network::detail::PageFetcher& pages_;
    WheelInfoFetcher& info_;
    ProviderSetup setup_;
    std::map<std::string, Entry> entries_;
    std::vector<Message> warnings_;
    std::vector<std::string> failed_indexes_;
};

}  // namespace envfix::plan::detail
