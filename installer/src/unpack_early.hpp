#pragma once
// A wheel's large libraries inflated while the wheel still downloads (docs/performance.md,
// "Inflating while downloading"). The downloader fetches a large wheel in byte ranges, the
// archive's end (its directory) first; from that directory this reads each large entry as its
// bytes arrive, through the streaming inflater, into an unpacked-cache entry begun for the
// wheel. Nothing made here is trusted: once the whole wheel is checked (its sha256), the
// unpacking (unpack_ahead.cpp) takes a file only when its SHA-256 and size equal the checked
// wheel's RECORD row, its CRC-32 the checked directory's, its name that entry's; the rest is
// inflated from the checked wheel as before.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/network/downloader.hpp"
#include "envfix/wheel/zip_read.hpp"
#include "file_ops.hpp"

namespace envfix::installer {

// Threads lent, in all, to inflating single large deflate streams on several threads
// (inflate_parallel.hpp) while their wheels download; one per install. Each wheel lends them to
// its costliest entry only (in a switch: libtorch_cpu.so), which takes up to what is left when it
// starts (one worker per 2 MiB of its compressed bytes) and gives them back when it ends.
class InflateHelpers {
public:
    // `least`: fewer workers than this are not taken (on the H200 one worker of the parallel
    // inflater reaches 161 MB/s on libtorch_cpu.so, ISA-L alone 388 MB/s: 3 workers only break even).
    // `streams`: that many of a wheel's costliest streams are lent workers, each at most its share
    // of the n (but `least`), so that the first to start does not take them all.
    // `late`: whether take_late() gives any (ENVFIX_INFLATE_HANDOVER).
    explicit InflateHelpers(unsigned n, unsigned least = 4, unsigned streams = 1, bool late = true)
        : least_(std::max(2u, least)), left_(n), streams_(std::max(1u, streams)),
          per_stream_(streams_ > 1 ? std::max(least_, n / streams_) : n), late_(late) {}
    // Workers for a stream of `compressed` bytes: 0 (inflate it on this thread) or `least` and more.
    unsigned take(uint64_t compressed);
    void give_back(unsigned n);
    unsigned streams() const { return streams_; }
    // A stream running on one thread, as it goes (stream_zip_entry_handing_over): what it has left
    // where it is behind its download (nullopt: it keeps up, or it ended). Workers free go to the
    // stream with the most left of those behind, by take()'s rules; one given some is forgotten.
    unsigned take_late(const void* stream, std::optional<uint64_t> left);
    bool late() const { return late_; }

private:
    std::mutex mu_;
    std::map<const void*, uint64_t> behind_;  // take_late's streams behind their download, and what they have left
    unsigned least_;
    unsigned left_;
    unsigned streams_;
    unsigned per_stream_;
    bool late_;
};

class EarlyUnpack {
public:
    struct File {
        std::string name;         // the entry's name in the directory read early
        uint64_t size = 0;
        uint32_t crc32 = 0;
        std::string sha256;       // RECORD's encoding (urlsafe base64)
        bool executable = false;  // the mode it was written with
        // -vv: since the epoch given, when its first compressed bytes were read, when its last
        // were, and when it was inflated, hashed and written (what a switch waits for).
        uint64_t compressed = 0;
        uint64_t first_ms = 0, bytes_ms = 0, end_ms = 0;
        unsigned workers = 0;  // inflated by this many workers at once (0: by the reading thread)
        // Where workers took the stream over from the reading thread: when, and after how many
        // of its compressed bytes (0: they did not, or had it from the start).
        uint64_t joined_ms = 0, joined_at = 0;
        UnpackAhead::EarlyTimes times;
    };

    // `part`: the download's .part file, opened here (the downloader may rename it afterwards);
    // `entry`: an unpacked-cache entry begun for this wheel (unpacked::begin_entry), whose
    // entry_file(entry, i) receives the directory's entry i. Entries of `from` bytes or more;
    // `keep`: a switch's installed files, which are linked, not inflated (nullptr: none).
    // Throws what starting a thread throws.
    // `epoch`: where File's times count from. `helpers`: workers the install lends to its largest
    // streams (nullptr: none).
    EarlyUnpack(const std::filesystem::path& part, std::shared_ptr<network::PartProgress> progress, std::filesystem::path entry,
                std::shared_ptr<const InstalledContent> keep, uint64_t from, std::chrono::steady_clock::time_point epoch,
                std::shared_ptr<InflateHelpers> helpers = nullptr);
    ~EarlyUnpack();  // stops, waits, removes the entry unless it was taken
    EarlyUnpack(const EarlyUnpack&) = delete;
    EarlyUnpack& operator=(const EarlyUnpack&) = delete;

    // Waits for the readers: once the download is complete they have every byte, once it is
    // given up they stop.
    void wait();
    // Waits until the readers have started: the entries (by index in the directory read early)
    // they inflate, whose files nothing else may write meanwhile. Empty where none started.
    std::vector<size_t> chosen();
    // The entry folder the readers write into: the rest of the wheel's files may be staged into
    // it while they run (each file is its entry's own); the caller's once taken.
    const std::filesystem::path& entry() const { return entry_; }
    // After wait(): the entry folder, the caller's from now on, and what it holds by entry index.
    std::filesystem::path take_entry();
    const std::map<size_t, File>& files() const { return files_; }
    // Stops the readers (what they wrote stays until the entry is removed).
    void cancel();

private:
    struct Job {
        size_t index = 0;
        wheel::ZipEntry entry;
        std::string raw_name;
        bool lend = false;  // the entry that workers are lent to (InflateHelpers), if any
    };
    void plan();
    // The entries to inflate early, per range, from the directory read from the tail.
    std::vector<std::vector<Job>> choose();
    void read_range(std::vector<Job> jobs);
    Expected<size_t> read_at(uint64_t offset, char* into, size_t n);
    Expected<wheel::ZipEntry> with_data_offset(const wheel::ZipEntry& entry, std::string_view raw_name);
    Expected<File> inflate_one(const Job& job);
    Expected<std::string> read_text(const wheel::ZipEntry& e);

    std::shared_ptr<network::PartProgress> progress_;
    std::filesystem::path entry_;
    std::shared_ptr<const InstalledContent> keep_;
    uint64_t from_ = 0;
    std::chrono::steady_clock::time_point epoch_;
    std::shared_ptr<InflateHelpers> helpers_;
    std::string source_;                 // the .part's name, for errors
    std::optional<fileops::InFile> part_;  // opened at once: the .part is renamed once it is complete
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable started_;
    std::optional<std::vector<size_t>> chosen_;  // set once the readers have started
    std::map<size_t, File> files_;
    std::thread planner_;
    std::vector<std::thread> readers_;  // started by the planner, joined by it
    bool taken_ = false;
};

}  // namespace envfix::installer
