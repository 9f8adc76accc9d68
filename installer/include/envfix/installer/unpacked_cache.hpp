#pragma once
// The cache of unpacked wheels shared by every environment: fs::cache_dir()/unpacked/.
// Layout (version 2, the "v2" folder):
//   unpacked/v2/<wheel sha256>/ENVFIX-UNPACKED   the marker: format version, the sha256, file count
//   unpacked/v2/<wheel sha256>/ENVFIX-ON-DISK    there once a commit made every file of the entry
//                                               durable (unpacked_store.hpp, entry_on_disk)
//   unpacked/v2/<wheel sha256>/f/<i % 16>/<i>    each file the wheel installs as it is, named by its
//                                               entry's index i in the archive (fixed by the hash),
//                                               in 16 folders (one folder's lock made threads queue)
//   unpacked/v2/keys/<path digest>               a local wheel's sha256, valid while its size,
//                                               mtime and inode are the recorded ones
//   unpacked/v2/tmp/                             entries being made (renamed into place whole)
//   unpacked/v2/ready/                           ready trees: entries' files already linked in the
//                                               folders they take in an environment, made in the
//                                               background for the next install (ready_tree.hpp)
// Version 1 (all of an entry's files in f/) is removed by the sweep and by clean.
// An entry is made from files already checked against the wheel's RECORD, as hard links of the
// staged files, and renamed into place whole with its marker inside: a reader never sees half an
// entry; a folder without a valid marker is never used. Installing a wheel whose entry exists
// hard-links its files into staging (copies across filesystems) instead of inflating them.
// docs/snapshots.md#the-unpacked-wheel-cache.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/installer/wheel_cache.hpp"
#include "envfix/standards/installed.hpp"

namespace envfix::installer {

std::filesystem::path unpacked_cache_root();  // fs::cache_dir()/unpacked

struct UnpackedEntry {
    std::filesystem::path dir;
    std::string sha256;
    size_t files = 0;
    uint64_t bytes = 0;
};

// Every entry with a valid marker, sorted by sha256.
std::vector<UnpackedEntry> list_unpacked(const std::filesystem::path& root);

// Removes the whole versioned tree (entries, keys, entries being made). Files hard-linked into
// environments stay there: only the cache's names go.
Expected<CleanResult> clean_unpacked_cache(const std::filesystem::path& root);

// Installed files an entry made ahead may link instead of inflating, by RECORD hash ("sha256=..."):
// a switch (torch +cu126 -> +cu128) keeps most of torch's 11 800 files. Only the named
// distributions' files inside `root`; the stager hashes each one before trusting it and inflates
// the entry when it differs (keep_links.hpp in an install does the same by path).
struct InstalledContent {
    struct File {
        std::filesystem::path::string_type path;  // native: a switch's 17 000, no path made for each
        standards::RecordEntry row;  // what the installed RECORD says of it
    };
    std::unordered_map<std::string, File> by_hash;
};
// Installed files whose bytes the snapshot of the present vouches for (snapshot.cpp's rules: the
// identity a snapshot hashed or took from an envfix RECORD older than the file, else hashed now),
// by path relative to `root` ('/'-separated), each with the identity it had then and its sha256
// (hex). An entry made ahead links such a file without reading it again while it is the same inode
// with the same size and mtime (UnpackAhead::know_present): on the GPU machine hashing a switch's
// 11 800 kept files, read back from the disk, was the last 0.05-0.25 s of torch's unpacking.
struct KnownInstalled {
    struct File {
        uint64_t device = 0, inode = 0, size = 0;
        int64_t mtime_ns = 0;
        std::string sha256;
    };
    std::filesystem::path root;  // lexically normal
    std::unordered_map<std::string, File> files;
};

// Errors: none; what cannot be read is left out.
InstalledContent installed_content(const std::vector<std::filesystem::path>& site_packages, const std::filesystem::path& root,
                                   const std::set<std::string>& canonical_names);

// Makes the entry of one checked wheel straight from its archive: every file an install would
// inflate from it, checked against its RECORD, written into a new entry renamed into place
// whole. An install that follows links them, as from any entry. false: the entry was already
// there. Errors: the wheel's (BadWheel, "zip.*"), file errors, Interrupted; nothing is left behind.
Expected<bool> unpack_into_cache(const std::filesystem::path& root, const std::filesystem::path& wheel,
                                 const std::string& sha256, unsigned threads = 0, const InstalledContent* keep = nullptr);

// Ready trees (docs/performance.md, "Ready trees"): an install that links a large wheel from its
// entry asks for one (InstallRequest::ready_trees, InstallResult::ready_trees_wanted); this, the
// maker (`envfix cache ready`, started in the background after an install), makes one tree per
// waiting want, for wheels whose entry is on the disk (every file the right size and unchanged
// since, so an install that uses the tree brings in no data that still needs writing back).
// Takes ready/.lock without waiting; removes claimed trees and unfinished ones older than an
// hour. Errors: none (best effort, as the cache).
struct ReadyTreesMade {
    size_t trees = 0, files = 0, folders = 0;
    size_t skipped = 0;  // asked for, not made (entry gone, not yet on the disk, files changed)
    bool busy = false;   // another envfix was making them
    double seconds = 0;
};
ReadyTreesMade make_ready_trees(const std::filesystem::path& root);

class EarlyUnpack;
}  // namespace envfix::installer
namespace envfix::network {
class PartProgress;
}  // namespace envfix::network
namespace envfix::installer {

class InflateHelpers;

// How many threads an install that downloads `wheels` wheels lends to inflating single large
// streams (UnpackAhead::lend_inflate_helpers): half the cores, at most 8, where at most 4 wheels
// download (a switch, whose wait is torch's largest library) and the machine has 8 cores or
// more (fewer than 4 workers are slower than one thread of ISA-L); none where more do (a cold
// install: the cores are busy with the other wheels, and each worker's chunks would add to its
// peak memory). ENVFIX_INFLATE_HELPERS sets the number.
unsigned inflate_helpers_for(size_t wheels);
// How many of a wheel's costliest streams share them (ENVFIX_INFLATE_STREAMS; default 1).
unsigned inflate_streams();
// Whether workers given back take over the stream on one thread with the most left behind its
// download (ENVFIX_INFLATE_HANDOVER=0: never; default: they do).
bool inflate_handover();

// Unpacks wheels into the cache on its own threads as they are handed over: a cold install hands
// each wheel over when its download is checked, so the inflating overlaps the downloads still
// running and the install itself only links (docs/performance.md, "Unpacking while
// downloading"). Each runner takes every wheel waiting as one batch, one staging run for all of
// them. Best effort: an install inflates what did not make it.
class UnpackAhead {
public:
    // runners: batches at once (0: half the cores, 4 to 8); threads: per batch (0: one per 128
    // files, 2 to twice the cores). keep: installed files to link where their hash matches (a
    // switch), or nullptr.
    // early_from: entries of this size or more are inflated while their wheel downloads (early();
    // 0: 16 MiB; tests lower it).
    explicit UnpackAhead(std::filesystem::path root, unsigned runners = 0, unsigned threads = 0,
                         std::shared_ptr<const InstalledContent> keep = nullptr, uint64_t early_from = 0);
    ~UnpackAhead();  // what has not started is dropped; what runs is waited for
    UnpackAhead(const UnpackAhead&) = delete;
    UnpackAhead& operator=(const UnpackAhead&) = delete;

    // Thread-safe: called from the downloader's threads.
    void add(std::filesystem::path wheel, std::string sha256);
    // A wheel fetched in byte ranges (network::DownloadOptions::on_split): its large entries are
    // inflated as their bytes arrive, into the entry add() then completes; nothing of it is used
    // before the wheel is checked and each file matches its checked RECORD row. Thread-safe, quick
    // (on the transfer thread). Not on Windows, nor with ENVFIX_UNPACK_EARLY=0.
    void early(const std::filesystem::path& part, const std::string& sha256, std::shared_ptr<network::PartProgress> progress);
    // Whether early() reads anything here (so a caller need not ask for ranges with a tail).
    bool reads_early() const;
    // Threads lent, in all, to inflating the largest entries early() reads one stream on several
    // threads at once (docs/inflate-parallel.md); before the first early(). 0 (the default): none.
    void lend_inflate_helpers(unsigned n);

    // Where the thread that hands an early file's output on spent its time, and the threads that
    // hash and write it theirs (-vv, ms): what bounds a large library's stream.
    struct EarlyTimes {
        uint64_t reading = 0;  // its reads waiting for the download and reading the .part (every thread's)
        uint64_t between = 0;  // between two pieces of output: inflating them, or waiting for its workers
        uint64_t handing = 0;  // handing them on to the hashing and writing
        uint64_t full = 0;     // of that, waiting for room (both behind)
        uint64_t hashing = 0, writing = 0;  // those threads busy (0: done inline)
    };
    struct Batch {
        size_t wheels = 0, files = 0;
        uint64_t from_ms = 0, to_ms = 0;  // since this object was made
        // Where the batch's time went (-vv): its wheels read while they downloaded were waited for
        // until early_ms (0: none); its other files were staged from staged_ms to rest_ms, beside
        // those readers.
        uint64_t early_ms = 0, staged_ms = 0, rest_ms = 0;
    };
    // A file inflated while its wheel downloaded and taken (-vv): when its compressed bytes were
    // read, from the first to the last, and when it was inflated, hashed and written; ms since
    // this object was made.
    struct EarlyFile {
        std::string name;
        uint64_t size = 0, compressed = 0;
        uint64_t first_ms = 0, bytes_ms = 0, end_ms = 0;
        unsigned workers = 0;  // inflated by this many workers at once (0: by the thread reading it)
        uint64_t joined_ms = 0, joined_at = 0;  // taken over by them from the thread at this time and compressed byte (0: not)
        EarlyTimes times;
    };
    struct Outcome {
        size_t unpacked = 0;           // entries made
        size_t present = 0;            // already in the cache
        size_t files = 0;              // files inflated
        size_t early_wheels = 0;       // wheels read while they downloaded
        size_t early_taken = 0;        // files inflated then, and taken once the wheel was checked
        size_t early_refused = 0;      // ... and not taken (inflated again from the checked wheel)
        std::vector<EarlyFile> early_files;  // those taken
        size_t kept_vouched = 0;       // installed files a switch keeps, linked unread (KnownInstalled)
        size_t kept_read = 0;          // ... linked once their bytes were read and matched
        std::vector<Error> errors;     // one per wheel that could not be unpacked
        std::vector<Batch> batches;    // each runner's batches, in the order they ended (-vv)
        unsigned runners = 0;          // how many run at most (ENVFIX_UNPACK_RUNNERS, else by the cores);
                                       // none is made where every wheel is unpacked already
    };
    // What the install's snapshot of the present says of the installed files `keep` names, once it
    // is captured (nullptr: none comes). An entry that links kept files waits for it (or for
    // finish()) before it stages them, and hashes those it does not vouch for. Thread-safe.
    void know_present(std::shared_ptr<const KnownInstalled> known);

    // Waits for every wheel handed over.
    Outcome finish();

private:
    void work();
    std::shared_ptr<const KnownInstalled> await_known();

    std::filesystem::path root_;
    unsigned threads_;
    std::shared_ptr<const InstalledContent> keep_;
    uint64_t early_from_;
    std::shared_ptr<InflateHelpers> helpers_;
    std::chrono::steady_clock::time_point started_;
    std::atomic<bool> swept_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::pair<std::filesystem::path, std::string>> queue_;
    bool closing_ = false;
    bool known_told_ = false;  // know_present() was called
    std::condition_variable known_cv_;  // its own: a runner waiting here must not take add()'s notify_one
    std::shared_ptr<const KnownInstalled> known_;
    Outcome outcome_;
    std::map<std::string, std::shared_ptr<EarlyUnpack>> early_;  // by sha256, until add() takes it
    std::vector<std::thread> workers_;
};

}  // namespace envfix::installer
