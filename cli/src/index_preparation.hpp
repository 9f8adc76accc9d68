#pragma once
// The Prepare stage of `envfix install` from an index (envfix/installer/prepared_wheels.hpp): the
// wheels from the wheel cache or downloaded into it on a thread of their own, each unpacked into
// the unpacked-wheel cache as soon as it is checked, while the install plans and stages beside.
#include <filesystem>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "envfix/installer/prepared_wheels.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/installer/wheel_cache.hpp"
#include "envfix/plan/plan_sources.hpp"

namespace envfix::cli {

struct Context;

class IndexPreparation final : public installer::PreparedWheels {
public:
    // Starts at once. names: the distributions the wheels are of (a switch links the files the
    // installed builds share with the new ones instead of inflating them); threads: --threads.
    IndexPreparation(std::vector<installer::WheelFetch> wheels, const plan::PlanSources& sources, bool offline,
                     const std::vector<std::filesystem::path>& site_packages, const std::filesystem::path& env_root,
                     const std::set<std::string>& names, unsigned threads, Context& ctx);
    ~IndexPreparation() override;

    Expected<std::vector<std::filesystem::path>> files() override;
    bool wants_present() const override { return !keep_->by_hash.empty(); }
    void present(std::shared_ptr<const installer::KnownInstalled> known) override { ahead_.know_present(std::move(known)); }
    Expected<void> unpacked() override;
    Expected<void> durable() override;

    // Once the install has returned: the downloads ended (where the install stopped before it
    // took the wheels, their error), the unpacking and the flush waited for.
    Expected<void> finish();
    const std::vector<installer::FetchedWheel>& fetched() const { return fetched_; }

private:
    void report_unpacking(const installer::UnpackAhead::Outcome& outcome, long long ms);

    Context& ctx_;
    std::vector<installer::WheelFetch> wheels_;
    network::HttpOptions http_;
    std::shared_ptr<const installer::InstalledContent> keep_;
    installer::UnpackAhead ahead_;
    // The downloaded wheels are not flushed one by one (DownloadFlush::Leave): they are a cache,
    // unpacked before the commit, whose flush then writes only the environment's new files. Where
    // this boot has no identity (Windows) they are flushed together, left running here.
    std::unique_ptr<network::PendingFlush> flushing_;
    std::vector<installer::FetchedWheel> fetched_;
    std::future<Expected<std::vector<installer::FetchedWheel>>> fetching_;  // declared last: waited for first
    bool settled_ = false;
};

}  // namespace envfix::cli
