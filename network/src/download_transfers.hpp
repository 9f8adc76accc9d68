#pragma once
// The transfer loop of download_files() (downloader.hpp): every file's transfer, or its ranges',
// on one curl multi handle, at most `parallel` at once, largest first; retries with backoff; a
// file whose size an answer tells split into ranges on the fly; checked files sealed on threads of
// their own. What it leaves (a server that ignored Range, Ctrl-C, holes) download_files settles.
#include <deque>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "download_job.hpp"

namespace envfix::network::download {

class Transfers {
public:
    Transfers(const std::vector<DownloadItem>& items, std::vector<DownloadResult>& results, const HttpOptions& http, Reporter& rep,
              const DownloadOptions& options);
    ~Transfers();
    Transfers(const Transfers&) = delete;
    Transfers& operator=(const Transfers&) = delete;

    // Every item queued (split into ranges from the start where that pays), then transferred
    // until none is left or Ctrl-C; the checked files sealed and settled (DownloadOptions::flush).
    void run();
    // The files whose server ignored Range: their ranges' .part removed, their tasks ended. The
    // caller fetches them whole.
    std::vector<size_t> fetched_without_ranges();
    // Ctrl-C: every unfinished transfer stops; its bytes stay in the .part for next time, and a
    // split file not sealed keeps only its written prefix.
    void stop_unfinished();

private:
    Job* new_job(size_t i, int task);
    Job* range_job(Split* sp, const std::vector<PartProgress::Range>& plan, size_t r, int task);
    void queue(size_t i);
    void end_job(Job& j, bool ok);
    void launch(Job& j, const std::string& range);
    bool start(Job& j);
    bool start_range(Job& j);
    void fail_range(Job& j, Error why);
    void retry_later(Job& j, const Error& why);
    void retry_range(Job& j, const Error& why);
    void range_done(Job& j, CURLcode code);
    void whole_done(Job& j, CURLcode code);
    void transfer_ended(Job& j);
    void on_done(Job& j, CURLcode code);
    void take_learned_splits();
    void seal_all();

    const std::vector<DownloadItem>& items_;
    std::vector<DownloadResult>& results_;
    const HttpOptions& http_;
    Reporter& rep_;
    const DownloadOptions& options_;
    const size_t parallel_;
    const DownloadFlush flush_;
    const uint64_t min_range_;
    const Clock::time_point began_;
    std::vector<std::unique_ptr<Job>> jobs_;
    std::vector<std::unique_ptr<Split>> splits_;
    std::deque<Job*> waiting_;
    CURLM* multi_ = nullptr;
    size_t active_ = 0;
    std::vector<std::future<void>> sealing_;  // checked files being flushed and renamed
};

}  // namespace envfix::network::download
