#pragma once
// The downloader's pieces (downloader.hpp), private to network/: one file's transfer (Job), a
// file fetched as byte ranges (Split), and the units that act on them: resuming a .part
// (download_resume.cpp), ranged transfers (download_ranges.cpp), durability (download_durability.cpp),
// the answer's headers and body (download_body.cpp), the transfer loop (download_transfers.cpp).
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "curl_session.hpp"
#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/network/downloader.hpp"
#include "file_sync.hpp"
#include "transfer_writer.hpp"

namespace envfix::network::download {

using Clock = std::chrono::steady_clock;

// A file fetched as byte ranges at once (DownloadOptions::split_at), each range its own Job
// writing in place into the file's .part; checked and sealed once the last range is written.
struct Job;
struct Split {
    size_t item = 0;
    std::filesystem::path file;  // the .part file, as large as the whole file
    size_t left = 0;  // ranges not written yet
    uint64_t total = 0;  // the file's size (the index's, or learned from the first answer)
    std::vector<Job*> ranges;
    uint64_t done = 0;  // bytes written by all ranges (progress)
    bool failed = false;  // a range failed for good (the result says why)
    bool no_range = false;  // the server answered without the range: fetched whole afterwards
    bool refetched = false;  // ... and so it was: its .part is that transfer's, not the ranges'
    bool ended = false;  // the progress task was closed
    std::shared_ptr<PartProgress> progress;  // what is written (for the hash below and an on_split reader); always set
    std::future<std::optional<std::string>> hash;  // follow_hash(): the sha256 taken as the bytes came
};

struct Job {
    const DownloadItem* item = nullptr;
    DownloadResult* result = nullptr;
    std::filesystem::path part;
    std::unique_ptr<detail::CurlEasy> easy;
    std::FILE* file = nullptr;
    uint64_t done = 0;  // bytes in the .part file
    uint64_t range_from = 0;  // what this transfer asked for (0 = whole file)
    long status = 0;  // status of the last response seen
    std::optional<uint64_t> range_start;  // first byte of a 206 answer (Content-Range)
    std::optional<uint64_t> range_total;  // the whole file's size in that answer ("/total")
    bool bad_range = false;  // the server sent another range than asked for
    bool body_started = false;
    bool oversize = false;
    bool write_failed = false;
    // Where no size was announced: the most bytes the .part may hold (the server's
    // Content-Length, never more than HttpOptions::max_download), and whether it was passed.
    uint64_t limit = UINT64_MAX;
    uint64_t max_download = UINT64_MAX;
    bool too_large = false;
    int task = 0;
    bool ended = false;  // the progress task was closed
    bool fresh_start = false;  // a resumed file failed its check and was started again
    Reporter* rep = nullptr;
    Clock::time_point began{};  // when download_files started (-vv timings)
    DownloadFlush flush = DownloadFlush::EachFile;  // DownloadOptions::flush
    bool marked = false;  // placed beside its unsynced marker, flushed when the batch ends
    // -vv: when the file was checked and in place, and what hashing and flushing took; set on
    // the sealing thread, told by the calling thread once every sealing ended (the Reporter is
    // not asked to take calls from several threads).
    std::optional<std::array<Clock::duration, 3>> sealed;
    Clock::time_point not_before{};
    size_t index = 0;
    const std::function<void(size_t)>* on_ready = nullptr;
    Split* split = nullptr;  // one range of a split file: [range_at, range_at + range_len)
    uint64_t range_at = 0, range_len = 0;
    size_t range_no = 0;  // its place in split->progress
    int range_attempts = 0;
    bool not_ranged = false;  // the answer was not this range
    // A whole-file transfer of unknown size may become the first range once its answer gives
    // the size (learned); its transfer is cut at the range's end (cut).
    uint64_t split_at = 0;
    size_t parallel = 1;
    bool tail = false;  // DownloadOptions::on_split is set: ranges with a tail
    uint64_t min_range = 0;  // DownloadOptions::min_range
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

std::string label_of(const DownloadItem& it);
Error size_error(const DownloadItem& it, uint64_t expected, uint64_t got);
Error size_error(const DownloadItem& it, uint64_t got);  // against the item's size

// Resuming (download_resume.cpp).
// Opens the .part file, continuing it when it holds a usable prefix.
Expected<void> open_part(Job& j);
// Restarts from byte 0 (the server ignored Range, or the .part is not a prefix).
void restart_part(Job& j);
void discard_part(Job& j);
// A .part that already holds every expected byte needs no transfer, once its hash is checked.
bool part_is_complete(const Job& j);
// The bytes are all there: their size and hash checked (false: the .part is gone, the error set).
bool verify(Job& j);
// verify(), then seal().
void finish(Job& j);

// Ranged transfers (download_ranges.cpp).
// The ranges of a file of `total` bytes (with a reader watching, a small tail range last).
std::vector<PartProgress::Range> range_plan(uint64_t total, size_t parallel, bool tail, uint64_t min_range);
// The file's sha256 taken as its ranges write it, on a thread of its own.
void start_hash(Split& sp);
// Whether the file is split into ranges from the start (its .part then made at its full size).
bool split_from_start(const DownloadItem& it, const DownloadOptions& o, size_t parallel);
// A whole-file transfer whose answer told a size worth splitting becomes the first range of a
// Split it makes (Job::learned); whether it did.
bool learn_split(Job& j, uint64_t total);
// Every range written: hash checked, flushed, renamed into place (off the transfer thread).
void finish_split(Job& j);
// What of an unfinished split file is a prefix of it, kept for the next run to resume.
uint64_t written_prefix(const Split& sp);

// Durability (download_durability.cpp).
// Flushes `path` to the disk, through `open` when it is still open there.
bool flush_file(const std::filesystem::path& path, std::FILE* open);
// The checked bytes at `from` made durable (or marked to be) and renamed to the item's dest;
// false: the result's error says why, `failed_at` the file left where it failed.
bool place(Job& j, const std::filesystem::path& from, Clock::time_point started, Clock::time_point hashed,
           std::filesystem::path& failed_at);
// A checked file flushed to the disk and moved into place (off the transfer thread).
void seal(Job& j, Clock::time_point started, Clock::time_point hashed);
void report_sealed(const Job& j);
// The batch's files beside their markers: flushed now, or left to a PendingFlush (later).
void settle_batch(const std::vector<std::unique_ptr<Job>>& jobs, Reporter& rep, std::unique_ptr<PendingFlush>* later);

// The answer (download_body.cpp): curl's header and body callbacks, with the Job as user data.
size_t on_header(char* data, size_t size, size_t n, void* user);
size_t on_body(char* data, size_t size, size_t n, void* user);

}  // namespace envfix::network::download
