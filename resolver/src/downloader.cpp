#include "envfix/resolver/downloader.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <memory>

#include "curl_session.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/resolver/url.hpp"
#include "file_sync.hpp"

namespace envfix::resolver {

namespace {

using Clock = std::chrono::steady_clock;

struct Job {
    const DownloadItem* item = nullptr;
    DownloadResult* result = nullptr;
    std::filesystem::path part;
    std::unique_ptr<detail::CurlEasy> easy;
    std::FILE* file = nullptr;
    uint64_t done = 0;          // bytes in the .part file
    uint64_t range_from = 0;    // what this transfer asked for (0 = whole file)
    long status = 0;            // status of the last response seen
    std::optional<uint64_t> range_start;  // first byte of a 206 answer (Content-Range)
    bool bad_range = false;     // the server sent another range than asked for
    bool body_started = false;
    bool oversize = false;
    bool write_failed = false;
    int task = 0;
    bool ended = false;          // the progress task was closed
    bool fresh_start = false;    // a resumed file failed its check and was started again
    Reporter* rep = nullptr;
    Clock::time_point not_before{};

    void close_file() {
        if (file) std::fclose(file);
        file = nullptr;
    }
};

std::string label_of(const DownloadItem& it) {
    return it.label.empty() ? url_filename(it.url) : it.label;
}

Error size_error(const DownloadItem& it, uint64_t got) {
    return make_error(ExitCode::HashMismatch, "download.size_mismatch",
                      {{"url", redact_url(it.url)}, {"expected", std::to_string(*it.size)}, {"actual", std::to_string(got)}});
}

// Opens the .part file, continuing it when it holds a usable prefix.
Expected<void> open_part(Job& j) {
    j.close_file();
    j.done = 0;
    std::error_code ec;
    uint64_t have = std::filesystem::exists(j.part, ec) ? std::filesystem::file_size(j.part, ec) : 0;
    if (ec) have = 0;
    if (have > 0 && (!j.item->size || have <= *j.item->size)) j.done = have;
    j.file = detail::open_file(j.part, j.done > 0 ? "ab" : "wb");
    if (!j.file)
        return fail(ExitCode::PermissionDenied, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(j.item->url)}});
    if (j.done > 0) j.result->resumed = true;
    return {};
}

// Restarts from byte 0 (the server ignored Range, or the .part is not a prefix).
void restart_part(Job& j) {
    j.close_file();
    j.file = detail::open_file(j.part, "wb");
    j.done = 0;
    j.result->resumed = false;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
    auto* j = static_cast<Job*>(user);
    std::string_view line(data, size * n);
    if (line.starts_with("HTTP/")) {
        auto sp = line.find(' ');
        if (sp != std::string_view::npos) j->status = str::to_int(line.substr(sp + 1, 3)).value_or(0);
        j->range_start.reset();
    } else if (auto colon = line.find(':'); colon != std::string_view::npos &&
                                            str::iequals(str::trim(line.substr(0, colon)), "content-range")) {
        // "bytes 1000-4999/5000"
        auto v = str::trim(line.substr(colon + 1));
        if (v.starts_with("bytes ")) {
            auto dash = v.find('-');
            if (auto start = str::to_int(v.substr(6, dash == std::string_view::npos ? 0 : dash - 6)); start && *start >= 0)
                j->range_start = static_cast<uint64_t>(*start);
        }
    }
    return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto* j = static_cast<Job*>(user);
    size_t len = size * n;
    if (interrupt_requested()) return 0;
    if (j->status >= 300) return len;  // an error page: not part of the file
    if (!j->body_started) {
        j->body_started = true;
        if (j->range_from > 0 && j->status != 206) restart_part(*j);
        if (j->status == 206 && j->range_start != j->range_from) {
            j->bad_range = true;
            return 0;
        }
        if (!j->file) {
            j->write_failed = true;
            return 0;
        }
    }
    if (j->item->size && j->done + len > *j->item->size) {
        j->oversize = true;
        return 0;
    }
    if (std::fwrite(data, 1, len, j->file) != len) {
        j->write_failed = true;
        return 0;
    }
    j->done += len;
    j->rep->task_advance(j->task, j->done);
    return len;
}

void discard_part(Job& j) {
    j.close_file();
    std::error_code ec;
    std::filesystem::remove(j.part, ec);
}

// The bytes are all there: check their size and hash (false: the .part is gone, the error set).
// The hash is taken from the finished file, not on the transfer thread: one thread receiving
// every transfer and hashing it too held a cold install's download to about 500 MB/s; read back
// from the page cache on the sealing threads, all files are hashed at once.
bool verify(Job& j) {
    auto& r = *j.result;
    r.size = j.done;
    if (j.item->size && j.done != *j.item->size) {
        discard_part(j);
        r.error = size_error(*j.item, j.done);
        return false;
    }
    if (j.file && std::fflush(j.file) != 0) {
        discard_part(j);
        r.error = make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(j.item->url)}});
        return false;
    }
    auto hex = sha256_file_hex(j.part);
    if (!hex) {
        discard_part(j);
        r.error = hex.error();
        return false;
    }
    r.sha256 = *hex;
    if (!j.item->sha256.empty() && str::lower(j.item->sha256) != r.sha256) {
        discard_part(j);
        r.error = make_error(ExitCode::HashMismatch, "download.hash_mismatch",
                             {{"url", redact_url(j.item->url)}, {"expected", str::lower(j.item->sha256)}, {"actual", r.sha256}});
        return false;
    }
    return true;
}

// A checked file flushed to the disk and moved into place. Runs off the transfer thread: an
// fsync of a 900 MB wheel would stall every other transfer.
void seal(Job& j) {
    auto& r = *j.result;
    if (j.file && !detail::flush_to_disk(j.file)) {
        j.close_file();
        r.error = make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(j.item->url)}});
        return;
    }
    j.close_file();
    std::error_code ec;
    if (j.item->dest.has_parent_path()) std::filesystem::create_directories(j.item->dest.parent_path(), ec);
    std::filesystem::rename(j.part, j.item->dest, ec);
    if (ec) {
        r.error = make_error(ExitCode::PermissionDenied, "download.cannot_write",
                             {{"path", j.item->dest.string()}, {"url", redact_url(j.item->url)}});
        return;
    }
    r.path = j.item->dest;
}

void finish(Job& j) {
    if (verify(j)) seal(j);
}

// A .part that already holds every expected byte needs no transfer, once its hash is checked.
bool part_is_complete(const Job& j) {
    return j.item->size && j.done == *j.item->size && !j.item->sha256.empty();
}

}  // namespace

std::filesystem::path part_path(const std::filesystem::path& dest) {
    auto p = dest;
    p += ".part";
    return p;
}

std::vector<DownloadResult> download_files(const std::vector<DownloadItem>& items, const HttpOptions& http,
                                           Reporter& rep, const DownloadOptions& options) {
    std::vector<DownloadResult> results(items.size());
    if (items.empty()) return results;
    if (http.offline) {
        for (size_t i = 0; i < items.size(); ++i)
            results[i].error = make_error(ExitCode::NotCached, "http.not_cached", {{"url", redact_url(items[i].url)}});
        return results;
    }
    detail::ensure_curl_global();
    std::vector<std::unique_ptr<Job>> jobs;
    std::deque<Job*> waiting;
    for (size_t i = 0; i < items.size(); ++i) {
        auto j = std::make_unique<Job>();
        j->item = &items[i];
        j->result = &results[i];
        j->part = part_path(items[i].dest);
        j->rep = &rep;
        // Every file gets its task at once, so the reporter's total covers the whole batch.
        j->task = rep.task_begin(msg("download.task", {{"name", label_of(items[i])}}), items[i].size.value_or(0));
        waiting.push_back(j.get());
        jobs.push_back(std::move(j));
    }
    std::error_code ec;
    for (auto& j : jobs)
        if (j->item->dest.has_parent_path()) std::filesystem::create_directories(j->item->dest.parent_path(), ec);

    CURLM* multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    size_t active = 0;
    std::vector<std::future<void>> sealing;  // checked files being flushed and renamed
    const size_t parallel = static_cast<size_t>(std::max(1, options.parallel));

    auto end_job = [&](Job& j, bool ok) {
        j.close_file();
        if (!j.ended) rep.task_end(j.task, ok);
        j.ended = true;
    };
    auto start = [&](Job& j) -> bool {
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
        j.easy = std::make_unique<detail::CurlEasy>();
        j.range_from = j.done;
        j.status = 0;
        j.body_started = false;
        j.bad_range = false;
        if (j.done > 0) j.easy->add_header("Range: bytes=" + std::to_string(j.done) + "-");
        detail::configure(*j.easy, http, j.item->url, true);
        curl_easy_setopt(j.easy->h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(j.easy->h, CURLOPT_WRITEDATA, &j);
        curl_easy_setopt(j.easy->h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(j.easy->h, CURLOPT_HEADERDATA, &j);
        curl_easy_setopt(j.easy->h, CURLOPT_PRIVATE, &j);
        rep.task_advance(j.task, j.done);
        curl_multi_add_handle(multi, j.easy->h);
        return true;
    };
    auto retry_later = [&](Job& j, const Error& why) {
        if (j.result->attempts > http.retries) {
            j.result->error = why;
            end_job(j, false);
            return;
        }
        j.close_file();
        auto delay = detail::backoff_delay(http, j.result->attempts - 1);
        rep.debug(msg("http.retry", {{"url", redact_url(j.item->url)}, {"reason", render(why.message, Lang::En)},
                                     {"attempt", std::to_string(j.result->attempts + 1)},
                                     {"attempts", std::to_string(http.retries + 1)}}));
        j.not_before = Clock::now() + delay;
        waiting.push_back(&j);
    };
    auto on_done = [&](Job& j, CURLcode code) {
        curl_multi_remove_handle(multi, j.easy->h);
        --active;
        const auto& item = *j.item;
        if (j.oversize) {
            discard_part(j);
            j.result->error = size_error(item, j.done + 1);
            end_job(j, false);
        } else if (j.bad_range) {
            discard_part(j);
            retry_later(j, http_status_error(206, item.url));
        } else if (interrupt_requested()) {
            j.result->error = make_error(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(item.url)}});
            end_job(j, false);
        } else if (j.write_failed) {
            j.result->error = make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(item.url)}});
            end_job(j, false);
        } else if (code != CURLE_OK) {
            auto err = detail::transport_error(code, item.url, j.easy->errbuf, http);
            if (detail::retryable(code)) retry_later(j, err);
            else {
                j.result->error = err;
                end_job(j, false);
            }
        } else if (j.status == 416 && j.range_from > 0) {
            // The .part is not a prefix of this file (it changed, or is complete): start over.
            discard_part(j);
            retry_later(j, http_status_error(416, item.url));
        } else if (detail::retryable_status(j.status)) {
            retry_later(j, http_status_error(j.status, item.url));
        } else if (j.status >= 400) {
            j.result->error = http_status_error(j.status, item.url);
            end_job(j, false);
        } else {
            if (!j.body_started && j.range_from > 0 && j.status != 206) restart_part(j);  // empty 200
            if (!j.result->resumed || j.fresh_start) {
                // Checked and sealed on another thread; the task ends after the join below.
                sealing.push_back(std::async(std::launch::async, [&j] { finish(j); }));
            } else if (verify(j)) {  // a resumed file is checked here, so a bad prefix can be retried
                sealing.push_back(std::async(std::launch::async, [&j] { seal(j); }));
            } else {
                // The old .part was not a prefix of this file after all: once more from byte 0.
                j.fresh_start = true;
                j.result->error.reset();
                j.result->resumed = false;
                j.not_before = Clock::now();
                waiting.push_back(&j);
            }
        }
        j.easy.reset();
    };

    while (!waiting.empty() || active > 0) {
        if (interrupt_requested()) break;
        auto now = Clock::now();
        for (size_t n = waiting.size(); n > 0 && active < parallel; --n) {
            Job* j = waiting.front();
            waiting.pop_front();
            if (j->not_before > now) {
                waiting.push_back(j);
                continue;
            }
            if (start(*j)) ++active;
        }
        int running = 0;
        curl_multi_perform(multi, &running);
        int left = 0;
        while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
            if (m->msg != CURLMSG_DONE) continue;
            Job* j = nullptr;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&j));
            on_done(*j, m->data.result);
        }
        if (active > 0 || !waiting.empty()) curl_multi_poll(multi, nullptr, 0, 50, nullptr);
    }
    for (auto& f : sealing) f.get();
    // Ctrl-C: every unfinished transfer stops; its bytes stay in the .part file for next time.
    for (auto& j : jobs) {
        if (j->easy) {
            curl_multi_remove_handle(multi, j->easy->h);
            j->easy.reset();
        }
        if (j->result->ok() && j->result->path.empty())
            j->result->error = make_error(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(j->item->url)}});
        end_job(*j, j->result->ok());
    }
    curl_multi_cleanup(multi);
    return results;
}

}  // namespace envfix::resolver
