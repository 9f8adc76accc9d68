// The transfer loop (download_transfers.hpp).
#include "download_transfers.hpp"

#include <algorithm>
#include <system_error>

#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network::download {

Transfers::Transfers(const std::vector<DownloadItem>& items, std::vector<DownloadResult>& results, const HttpOptions& http, Reporter& rep,
                     const DownloadOptions& options)
    : items_(items),
      results_(results),
      http_(http),
      rep_(rep),
      options_(options),
      parallel_(static_cast<size_t>(std::max(1, options.parallel))),
      flush_(chosen_flush(options.flush)),
      min_range_(options.min_range ? options.min_range : uint64_t{16} << 20),
      began_(Clock::now()) {
    multi_ = curl_multi_init();
    curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
}

Transfers::~Transfers() {
    for (auto& j : jobs_)
        if (j->easy) curl_multi_remove_handle(multi_, j->easy->h);
    for (auto& j : jobs_) j->easy.reset();
    curl_multi_cleanup(multi_);
}

Job* Transfers::new_job(size_t i, int task) {
    auto j = std::make_unique<Job>();
    j->item = &items_[i];
    j->result = &results_[i];
    j->part = part_path(items_[i].dest);
    j->rep = &rep_;
    j->began = began_;
    j->flush = flush_;
    j->index = i;
    j->on_ready = &options_.on_ready;
    j->task = task;
    j->max_download = http_.max_download;
    jobs_.push_back(std::move(j));
    return jobs_.back().get();
}

// Range r of a split file's plan, as a job of its own.
Job* Transfers::range_job(Split* sp, const std::vector<PartProgress::Range>& plan, size_t r, int task) {
    auto* j = new_job(sp->item, task);
    j->split = sp;
    sp->ranges.push_back(j);
    j->range_at = plan[r].at;
    j->range_len = plan[r].length;
    j->range_no = r;
    return j;
}

void Transfers::queue(size_t i) {
    // Every file gets its task at once, so the reporter's total covers the whole batch.
    const auto& item = items_[i];
    int task = rep_.task_begin(msg("download.task", {{"name", label_of(item)}}), item.size.value_or(0));
    const bool tail = static_cast<bool>(options_.on_split);
    if (!split_from_start(item, options_, parallel_)) {
        auto j = new_job(i, task);
        if (!item.size) {
            j->split_at = options_.split_at;  // may split once the size is known
            j->parallel = parallel_;
            j->tail = tail;
            j->min_range = min_range_;
        }
        waiting_.push_back(j);
        return;
    }
    const uint64_t size = item.size.value_or(0);
    auto plan = range_plan(size, parallel_, tail, min_range_);
    splits_.push_back(std::make_unique<Split>());
    Split* sp = splits_.back().get();
    sp->item = i;
    sp->file = part_path(item.dest);
    sp->left = plan.size();
    sp->total = size;
    sp->progress = std::make_shared<PartProgress>(plan, size);
    start_hash(*sp);
    // The tail (the last range) first, so its reader learns what the file holds at once.
    for (size_t k = 0; k < plan.size(); ++k) waiting_.push_back(range_job(sp, plan, tail ? (k + plan.size() - 1) % plan.size() : k, task));
    if (tail) options_.on_split(i, sp->file, sp->progress);
}

void Transfers::end_job(Job& j, bool ok) {
    j.close_file();
    // The ranges of a split file share its task: closed once.
    bool* ended = j.split ? &j.split->ended : &j.ended;
    if (!*ended) rep_.task_end(j.task, ok);
    *ended = true;
    j.ended = true;
}

void Transfers::launch(Job& j, const std::string& range) {
    j.easy = std::make_unique<detail::CurlEasy>();
    j.status = 0;
    j.body_started = false;
    j.bad_range = false;
    if (!range.empty()) j.easy->add_header("Range: bytes=" + range);
    detail::configure(*j.easy, http_, j.item->url, true);
    curl_easy_setopt(j.easy->h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(j.easy->h, CURLOPT_WRITEDATA, &j);
    curl_easy_setopt(j.easy->h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(j.easy->h, CURLOPT_HEADERDATA, &j);
    curl_easy_setopt(j.easy->h, CURLOPT_PRIVATE, &j);
    curl_multi_add_handle(multi_, j.easy->h);
}

// A range failed for good: the whole file fails (the first error says why).
void Transfers::fail_range(Job& j, Error why) {
    if (!j.result->error) j.result->error = std::move(why);
    j.split->failed = true;
    j.split->progress->give_up();
    end_job(j, false);
}

bool Transfers::start_range(Job& j) {
    if (j.split->failed || j.split->no_range) {
        j.ended = true;
        return false;
    }
    j.result->attempts = std::max(j.result->attempts, ++j.range_attempts);  // the file's: its most tried range
    // A range written again may bring other bytes than a reader already took: it stops.
    if (j.range_attempts > 1) j.split->progress->give_up();
    j.close_file();
    j.split->done -= j.done;  // a retried range is written again from its start
    j.done = 0;
    j.not_ranged = false;
    j.oversize = false;
    j.write_failed = false;
    j.cut = false;
    j.file = detail::open_file(j.split->file, "r+b");
    if (j.file) std::setvbuf(j.file, nullptr, _IONBF, 0);  // what is reported written is readable
    if (!j.file || !detail::seek_to(j.file, j.range_at)) {
        fail_range(j, make_error(ExitCode::PermissionDenied, "download.cannot_write",
                                 {{"path", j.split->file.string()}, {"url", redact_url(j.item->url)}}));
        return false;
    }
    j.range_from = j.range_at;
    launch(j, std::to_string(j.range_at) + "-" + std::to_string(j.range_at + j.range_len - 1));
    return true;
}

// Starts a transfer; false where none is needed (a complete .part checked) or possible.
bool Transfers::start(Job& j) {
    if (j.split) return start_range(j);
    j.result->attempts++;
    auto opened = open_part(j);
    if (opened && j.result->attempts == 1 && part_is_complete(j)) {
        finish(j);
        if (j.result->ok()) {
            j.result->attempts = 0;
            end_job(j, true);
            return false;
        }
        j.result->error.reset();  // the old .part was wrong and is gone: start over
        opened = open_part(j);
    }
    if (!opened) {
        j.result->error = opened.error();
        end_job(j, false);
        return false;
    }
    j.result->error.reset();
    j.range_from = j.done;
    rep_.task_advance(j.task, j.done);
    launch(j, j.done > 0 ? std::to_string(j.done) + "-" : std::string());
    return true;
}

void Transfers::retry_later(Job& j, const Error& why) {
    if (j.result->attempts > http_.retries) {
        j.result->error = why;
        end_job(j, false);
        return;
    }
    j.close_file();
    auto delay = detail::backoff_delay(http_, j.result->attempts - 1);
    rep_.debug(msg("http.retry", {{"url", redact_url(j.item->url)},
                                  {"reason", render(why.message, Lang::En)},
                                  {"attempt", std::to_string(j.result->attempts + 1)},
                                  {"attempts", std::to_string(http_.retries + 1)}}));
    j.not_before = Clock::now() + delay;
    waiting_.push_back(&j);
}

void Transfers::retry_range(Job& j, const Error& why) {
    if (j.range_attempts > http_.retries) return fail_range(j, why);
    j.close_file();
    j.not_before = Clock::now() + detail::backoff_delay(http_, j.range_attempts - 1);
    waiting_.push_back(&j);
}

namespace {

// The server answered without ranges: the file is fetched whole after this batch.
void without_ranges(Job& j) {
    j.split->no_range = true;
    j.split->progress->give_up();
    j.close_file();
    j.ended = true;
}

}  // namespace

// A range is over: written whole, retried, or its file failed (or goes whole, without ranges).
void Transfers::range_done(Job& j, CURLcode code) {
    const auto& item = *j.item;
    auto cannot_write = [&] {
        return make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(item.url)}});
    };
    if (interrupt_requested()) {
        fail_range(j, make_error(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(item.url)}}));
    } else if (j.split->failed || j.split->no_range) {
        j.close_file();
        j.ended = true;
    } else if (j.not_ranged) {  // NOLINT(bugprone-branch-clone): as an empty 200, tested before what comes between
        without_ranges(j);
    } else if (j.oversize) {
        fail_range(j, size_error(item, j.split->total, j.range_total.value_or(j.split->total + 1)));
    } else if (j.write_failed) {  // NOLINT(bugprone-branch-clone): as a failed flush, tested before the transfer's errors
        fail_range(j, cannot_write());
    } else if (code != CURLE_OK && !j.cut) {
        auto err = detail::transport_error(code, item.url, j.easy->errbuf, http_);
        if (detail::retryable(code))
            retry_range(j, err);
        else
            fail_range(j, err);
    } else if (detail::retryable_status(j.status)) {
        retry_range(j, http_status_error(j.status, item.url));
    } else if (j.status >= 400) {
        fail_range(j, http_status_error(j.status, item.url));
    } else if (j.status != 206 && !j.cut) {  // an empty 200: no ranges here
        without_ranges(j);
    } else if (j.done != j.range_len) {  // a range cut short: the file is not what the index says
        fail_range(j, size_error(item, j.split->total, j.split->total - (j.range_len - j.done)));
    } else if (std::fflush(j.file) != 0) {  // NOLINT(bugprone-branch-clone): as a failed write, after the transfer's errors
        fail_range(j, cannot_write());
    } else {
        j.close_file();
        j.ended = true;
        if (--j.split->left == 0) sealing_.push_back(std::async(std::launch::async, [&j] { finish_split(j); }));
    }
}

// A whole file's transfer is over: failed, retried (from its .part where it can be), or checked.
void Transfers::whole_done(Job& j, CURLcode code) {
    const auto& item = *j.item;
    auto fail_with = [&](Error e) {
        j.result->error = std::move(e);
        end_job(j, false);
    };
    if (j.oversize) {
        discard_part(j);
        fail_with(size_error(item, j.done + 1));
    } else if (j.too_large) {
        discard_part(j);
        fail_with(make_error(ExitCode::HashMismatch, "download.too_large",
                             {{"url", redact_url(item.url)}, {"limit", str::human_bytes(j.limit)}}));
    } else if (j.bad_range) {
        discard_part(j);
        retry_later(j, http_status_error(206, item.url));
    } else if (interrupt_requested()) {
        fail_with(make_error(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(item.url)}}));
    } else if (j.write_failed) {
        fail_with(make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(item.url)}}));
    } else if (code != CURLE_OK) {
        auto err = detail::transport_error(code, item.url, j.easy->errbuf, http_);
        if (detail::retryable(code))
            retry_later(j, err);
        else
            fail_with(err);
    } else if (j.status == 416 && j.range_from > 0) {
        // The .part is not a prefix of this file (it changed, or is complete): start over.
        discard_part(j);
        retry_later(j, http_status_error(416, item.url));
    } else if (detail::retryable_status(j.status)) {
        retry_later(j, http_status_error(j.status, item.url));
    } else if (j.status >= 400) {
        fail_with(http_status_error(j.status, item.url));
    } else {
        transfer_ended(j);
    }
}

// A whole file's bytes are in: checked and sealed on another thread (the task ends after the
// join), or, resumed, checked here so a bad prefix can be fetched again from byte 0.
void Transfers::transfer_ended(Job& j) {
    if (!j.body_started && j.range_from > 0 && j.status != 206) restart_part(j);  // empty 200
    if (!j.result->resumed || j.fresh_start) {
        sealing_.push_back(std::async(std::launch::async, [&j] { finish(j); }));
    } else if (verify(j)) {
        sealing_.push_back(std::async(std::launch::async, [&j] {
            const auto now = Clock::now();  // hashed already, above
            seal(j, now, now);
        }));
    } else {
        // The old .part was not a prefix of this file after all: once more from byte 0.
        j.fresh_start = true;
        j.result->error.reset();
        j.result->resumed = false;
        j.not_before = Clock::now();
        waiting_.push_back(&j);
    }
}

void Transfers::on_done(Job& j, CURLcode code) {
    curl_multi_remove_handle(multi_, j.easy->h);
    --active_;
    j.drain();  // every byte received is in the file before it is looked at
    if (j.split)
        range_done(j, code);
    else
        whole_done(j, code);
    j.easy.reset();
}

// Files whose size an answer just told: their other ranges start next, before other files.
void Transfers::take_learned_splits() {
    for (size_t k = 0, n = jobs_.size(); k < n; ++k) {
        Job& j = *jobs_[k];
        if (!j.learned) continue;
        Split* sp = j.learned.get();
        splits_.push_back(std::move(j.learned));
        if (sp->failed) continue;
        auto plan = range_plan(sp->total, j.parallel, j.tail, j.min_range);
        // Pushed to the front in reverse: the tail (last) goes first, then the others in order.
        const size_t body = plan.size() - (j.tail ? 1 : 0);
        std::vector<size_t> order;
        for (size_t r = body; r-- > 1;) order.push_back(r);
        if (j.tail) order.push_back(plan.size() - 1);
        for (size_t r : order) waiting_.push_front(range_job(sp, plan, r, j.task));
        start_hash(*sp);
        if (j.tail) options_.on_split(j.index, sp->file, sp->progress);
    }
}

void Transfers::run() {
    for (size_t i = 0; i < items_.size(); ++i) queue(i);
    // Largest first: the longest transfer starts at once instead of ending the batch alone, and
    // the small ones fill the slots beside it (the ranges of one file stay together).
    std::stable_sort(waiting_.begin(), waiting_.end(),
                     [](const Job* a, const Job* b) { return a->item->size.value_or(0) > b->item->size.value_or(0); });
    while (!waiting_.empty() || active_ > 0) {
        if (interrupt_requested()) break;
        auto now = Clock::now();
        for (size_t n = waiting_.size(); n > 0 && active_ < parallel_; --n) {
            Job* j = waiting_.front();
            waiting_.pop_front();
            if (j->not_before > now) {
                waiting_.push_back(j);
                continue;
            }
            if (start(*j)) ++active_;
        }
        int running = 0;
        curl_multi_perform(multi_, &running);
        int left = 0;
        while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
            if (m->msg != CURLMSG_DONE) continue;
            Job* j = nullptr;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&j));
            on_done(*j, m->data.result);
        }
        take_learned_splits();
        if (active_ > 0 || !waiting_.empty()) curl_multi_poll(multi_, nullptr, 0, 50, nullptr);
    }
    seal_all();
}

void Transfers::seal_all() {
    for (auto& f : sealing_) f.get();
    for (const auto& j : jobs_) report_sealed(*j);
    settle_batch(jobs_, rep_, options_.flush_later);
    // Readers of a file not complete stop waiting for it (one complete has all its bytes written).
    for (const auto& sp : splits_)
        if (results_[sp->item].path.empty()) sp->progress->give_up();
}

std::vector<size_t> Transfers::fetched_without_ranges() {
    std::vector<size_t> whole;
    std::error_code ec;
    for (const auto& sp : splits_) {
        if (!sp->no_range || sp->failed || !results_[sp->item].ok() || interrupt_requested()) continue;
        std::filesystem::remove(sp->file, ec);
        sp->refetched = true;
        // Its task ends here; the whole file's transfer opens its own.
        if (!sp->ended && !sp->ranges.empty()) rep_.task_end(sp->ranges.front()->task, true);
        sp->ended = true;
        whole.push_back(sp->item);
    }
    return whole;
}

void Transfers::stop_unfinished() {
    for (auto& j : jobs_) {
        if (j->easy) {
            curl_multi_remove_handle(multi_, j->easy->h);
            j->easy.reset();
        }
        if (j->result->ok() && j->result->path.empty())
            j->result->error = make_error(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(j->item->url)}});
        end_job(*j, j->result->ok());
    }
    std::error_code ec;
    for (const auto& sp : splits_) {
        if (!results_[sp->item].path.empty() || sp->refetched) continue;
        if (auto keep = written_prefix(*sp); keep > 0)
            std::filesystem::resize_file(sp->file, keep, ec);
        else
            std::filesystem::remove(sp->file, ec);
    }
}

}  // namespace envfix::network::download
