#pragma once
// Parallel downloads through the one HTTP client's settings (curl multi interface): resume
// of partial files (Range on "<dest>.part"), retries, sha256 computed while streaming and
// checked before a file is accepted, size checks, progress per file (and so in total) through
// the Reporter, Ctrl-C leaving only .part files. Callers (the installer's wheel cache) pass
// what they expect of each file and get one result per file.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/network/http_client.hpp"

namespace envfix::network {

struct DownloadItem {
    std::string url;  // may carry credentials; messages redact them
    std::string sha256;  // expected lower-case hex; "" = not checked (still computed)
    std::optional<uint64_t> size;  // expected size in bytes, when the index says
    std::filesystem::path dest;  // the accepted file (distinct per item); bytes go to dest + ".part" until checked
    std::string label;  // progress label; "" = the file name
};

struct DownloadResult {
    std::filesystem::path path;  // dest (valid when ok())
    std::string sha256;  // actual digest of the accepted bytes
    uint64_t size = 0;
    int attempts = 0;  // transfers started (0: an existing complete .part was accepted)
    bool resumed = false;  // some bytes came from an earlier partial transfer
    bool hashed_while_downloading = false;  // fetched in ranges, hashed as its bytes arrived in order
    std::optional<Error> error;  // HashMismatch, Network, HttpStatus, Tls, Interrupted, ...
    bool ok() const { return !error.has_value(); }
};

// What of a file fetched in byte ranges is written so far, for a reader that starts on it before
// it is complete (the installer inflates a large wheel's libraries while the rest arrives). The
// bytes are not checked: whatever is read early must be checked again once the file is (its
// sha256, or what it guarantees). The downloader writes each range with write(), so what is
// reported written is what another descriptor reads.
class PartProgress {
public:
    struct Range {
        uint64_t at = 0, length = 0, written = 0;
    };
    explicit PartProgress(std::vector<Range> ranges, uint64_t total) : ranges_(std::move(ranges)), total_(total) {}
    uint64_t total() const { return total_; }
    std::vector<Range> ranges() const;
    // Waits until [from, from + n) is written; false once the ranges were given up (a range
    // fetched again, a server without Range, a failure, the end of the downloads) or `*stop` is
    // set (the reader's own flag, with wake()).
    bool wait_for(uint64_t from, uint64_t n, const std::atomic<bool>* stop = nullptr);
    // Whether [from, from + n) is written now (no waiting).
    bool has(uint64_t from, uint64_t n) const;
    // Wakes every waiting reader, to look at its stop flag.
    void wake();

    // The downloader's side.
    void advance(size_t range, uint64_t written);
    void give_up();
    bool given_up() const;

private:
    bool covered(uint64_t from, uint64_t n) const;  // mu_ held
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::vector<Range> ranges_;
    uint64_t total_ = 0;
    std::vector<std::pair<uint64_t, uint64_t>> waiters_;  // what each waiting reader waits for
    bool gone_ = false;
};

// How a checked download reaches the disk before it is trusted under its name.
enum class DownloadFlush {
    // Flushed (fsync) before it is renamed into place and handed over. On the GPU machine one
    // flush took 0.2-3 s while other files were written, and the handover waited for it.
    EachFile,
    // Renamed into place at once, beside a marker "<dest>.unsynced" made before the rename, and
    // handed over; once every transfer has ended, each filesystem written to is flushed once
    // (syncfs) and the markers go, before download_files returns (or on a thread of its own that
    // the caller waits for: DownloadOptions::flush_later). A file still beside its marker
    // (a crash before that flush) is trusted only once its bytes match its hash again
    // (settle_unsynced).
    Batch,
    // Renamed into place beside its marker, as Batch, and not flushed at all: for files only a
    // cache holds (an install's wheels, unpacked before its commit, whose flush writes only the
    // environment's files: 2.75 GB fewer for a torch stack). The marker names this boot, so this
    // boot trusts the file as it is and a later one checks its hash first (settle_unsynced).
    // Batch where the boot is not known (Windows).
    Leave,
};

// What download_files does when asked for `asked`: EachFile when ENVFIX_DOWNLOAD_FLUSH=each,
// Batch when it is batch (for measuring), Batch for Leave where this boot has no identity, else
// `asked`.
DownloadFlush chosen_flush(DownloadFlush asked);

// The marker beside a file renamed into place before it was flushed (DownloadFlush::Batch,
// Leave). It holds "envfix-unsynced 1" and the boot id of the boot that wrote the file.
std::filesystem::path unsynced_marker(const std::filesystem::path& dest);
// The marker's text for this boot ("" where the boot has no identity: an empty marker, which
// every later run checks by hash).
const std::string& unsynced_marker_text();

// A file found beside its unsynced marker, trusted or not:
// - the marker names this boot: the file is the bytes that were checked (a crash since would
//   have been a new boot): true; once the marker is a minute old (the kernel has written the
//   file back by then) the file is flushed and the marker removed;
// - else (another boot, an empty or older marker): true once its sha256 is `sha256` and it is
//   flushed (the marker removed); false when it is not (file and marker removed: fetch it again).
bool settle_unsynced(const std::filesystem::path& file, const std::string& sha256);

// A batch's flush (DownloadFlush::Batch) left running on a thread of its own when download_files
// returned (DownloadOptions::flush_later): the caller works on meanwhile (an install plans while
// the 7 GB of a cold install's wheels and unpacked files reach the disk) and waits for it before
// it trusts the files to be durable. Until then each file lies beside its unsynced marker.
class PendingFlush {
public:
    struct File {
        size_t index = 0;  // the item's index in download_files' list
        std::filesystem::path dest;
        std::string url;  // for the message (redacted there)
    };
    // The files whose markers the flush settles; starts the thread (throws std::system_error
    // when none can be started).
    explicit PendingFlush(std::vector<File> files);
    ~PendingFlush();  // waits for it
    PendingFlush(const PendingFlush&) = delete;
    PendingFlush& operator=(const PendingFlush&) = delete;
    // Waits for the flush and tells its debug line (from the caller's thread, as the Reporter
    // wants). The files that could not be made durable: each removed, with its index and why
    // (DiskFull). A second call returns nothing.
    std::vector<std::pair<size_t, Error>> wait(Reporter& reporter);

private:
    std::vector<File> files_;
    std::vector<std::pair<size_t, Error>> failed_;
    int64_t ms_ = 0;
    bool told_ = false;
    std::thread thread_;
};

// ENVFIX_SPLIT_DOWNLOADS_AT, else 64 MiB.
uint64_t default_split_at();

struct DownloadOptions {
    int parallel = 4;  // transfers at once
    // A file of at least this size whose hash is known is fetched in `parallel` byte ranges at
    // once, each written in place into "<dest>.part" (0: never). The size comes from the index,
    // else from the first answer, which then becomes the first range. The largest file arrives
    // first at the speed of all connections, instead of last at the speed of one (an install
    // unpacks each file as it arrives). A server that ignores Range gets the file whole; a run
    // stopped half way keeps the prefix written from byte 0 on, for the next run to resume.
    uint64_t split_at = default_split_at();
    // A split file's ranges are this long at least: more ranges than connections (up to four per
    // connection) only for files of several times this size, which then arrive roughly in order
    // and are hashed as they do (0: 16 MiB; tests lower it).
    uint64_t min_range = 0;
    // Called with an item's index once its file is checked and in place at `dest`, on the thread
    // that sealed it (several at once): the caller may start using it while others download.
    std::function<void(size_t)> on_ready;
    // How checked files reach the disk (DownloadFlush, chosen_flush).
    DownloadFlush flush = DownloadFlush::Batch;
    // Batch: set, the batch's flush is left running when download_files returns and *flush_later
    // holds it (PendingFlush; null when there was nothing to flush); unset, download_files waits.
    std::unique_ptr<PendingFlush>* flush_later = nullptr;
    // Called once a file is to be fetched in ranges, on the transfer thread (keep it short): its
    // index, its .part file and what of it is written. The ranges then start with a small one at
    // the file's end (a zip archive's directory), so a reader learns early what the file holds.
    std::function<void(size_t, const std::filesystem::path&, std::shared_ptr<PartProgress>)> on_split;
};

// Never throws; one result per item, in the same order. Offline mode refuses every item
// with NotCached (wheels are not in the HTTP cache; the installer's own cache comes first).
std::vector<DownloadResult> download_files(const std::vector<DownloadItem>& items, const HttpOptions& http, Reporter& reporter,
                                           const DownloadOptions& options = {});

// The path partial bytes of `dest` are kept in.
std::filesystem::path part_path(const std::filesystem::path& dest);

}  // namespace envfix::network
