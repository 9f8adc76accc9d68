#include "envfix/resolver/downloader.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <fstream>
#include <future>
#include <memory>
#include <system_error>
#include <tuple>

#include "curl_session.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/resolver/url.hpp"
#include "file_sync.hpp"
#include "transfer_writer.hpp"

namespace envfix::resolver {

namespace {

using Clock = std::chrono::steady_clock;

// A file fetched as byte ranges at once (DownloadOptions::split_at), each range its own Job
// writing in place into the file's .part; checked and sealed once the last range is written.
struct Job;
struct Split {
    size_t item = 0;
    std::filesystem::path file;  // the .part file, as large as the whole file
    size_t left = 0;        // ranges not written yet
    uint64_t total = 0;     // the file's size (the index's, or learned from the first answer)
    std::vector<Job*> ranges;
    uint64_t done = 0;      // bytes written by all ranges (progress)
    bool failed = false;    // a range failed for good (the result says why)
    bool no_range = false;  // the server answered without the range: fetched whole afterwards
    bool refetched = false; // ... and so it was: its .part is that transfer's, not the ranges'
    bool ended = false;     // the progress task was closed
    std::shared_ptr<PartProgress> progress;  // what is written (for the hash below and an on_split reader); always set
    std::future<std::optional<std::string>> hash;  // follow_hash(): the sha256 taken as the bytes came
};

// The file's sha256 read in order as its ranges write it, on a thread of its own: a large file's
// ranges are many (DownloadOptions::min_range) and arrive roughly in order, so the hash is done
// soon after the last byte instead of starting then (torch's 0.9 GB wheel: about 0.4 s at 2 GB/s).
// nullopt once the ranges are given up (a range written again): it is then hashed whole.
std::optional<std::string> follow_hash(std::filesystem::path file, std::shared_ptr<PartProgress> progress) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    Sha256 h;
    std::vector<char> buf(256u << 10);
    for (uint64_t at = 0, total = progress->total(); at < total;) {
        const auto n = static_cast<size_t>(std::min<uint64_t>(buf.size(), total - at));
        if (!progress->wait_for(at, n)) return std::nullopt;
        in.seekg(static_cast<std::streamoff>(at));
        in.read(buf.data(), static_cast<std::streamsize>(n));
        if (static_cast<size_t>(in.gcount()) != n) return std::nullopt;
        h.update(buf.data(), n);
        at += n;
    }
    auto d = h.finish();
    return to_hex(d.data(), d.size());
}

// The ranges of a file of `total` bytes: one per connection, 1 MiB at least, two at least; a file
// several times min_range long gets more, up to four per connection, min_range at least each, so
// its bytes arrive roughly in order (follow_hash). With a reader watching (tail), the file's last
// bytes are a small range of their own, the last in the list: a zip archive's directory is
// there, and it is fetched first.
std::vector<PartProgress::Range> range_plan(uint64_t total, size_t parallel, bool tail, uint64_t min_range) {
    const uint64_t end = tail ? total - std::clamp<uint64_t>(total / 16, 1, uint64_t{8} << 20) : total;
    uint64_t n = std::min<uint64_t>(4 * parallel, std::max<uint64_t>(2, end >> 20));
    n = std::min<uint64_t>(n, std::max<uint64_t>(parallel, end / std::max<uint64_t>(1, min_range)));
    const uint64_t per = (end + n - 1) / n;
    std::vector<PartProgress::Range> out;
    for (uint64_t at = 0; at < end; at += per) out.push_back({at, std::min(per, end - at), 0});
    if (tail) out.push_back({end, total - end, 0});
    return out;
}

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
    std::optional<uint64_t> range_total;  // the whole file's size in that answer ("/total")
    bool bad_range = false;     // the server sent another range than asked for
    bool body_started = false;
    bool oversize = false;
    bool write_failed = false;
    // Where no size was announced: the most bytes the .part may hold (the server's
    // Content-Length, never more than HttpOptions::max_download), and whether it was passed.
    uint64_t limit = UINT64_MAX;
    uint64_t max_download = UINT64_MAX;
    bool too_large = false;
    int task = 0;
    bool ended = false;          // the progress task was closed
    bool fresh_start = false;    // a resumed file failed its check and was started again
    Reporter* rep = nullptr;
    Clock::time_point began{};  // when download_files started (-vv timings)
    DownloadFlush flush = DownloadFlush::EachFile;  // DownloadOptions::flush
    bool marked = false;        // placed beside its unsynced marker, flushed when the batch ends
    // -vv: when the file was checked and in place, and what hashing and flushing took; set on
    // the sealing thread, told by the calling thread once every sealing ended (the Reporter is
    // not asked to take calls from several threads).
    std::optional<std::array<Clock::duration, 3>> sealed;
    Clock::time_point not_before{};
    size_t index = 0;
    const std::function<void(size_t)>* on_ready = nullptr;
    Split* split = nullptr;     // one range of a split file: [range_at, range_at + range_len)
    uint64_t range_at = 0, range_len = 0;
    size_t range_no = 0;        // its place in split->progress
    int range_attempts = 0;
    bool not_ranged = false;    // the answer was not this range
    // A whole-file transfer of unknown size may become the first range once its answer gives
    // the size (learned); its transfer is cut at the range's end (cut).
    uint64_t split_at = 0;
    size_t parallel = 1;
    bool tail = false;          // DownloadOptions::on_split is set: ranges with a tail
    uint64_t min_range = 0;     // DownloadOptions::min_range
    std::unique_ptr<Split> learned;
    bool cut = false;

    std::unique_ptr<detail::TransferWriter> writer;  // this transfer's bytes into `file`

    // Waits until every byte received is in the file (false: a write failed, write_failed set).
    bool drain() {
        if (!writer) return true;
        const bool ok = writer->finish();
        writer.reset();
        if (!ok) write_failed = true;
        return ok;
    }
    void close_file() {
        drain();
        if (file) std::fclose(file);
        file = nullptr;
    }
};

std::string label_of(const DownloadItem& it) {
    return it.label.empty() ? url_filename(it.url) : it.label;
}

Error size_error(const DownloadItem& it, uint64_t expected, uint64_t got) {
    return make_error(ExitCode::HashMismatch, "download.size_mismatch",
                      {{"url", redact_url(it.url)}, {"expected", std::to_string(expected)}, {"actual", std::to_string(got)}});
}
Error size_error(const DownloadItem& it, uint64_t got) { return size_error(it, *it.size, got); }

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
        j->range_total.reset();
    } else if (auto colon = line.find(':'); colon != std::string_view::npos &&
                                            str::iequals(str::trim(line.substr(0, colon)), "content-range")) {
        // "bytes 1000-4999/5000"
        auto v = str::trim(line.substr(colon + 1));
        if (v.starts_with("bytes ")) {
            auto dash = v.find('-');
            if (auto start = str::to_int(v.substr(6, dash == std::string_view::npos ? 0 : dash - 6)); start && *start >= 0)
                j->range_start = static_cast<uint64_t>(*start);
            if (auto slash = v.find('/'); slash != std::string_view::npos)
                if (auto total = str::to_int(str::trim(v.substr(slash + 1))); total && *total >= 0)
                    j->range_total = static_cast<uint64_t>(*total);
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
        if (j->split && (j->status != 206 || j->range_start != j->range_at)) {
            j->not_ranged = true;
            return 0;
        }
        if (j->split && j->range_total && *j->range_total != j->split->total) {
            j->oversize = true;  // the file on the server is not the size the index gave
            return 0;
        }
        // The index gave no size (the PyTorch index's pages do not): learned from this answer.
        if (!j->split && j->split_at > 0 && j->parallel >= 2 && j->range_from == 0 && j->status == 200 && !j->item->sha256.empty()) {
            curl_off_t length = -1;
            curl_easy_getinfo(j->easy->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
            if (length > 0 && static_cast<uint64_t>(length) >= j->split_at && static_cast<uint64_t>(length) <= j->max_download) {
                const auto total = static_cast<uint64_t>(length);
                auto plan = range_plan(total, j->parallel, j->tail, j->min_range);
                j->learned = std::make_unique<Split>();
                j->learned->item = j->index;
                j->learned->file = j->part;
                j->learned->left = plan.size();
                j->learned->total = total;
                j->learned->ranges.push_back(j);
                j->learned->progress = std::make_shared<PartProgress>(plan, total);
                std::setvbuf(j->file, nullptr, _IONBF, 0);  // nothing written yet: what is written is readable
                j->split = j->learned.get();
                j->range_at = 0;
                j->range_len = plan.front().length;
                j->range_no = 0;
                j->range_attempts = 1;  // this transfer was its first attempt
            }
        }
        if (!j->split && j->range_from > 0 && j->status != 206) restart_part(*j);
        if (!j->split && !j->item->size) {
            // Nothing announced by the index: the answer's own length bounds it, and a cap bounds
            // that (an endless body, or a length of a terabyte, would fill the disk).
            curl_off_t length = -1;
            curl_easy_getinfo(j->easy->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
            j->limit = j->max_download;
            if (length >= 0) j->limit = std::min<uint64_t>(j->limit, j->done + static_cast<uint64_t>(length));
        }
        if (j->status == 206 && j->range_start != j->range_from) {
            j->bad_range = true;
            return 0;
        }
        if (!j->file) {
            j->write_failed = true;
            return 0;
        }
        // A range's readers learn of its bytes once they are in the file, from the writer.
        std::function<void(uint64_t)> written;
        if (j->split) written = [p = j->split->progress.get(), r = j->range_no](uint64_t n) { p->advance(r, n); };
        j->writer = std::make_unique<detail::TransferWriter>(j->file, std::move(written));
    }
    if (j->split && j->done + len > j->range_len) {
        // The whole file's answer taken as the first range, or a server that sends more than the
        // range asked for: cut at the range's end.
        size_t keep = static_cast<size_t>(j->range_len - j->done);
        if (!j->writer->write(data, keep)) {
            j->write_failed = true;
            return 0;
        }
        j->done += keep;
        j->split->done += keep;
        j->rep->task_advance(j->task, j->split->done);
        j->cut = true;
        return 0;
    }
    if (!j->split && j->item->size && j->done + len > *j->item->size) {
        j->oversize = true;
        return 0;
    }
    if (!j->split && j->done + len > j->limit) {
        j->too_large = true;
        return 0;
    }
    if (!j->writer->write(data, len)) {
        j->write_failed = true;
        return 0;
    }
    j->done += len;
    if (j->split) {
        j->split->done += len;
        j->rep->task_advance(j->task, j->split->done);
    } else {
        j->rep->task_advance(j->task, j->done);
    }
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

// Starts follow_hash() for a split file; without a thread left, it is hashed whole at the end.
void start_hash(Split& sp) {
    try {
        sp.hash = std::async(std::launch::async, follow_hash, sp.file, sp.progress);
    } catch (const std::system_error&) {
    }
}

// Flushes `path` to the disk, through `open` when it is still open there.
bool flush_file(const std::filesystem::path& path, std::FILE* open) {
    if (open) return detail::flush_to_disk(open);
    std::FILE* f = detail::open_file(path, "r+b");
    bool ok = f && detail::flush_to_disk(f);
    if (f) std::fclose(f);
    return ok;
}

// The checked bytes at `from` renamed to the item's dest and handed over (on_ready): flushed to
// the disk first (EachFile), or beside an unsynced marker made before the rename, flushed with the
// whole batch once it ends (Batch; settle_batch). false: r.error says why; `failed_at` the file
// left where it failed.
bool place(Job& j, const std::filesystem::path& from, Clock::time_point started, Clock::time_point hashed,
           std::filesystem::path& failed_at) {
    auto& r = *j.result;
    const auto& dest = j.item->dest;
    auto flush_error = [&](const std::filesystem::path& p) {
        failed_at = p;
        r.error = make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", p.string()}, {"url", redact_url(j.item->url)}});
        return false;
    };
    std::error_code ec;
    if (dest.has_parent_path()) std::filesystem::create_directories(dest.parent_path(), ec);
    if (j.flush != DownloadFlush::EachFile) {
        if (j.file && std::fflush(j.file) != 0) {
            j.close_file();
            return flush_error(from);
        }
        // Made before the rename, so a crash that keeps the rename keeps the marker too (the
        // filesystem's journal commits them in order).
        if (std::FILE* m = detail::open_file(unsynced_marker(dest), "wb")) {
            const auto& text = unsynced_marker_text();
            const bool written = std::fwrite(text.data(), 1, text.size(), m) == text.size();
            j.marked = std::fclose(m) == 0 && written;
        }
    }
    if (!j.marked && !flush_file(from, j.file)) {  // EachFile, or no marker could be made
        j.close_file();
        return flush_error(from);
    }
    j.close_file();
    const auto flushed = Clock::now();
    std::filesystem::rename(from, dest, ec);
    if (ec) {
        failed_at = from;
        if (j.marked) std::filesystem::remove(unsynced_marker(dest), ec);
        j.marked = false;
        r.error = make_error(ExitCode::PermissionDenied, "download.cannot_write", {{"path", dest.string()}, {"url", redact_url(j.item->url)}});
        return false;
    }
    r.path = dest;
    j.sealed = std::array<Clock::duration, 3>{Clock::now() - j.began, hashed - started, flushed - hashed};
    if (j.on_ready && *j.on_ready) (*j.on_ready)(j.index);
    return true;
}

// A checked file flushed to the disk and moved into place. Runs off the transfer thread: an
// fsync of a 900 MB wheel would stall every other transfer.
void seal(Job& j, Clock::time_point started, Clock::time_point hashed) {
    std::filesystem::path failed_at;
    place(j, j.part, started, hashed, failed_at);
}

void report_sealed(const Job& j) {
    if (!j.sealed) return;
    auto ms = [](Clock::duration d) { return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
    const auto& [at, hash, flush] = *j.sealed;
    j.rep->debug(msg("download.debug.sealed", {{"name", label_of(*j.item)}, {"at", ms(at)}, {"hash", ms(hash)}, {"flush", ms(flush)}}));
}

// DownloadFlush::Batch: the files renamed into place beside their markers reach the disk together
// once every transfer has ended: one flush per filesystem (each file alone where that is not
// available, as on Windows, or fails; one that cannot be flushed is removed and refused), then
// the markers go. Returns the refused files and how long it took.
std::pair<std::vector<std::pair<size_t, Error>>, int64_t> settle_files(const std::vector<PendingFlush::File>& files) {
    std::vector<std::pair<size_t, Error>> failed;
    const auto started = Clock::now();
    std::vector<std::filesystem::path> dirs;
    for (const auto& f : files) dirs.push_back(f.dest.parent_path());
    const bool all = fs::sync_filesystems(dirs);
    std::error_code ec;
    for (const auto& f : files) {
        if (!all && !flush_file(f.dest, nullptr)) {
            std::filesystem::remove(f.dest, ec);
            failed.emplace_back(f.index, make_error(ExitCode::DiskFull, "download.cannot_write",
                                                    {{"path", f.dest.string()}, {"url", redact_url(f.url)}}));
        }
        std::filesystem::remove(unsynced_marker(f.dest), ec);
    }
    return {std::move(failed), std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count()};
}

void tell_synced(Reporter& rep, size_t files, int64_t ms) {
    rep.debug(msg("download.debug.synced", {{"files", std::to_string(files)}, {"ms", std::to_string(ms)}}));
}

// The batch's files beside their markers: flushed now, or left to a PendingFlush (flush_later).
void settle_batch(const std::vector<std::unique_ptr<Job>>& jobs, Reporter& rep, std::unique_ptr<PendingFlush>* later) {
    if (!jobs.empty() && jobs.front()->flush == DownloadFlush::Leave) return;  // they stay beside their markers
    std::vector<PendingFlush::File> files;
    for (const auto& j : jobs)
        if (j->marked && j->result->ok()) files.push_back({j->index, j->item->dest, j->item->url});
    if (files.empty()) return;
    if (later) {
        try {
            *later = std::make_unique<PendingFlush>(files);  // a copy: `files` is flushed below if this throws
            return;
        } catch (const std::system_error&) {  // no thread left: flushed here
        }
    }
    const size_t n = files.size();
    auto [failed, ms] = settle_files(files);
    for (auto& [index, error] : failed)
        for (const auto& j : jobs)
            if (j->index == index && j->marked) {  // one job per file is marked: the one that placed it
                j->result->path.clear();
                j->result->error = error;
                break;
            }
    tell_synced(rep, n, ms);
}

void finish(Job& j) {
    const auto from = Clock::now();
    if (verify(j)) seal(j, from, Clock::now());
}

// Every range of a split file is written: its hash checked, flushed, renamed into place. Runs
// off the transfer thread, as seal() does.
void finish_split(Job& j) {
    auto& r = *j.result;
    const auto& file = j.split->file;
    auto discard = [&](Error e) {
        std::error_code ec;
        std::filesystem::remove(file, ec);
        r.error = std::move(e);
    };
    r.size = j.split->total;
    const auto from = Clock::now();
    std::optional<std::string> followed = j.split->hash.valid() ? j.split->hash.get() : std::nullopt;
    if (followed) {
        r.sha256 = *followed;
        r.hashed_while_downloading = true;
    } else {
        auto hex = sha256_file_hex(file);
        if (!hex) return discard(hex.error());
        r.sha256 = *hex;
    }
    if (str::lower(j.item->sha256) != r.sha256)
        return discard(make_error(ExitCode::HashMismatch, "download.hash_mismatch",
                                  {{"url", redact_url(j.item->url)}, {"expected", str::lower(j.item->sha256)}, {"actual", r.sha256}}));
    std::filesystem::path failed_at;
    if (!place(j, file, from, Clock::now(), failed_at)) {
        std::error_code ec;
        std::filesystem::remove(failed_at, ec);  // a split file's holes cannot be resumed anyway
    }
}

// Whether the file is split into ranges from the start: large enough, size and hash known, no
// partial download of it to resume, and its .part file made at its full size.
bool split_from_start(const DownloadItem& it, const DownloadOptions& o, size_t parallel) {
    if (o.split_at == 0 || parallel < 2 || !it.size || *it.size < o.split_at || it.sha256.empty()) return false;
    std::error_code ec;
    const auto file = part_path(it.dest);
    if (std::filesystem::exists(file, ec)) return false;
    std::FILE* f = detail::open_file(file, "wb");
    if (!f) return false;
    std::fclose(f);
    std::filesystem::resize_file(file, *it.size, ec);  // sparse: the ranges fill it
    if (ec) {
        std::filesystem::remove(file, ec);
        return false;
    }
    return true;
}

// What of an unfinished split file is a prefix of it (the ranges written from byte 0 on, one
// after the other): the .part keeps that much, for the next run to resume.
uint64_t written_prefix(const Split& sp) {
    std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> ranges;  // (at, done, length)
    for (const Job* j : sp.ranges) ranges.emplace_back(j->range_at, j->done, j->range_len);
    std::sort(ranges.begin(), ranges.end());
    uint64_t prefix = 0;
    for (const auto& [at, done, length] : ranges) {
        if (at != prefix) break;
        prefix += done;
        if (done < length) break;
    }
    return prefix;
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

DownloadFlush chosen_flush(DownloadFlush asked) {
    auto v = env::get(EnvVar::EnvfixDownloadFlush);
    if (v && *v == "each") return DownloadFlush::EachFile;
    if (asked == DownloadFlush::Leave && ((v && *v == "batch") || unsynced_marker_text().empty())) return DownloadFlush::Batch;
    return asked;
}

PendingFlush::PendingFlush(std::vector<File> files) : files_(std::move(files)) {
    thread_ = std::thread([this] { std::tie(failed_, ms_) = settle_files(files_); });
}

PendingFlush::~PendingFlush() {
    if (thread_.joinable()) thread_.join();
}

std::vector<std::pair<size_t, Error>> PendingFlush::wait(Reporter& reporter) {
    if (thread_.joinable()) thread_.join();
    if (told_) return {};
    told_ = true;
    tell_synced(reporter, files_.size(), ms_);
    return std::move(failed_);
}

std::filesystem::path unsynced_marker(const std::filesystem::path& dest) {
    auto p = dest;
    p += ".unsynced";
    return p;
}

const std::string& unsynced_marker_text() {
    static const std::string text = [] {
        auto boot = platform::boot_id();
        return boot ? "envfix-unsynced 1\n" + *boot + "\n" : std::string();
    }();
    return text;
}

bool settle_unsynced(const std::filesystem::path& file, const std::string& sha256) {
    std::error_code ec;
    const auto marker = unsynced_marker(file);
    const auto& ours = unsynced_marker_text();
    if (!ours.empty()) {
        auto text = fs::read_file(marker);
        if (text && *text == ours) {
            // Written in this boot: what is in the page cache is what was checked. A minute on,
            // the kernel has written it back (30 s by default), so the flush costs nothing.
            auto age = std::filesystem::file_time_type::clock::now() - std::filesystem::last_write_time(marker, ec);
            if (!ec && age > std::chrono::minutes(1) && flush_file(file, nullptr)) std::filesystem::remove(marker, ec);
            return true;
        }
    }
    auto hex = sha256_file_hex(file);
    if (hex && *hex == str::lower(sha256) && flush_file(file, nullptr)) {
        std::filesystem::remove(unsynced_marker(file), ec);
        return true;
    }
    std::filesystem::remove(file, ec);
    std::filesystem::remove(unsynced_marker(file), ec);
    return false;
}

uint64_t default_split_at() {
    if (auto v = env::get(EnvVar::EnvfixSplitDownloadsAt))
        if (auto n = str::to_int(*v); n && *n >= 0) return static_cast<uint64_t>(*n);
    return uint64_t{64} << 20;
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
    if (auto* missing = detail::curl_load_error()) {
        for (size_t i = 0; i < items.size(); ++i)
            results[i].error = make_error(ExitCode::Internal, "http.no_libcurl", {{"url", redact_url(items[i].url)}, {"reason", *missing}});
        return results;
    }
    detail::ensure_curl_global();
    const size_t parallel = static_cast<size_t>(std::max(1, options.parallel));
    const DownloadFlush flush = chosen_flush(options.flush);
    const uint64_t min_range = options.min_range ? options.min_range : uint64_t{16} << 20;
    std::error_code ec;
    for (const auto& it : items)
        if (it.dest.has_parent_path()) std::filesystem::create_directories(it.dest.parent_path(), ec);
    const auto began = Clock::now();
    std::vector<std::unique_ptr<Job>> jobs;
    std::vector<std::unique_ptr<Split>> splits;
    std::deque<Job*> waiting;
    auto new_job = [&](size_t i, int task) {
        auto j = std::make_unique<Job>();
        j->item = &items[i];
        j->result = &results[i];
        j->part = part_path(items[i].dest);
        j->rep = &rep;
        j->began = began;
        j->flush = flush;
        j->index = i;
        j->on_ready = &options.on_ready;
        j->task = task;
        j->max_download = http.max_download;
        jobs.push_back(std::move(j));
        return jobs.back().get();
    };
    // Range r of a split file's plan, as a job of its own.
    auto range_job = [&](Split* sp, const std::vector<PartProgress::Range>& plan, size_t r, int task) {
        auto* j = new_job(sp->item, task);
        j->split = sp;
        sp->ranges.push_back(j);
        j->range_at = plan[r].at;
        j->range_len = plan[r].length;
        j->range_no = r;
        return j;
    };
    for (size_t i = 0; i < items.size(); ++i) {
        // Every file gets its task at once, so the reporter's total covers the whole batch.
        int task = rep.task_begin(msg("download.task", {{"name", label_of(items[i])}}), items[i].size.value_or(0));
        const bool split = split_from_start(items[i], options, parallel);
        const uint64_t size = items[i].size.value_or(0);
        const bool tail = static_cast<bool>(options.on_split);
        if (!split) {
            auto j = new_job(i, task);
            if (!items[i].size) {
                j->split_at = options.split_at;  // may split once the size is known
                j->parallel = parallel;
                j->tail = tail;
                j->min_range = min_range;
            }
            waiting.push_back(j);
            continue;
        }
        auto plan = range_plan(size, parallel, tail, min_range);
        splits.push_back(std::make_unique<Split>());
        Split* sp = splits.back().get();
        sp->item = i;
        sp->file = part_path(items[i].dest);
        sp->left = plan.size();
        sp->total = size;
        sp->progress = std::make_shared<PartProgress>(plan, size);
        start_hash(*sp);
        // The tail (the last range) first, so its reader learns what the file holds at once.
        for (size_t k = 0; k < plan.size(); ++k)
            waiting.push_back(range_job(sp, plan, tail ? (k + plan.size() - 1) % plan.size() : k, task));
        if (tail) options.on_split(i, sp->file, sp->progress);
    }
    // Largest first: the longest transfer starts at once instead of ending the batch alone, and
    // the small ones fill the slots beside it (the ranges of one file stay together).
    std::stable_sort(waiting.begin(), waiting.end(),
                     [](const Job* a, const Job* b) { return a->item->size.value_or(0) > b->item->size.value_or(0); });

    CURLM* multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    size_t active = 0;
    std::vector<std::future<void>> sealing;  // checked files being flushed and renamed

    auto end_job = [&](Job& j, bool ok) {
        j.close_file();
        // The ranges of a split file share its task: closed once.
        bool* ended = j.split ? &j.split->ended : &j.ended;
        if (!*ended) rep.task_end(j.task, ok);
        *ended = true;
        j.ended = true;
    };
    auto launch = [&](Job& j, const std::string& range) {
        j.easy = std::make_unique<detail::CurlEasy>();
        j.status = 0;
        j.body_started = false;
        j.bad_range = false;
        if (!range.empty()) j.easy->add_header("Range: bytes=" + range);
        detail::configure(*j.easy, http, j.item->url, true);
        curl_easy_setopt(j.easy->h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(j.easy->h, CURLOPT_WRITEDATA, &j);
        curl_easy_setopt(j.easy->h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(j.easy->h, CURLOPT_HEADERDATA, &j);
        curl_easy_setopt(j.easy->h, CURLOPT_PRIVATE, &j);
        curl_multi_add_handle(multi, j.easy->h);
    };
    // A range failed for good: the whole file fails (the first error says why).
    auto fail_range = [&](Job& j, Error why) {
        if (!j.result->error) j.result->error = std::move(why);
        j.split->failed = true;
        j.split->progress->give_up();
        end_job(j, false);
    };
    auto start_range = [&](Job& j) -> bool {
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
    };
    auto start = [&](Job& j) -> bool {
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
        rep.task_advance(j.task, j.done);
        launch(j, j.done > 0 ? std::to_string(j.done) + "-" : std::string());
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
    // A range is over: written whole, retried, or its file failed (or goes whole, without ranges).
    auto range_done = [&](Job& j, CURLcode code) {
        const auto& item = *j.item;
        auto retry = [&](const Error& why) {
            if (j.range_attempts > http.retries) return fail_range(j, why);
            j.close_file();
            j.not_before = Clock::now() + detail::backoff_delay(http, j.range_attempts - 1);
            waiting.push_back(&j);
        };
        if (interrupt_requested()) {
            fail_range(j, make_error(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(item.url)}}));
        } else if (j.split->failed || j.split->no_range) {
            j.close_file();
            j.ended = true;
        } else if (j.not_ranged) {  // NOLINT(bugprone-branch-clone): as an empty 200, tested before what comes between
            // Whole from byte 0 instead of the range: the file is fetched whole after this batch.
            j.split->no_range = true;
            j.split->progress->give_up();
            j.close_file();
            j.ended = true;
        } else if (j.oversize) {
            fail_range(j, size_error(item, j.split->total, j.range_total.value_or(j.split->total + 1)));
        } else if (j.write_failed) {  // NOLINT(bugprone-branch-clone): as a failed flush, tested before the transfer's errors
            fail_range(j, make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(item.url)}}));
        } else if (code != CURLE_OK && !j.cut) {
            auto err = detail::transport_error(code, item.url, j.easy->errbuf, http);
            if (detail::retryable(code)) retry(err);
            else fail_range(j, err);
        } else if (detail::retryable_status(j.status)) {
            retry(http_status_error(j.status, item.url));
        } else if (j.status >= 400) {
            fail_range(j, http_status_error(j.status, item.url));
        } else if (j.status != 206 && !j.cut) {  // an empty 200: no ranges here
            j.split->no_range = true;
            j.split->progress->give_up();
            j.close_file();
            j.ended = true;
        } else if (j.done != j.range_len) {  // a range cut short: the file is not what the index says
            fail_range(j, size_error(item, j.split->total, j.split->total - (j.range_len - j.done)));
        } else if (std::fflush(j.file) != 0) {
            fail_range(j, make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(item.url)}}));
        } else {
            j.close_file();
            j.ended = true;
            if (--j.split->left == 0) sealing.push_back(std::async(std::launch::async, [&j] { finish_split(j); }));
        }
    };
    auto on_done = [&](Job& j, CURLcode code) {
        curl_multi_remove_handle(multi, j.easy->h);
        --active;
        j.drain();  // every byte received is in the file before it is looked at
        if (j.split) {
            range_done(j, code);
            j.easy.reset();
            return;
        }
        const auto& item = *j.item;
        if (j.oversize) {
            discard_part(j);
            j.result->error = size_error(item, j.done + 1);
            end_job(j, false);
        } else if (j.too_large) {
            discard_part(j);
            j.result->error = make_error(ExitCode::HashMismatch, "download.too_large",
                                         {{"url", redact_url(item.url)}, {"limit", str::human_bytes(j.limit)}});
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
                sealing.push_back(std::async(std::launch::async, [&j] {
                    const auto now = Clock::now();  // hashed already, above
                    seal(j, now, now);
                }));
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
        // Files whose size an answer just told: their other ranges start next, before other files.
        for (size_t k = 0, n = jobs.size(); k < n; ++k) {
            Job& j = *jobs[k];
            if (!j.learned) continue;
            Split* sp = j.learned.get();
            splits.push_back(std::move(j.learned));
            if (sp->failed) continue;
            auto plan = range_plan(sp->total, j.parallel, j.tail, j.min_range);
            // Pushed to the front in reverse: the tail (last) goes first, then the others in order.
            const size_t body = plan.size() - (j.tail ? 1 : 0);
            std::vector<size_t> order;
            for (size_t r = body; r-- > 1;) order.push_back(r);
            if (j.tail) order.push_back(plan.size() - 1);
            for (size_t r : order) waiting.push_front(range_job(sp, plan, r, j.task));
            start_hash(*sp);
            if (j.tail) options.on_split(j.index, sp->file, sp->progress);
        }
        if (active > 0 || !waiting.empty()) curl_multi_poll(multi, nullptr, 0, 50, nullptr);
    }
    for (auto& f : sealing) f.get();
    for (const auto& j : jobs) report_sealed(*j);
    settle_batch(jobs, rep, options.flush_later);
    // Readers of a file not complete stop waiting for it (one complete has all its bytes written).
    for (const auto& sp : splits)
        if (results[sp->item].path.empty()) sp->progress->give_up();
    // A server that ignored Range: those files whole now, one connection each.
    std::vector<DownloadItem> whole;
    std::vector<size_t> whole_of;
    for (const auto& sp : splits) {
        if (!sp->no_range || sp->failed || !results[sp->item].ok() || interrupt_requested()) continue;
        std::filesystem::remove(sp->file, ec);
        sp->refetched = true;
        // Its task ends here; the whole file's transfer opens its own.
        if (!sp->ended && !sp->ranges.empty()) rep.task_end(sp->ranges.front()->task, true);
        sp->ended = true;
        whole.push_back(items[sp->item]);
        whole_of.push_back(sp->item);
    }
    if (!whole.empty()) {
        DownloadOptions o = options;
        o.split_at = 0;
        o.flush_later = nullptr;  // these few flushed before they are returned (a batch; Leave leaves them)
        o.on_ready = [&](size_t k) {
            if (options.on_ready) options.on_ready(whole_of[k]);
        };
        auto again = download_files(whole, http, rep, o);
        for (size_t k = 0; k < again.size(); ++k) results[whole_of[k]] = std::move(again[k]);
    }
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
    // A split file not sealed has holes: only its written prefix stays, for the next run to resume.
    for (const auto& sp : splits) {
        if (!results[sp->item].path.empty() || sp->refetched) continue;
        if (auto keep = written_prefix(*sp); keep > 0) std::filesystem::resize_file(sp->file, keep, ec);
        else std::filesystem::remove(sp->file, ec);
    }
    curl_multi_cleanup(multi);
    return results;
}

}  // namespace envfix::resolver
