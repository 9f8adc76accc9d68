// The Prepare stage of `envfix install` from an index (index_preparation.hpp).
#include "index_preparation.hpp"

#include <algorithm>
#include <chrono>

#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "install_run.hpp"

namespace envfix::cli {

IndexPreparation::IndexPreparation(std::vector<installer::WheelFetch> wheels, const plan::PlanSources& sources, bool offline,
                                   const std::vector<std::filesystem::path>& site_packages, const std::filesystem::path& env_root,
                                   const std::set<std::string>& names, unsigned threads, Context& ctx)
    : ctx_(ctx),
      wheels_(std::move(wheels)),
      http_(sources.http),
      keep_(std::make_shared<const installer::InstalledContent>(installer::installed_content(site_packages, env_root, names))),
      ahead_(installer::unpacked_cache_root(), 0, threads, keep_->by_hash.empty() ? nullptr : keep_) {
    // A switch waits for torch's largest library, one deflate stream: it is inflated on the cores
    // a cold install would keep busy with the other wheels (docs/inflate-parallel.md).
    ahead_.lend_inflate_helpers(installer::inflate_helpers_for(wheels_.size()));
    auto ready = [this](const std::filesystem::path& file, const std::string& sha256) { ahead_.add(file, sha256); };
    // A large wheel fetched in ranges: its large libraries inflated as their bytes arrive.
    auto split = [this](const std::filesystem::path& part, const std::string& sha256, std::shared_ptr<network::PartProgress> progress) {
        ahead_.early(part, sha256, std::move(progress));
    };
    const int parallel = sources.parallel;
    fetching_ = std::async(std::launch::async, [this, ready, split, offline, parallel] {
        return installer::fetch_wheels(installer::wheel_cache_root(), wheels_, http_, offline, parallel, *ctx_.reporter, ready,
                                       ahead_.reads_early() ? installer::WheelSplit(split) : installer::WheelSplit{},
                                       network::DownloadFlush::Leave, &flushing_);
    });
}

IndexPreparation::~IndexPreparation() {
    if (fetching_.valid()) fetching_.wait();
}

Expected<std::vector<std::filesystem::path>> IndexPreparation::files() {
    ENVFIX_TRY(fetched_, fetching_.get());
    std::vector<std::filesystem::path> files;
    for (const auto& f : fetched_) files.push_back(f.file);
    return files;
}

Expected<void> IndexPreparation::unpacked() {
    if (settled_) return {};
    settled_ = true;
    auto started = std::chrono::steady_clock::now();
    auto outcome = ahead_.finish();
    // The unpacking threads' arenas keep what they freed; the install's staging and commit come
    // next, on the memory given back. Nothing inflated (a warm install): nothing to give back, and
    // malloc_trim's walk over the heap took 15-19 ms of a 0.12 s install.
    if (outcome.files > 0 || outcome.early_taken > 0 || outcome.early_refused > 0) platform::release_free_memory();
    report_unpacking(outcome, std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count());
    return {};
}

// A wheel that could not be made durable is gone from the cache: the install stops before it
// changes anything, as it would have had the download failed.
Expected<void> IndexPreparation::durable() {
    if (!flushing_) return {};
    auto failed = flushing_->wait(*ctx_.reporter);
    if (!failed.empty()) return unexpected(std::move(failed.front().second));
    return {};
}

Expected<void> IndexPreparation::finish() {
    Expected<void> out;
    if (fetching_.valid()) {  // the install stopped before it took the wheels
        auto got = fetching_.get();
        if (got)
            fetched_ = std::move(*got);
        else
            out = unexpected(std::move(got).error());
    }
    (void)unpacked();
    (void)durable();
    return out;
}

// -vv: what the unpacking did, and the files inflated early that ended last: what it waited for,
// and whether on their bytes (read late) or on their inflating, hashing and writing.
void IndexPreparation::report_unpacking(const installer::UnpackAhead::Outcome& outcome, long long ms) {
    ctx_.reporter->debug(msg("install.debug.unpacked_ahead", {{"unpacked", std::to_string(outcome.unpacked)},
                                                              {"present", std::to_string(outcome.present)},
                                                              {"runners", std::to_string(outcome.runners)},
                                                              {"ms", std::to_string(ms)}}));
    for (const auto& b : outcome.batches) {
        if (b.files == 0) continue;  // wheels found unpacked already (a warm install's 30 lines)
        ctx_.reporter->debug(msg("install.debug.unpack_batch", {{"wheels", std::to_string(b.wheels)},
                                                                {"files", std::to_string(b.files)},
                                                                {"from", std::to_string(b.from_ms)},
                                                                {"to", std::to_string(b.to_ms)}}));
        // Where a wheel read while it downloaded spent the time after its check.
        if (b.early_ms)
            ctx_.reporter->debug(
                msg("install.debug.unpack_batch_split",
                    {{"early", std::to_string(b.early_ms)}, {"staged", std::to_string(b.staged_ms)}, {"rest", std::to_string(b.rest_ms)}}));
    }
    if (outcome.kept_vouched + outcome.kept_read > 0)
        ctx_.reporter->debug(msg("install.debug.kept_linked",
                                 {{"vouched", std::to_string(outcome.kept_vouched)}, {"read", std::to_string(outcome.kept_read)}}));
    if (outcome.early_wheels > 0)
        ctx_.reporter->debug(msg("install.debug.unpacked_early", {{"wheels", std::to_string(outcome.early_wheels)},
                                                                  {"taken", std::to_string(outcome.early_taken)},
                                                                  {"refused", std::to_string(outcome.early_refused)}}));
    auto files = outcome.early_files;
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.end_ms > b.end_ms; });
    if (files.size() > 6) files.resize(6);
    for (const auto& f : files) {
        ctx_.reporter->debug(msg(f.joined_ms ? "install.debug.early_file_joined"
                                 : f.workers ? "install.debug.early_file_parallel"
                                             : "install.debug.early_file",
                                 {{"name", f.name},
                                  {"size", str::human_bytes(f.size)},
                                  {"compressed", str::human_bytes(f.compressed)},
                                  {"first", std::to_string(f.first_ms)},
                                  {"bytes", std::to_string(f.bytes_ms)},
                                  {"end", std::to_string(f.end_ms)},
                                  {"workers", std::to_string(f.workers)},
                                  {"joined", std::to_string(f.joined_ms)},
                                  {"decoded", str::human_bytes(f.joined_at)}}));
        ctx_.reporter->debug(msg("install.debug.early_file_times", {{"between", std::to_string(f.times.between)},
                                                                    {"handing", std::to_string(f.times.handing)},
                                                                    {"full", std::to_string(f.times.full)},
                                                                    {"hashing", std::to_string(f.times.hashing)},
                                                                    {"writing", std::to_string(f.times.writing)},
                                                                    {"reading", std::to_string(f.times.reading)}}));
    }
    for (const auto& e : outcome.errors) ctx_.reporter->debug(e.message);
}

}  // namespace envfix::cli
