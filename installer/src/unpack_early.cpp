// A wheel's large libraries inflated while it downloads (unpack_early.hpp).
#include "unpack_early.hpp"

#include <algorithm>
#include <optional>
#include <semaphore>
#include <system_error>
#include <unordered_map>

#include "envfix/common/interrupt.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/wheel/zip_format.hpp"
#include "file_ops.hpp"
#include "keep_links.hpp"
#include "record_hash.hpp"
#include "unpacked_store.hpp"
#include "write_behind.hpp"

namespace envfix::installer {

namespace {

constexpr size_t kPiece = 128u << 10;
// The directory is read from the archive's last bytes: this much first (torch's is 1.5 MB).
constexpr uint64_t kTailGuess = 4u << 20;
constexpr uint64_t kMaxDirectory = 32u << 20;  // torch's is 1.5 MB; more is left to the checked wheel
constexpr uint64_t kMaxRecord = 64u << 20;

// Entries inflated early at once in the whole process (several wheels download at once): each
// holds two pieces and a write-behind ring, and takes a core from the unpacking of the wheels
// already complete.
std::counting_semaphore<64>& inflating_slots() {
    static std::counting_semaphore<64> slots(std::clamp<std::ptrdiff_t>(std::thread::hardware_concurrency() / 2, 2, 8));
    return slots;
}

Error stopped() { return make_error(ExitCode::Interrupted, "install.interrupted"); }

// Fewer compressed bytes per worker and the chunks' start-up (finding a block, the first
// window) outweighs what a worker brings.
constexpr uint64_t kPerWorker = 2u << 20;
// A stream on one thread is taken over by workers only where this much past it (or all that is
// left) has arrived: one that keeps up with the download would only have them wait.
constexpr uint64_t kBehind = 16u << 20;

// Workers taken for one stream, given back when it ends.
class Lent {
public:
    Lent(InflateHelpers* pool, uint64_t compressed) : pool_(pool), n_(pool ? pool->take(compressed) : 0) {}
    struct Taken {
        unsigned n;
    };
    Lent(InflateHelpers* pool, Taken taken) : pool_(pool), n_(taken.n) {}  // taken already (take_late)
    ~Lent() {
        if (n_) pool_->give_back(n_);
    }
    Lent(const Lent&) = delete;
    Lent& operator=(const Lent&) = delete;
    unsigned count() const { return n_; }

private:
    InflateHelpers* pool_;
    unsigned n_;
};

}  // namespace

unsigned InflateHelpers::take(uint64_t compressed) {
    std::lock_guard lock(mu_);
    const unsigned n = static_cast<unsigned>(std::min<uint64_t>({left_, per_stream_, compressed / kPerWorker}));
    if (n < least_) return 0;
    left_ -= n;
    return n;
}

unsigned InflateHelpers::take_late(const void* stream, std::optional<uint64_t> left) {
    if (!late_) return 0;
    {
        std::lock_guard lock(mu_);
        if (!left) {
            behind_.erase(stream);
            return 0;
        }
        behind_[stream] = *left;
        for (const auto& [other, more] : behind_)
            if (more > *left) return 0;
    }
    const unsigned n = take(*left);
    if (n) {
        std::lock_guard lock(mu_);
        behind_.erase(stream);
    }
    return n;
}

void InflateHelpers::give_back(unsigned n) {
    std::lock_guard lock(mu_);
    left_ += n;
}

EarlyUnpack::EarlyUnpack(const std::filesystem::path& part, std::shared_ptr<network::PartProgress> progress, std::filesystem::path entry,
                         std::shared_ptr<const InstalledContent> keep, uint64_t from, std::chrono::steady_clock::time_point epoch,
                         std::shared_ptr<InflateHelpers> helpers)
    : progress_(std::move(progress)),
      entry_(std::move(entry)),
      keep_(std::move(keep)),
      from_(from),
      epoch_(epoch),
      helpers_(std::move(helpers)),
      source_(part.filename().string()) {
    // Opened now: the .part is renamed once it is complete. No read-ahead: past what a reader
    // asks for, its writer is still filling the file.
    auto opened = fileops::InFile::open(part);
    if (!opened) {  // nothing to read from: nothing is inflated early
        chosen_.emplace();
        return;
    }
    part_ = std::move(*opened);
    part_->no_read_ahead();
    planner_ = std::thread([this] { plan(); });
}

EarlyUnpack::~EarlyUnpack() {
    cancel();
    wait();
    if (!taken_) {
        std::error_code ec;
        std::filesystem::remove_all(entry_, ec);
    }
}

void EarlyUnpack::cancel() {
    stop_ = true;
    progress_->wake();  // the readers waiting for bytes see stop_
}

void EarlyUnpack::wait() {
    if (planner_.joinable()) planner_.join();
}

std::vector<size_t> EarlyUnpack::chosen() {
    std::unique_lock lock(mu_);
    started_.wait(lock, [&] { return chosen_.has_value(); });
    return *chosen_;
}

std::filesystem::path EarlyUnpack::take_entry() {
    taken_ = true;
    return entry_;
}

Expected<size_t> EarlyUnpack::read_at(uint64_t offset, char* into, size_t n) {
    const uint64_t total = progress_->total();
    if (offset >= total) return size_t{0};
    n = static_cast<size_t>(std::min<uint64_t>(n, total - offset));
    if (stop_.load(std::memory_order_relaxed) || interrupt_requested() || !progress_->wait_for(offset, n, &stop_)) return unexpected(stopped());
    return part_->read_at(offset, into, n);
}

Expected<std::string> EarlyUnpack::read_text(const wheel::ZipEntry& e) {
    ENVFIX_TRY_VOID(wheel::check_text_member(e, source_));
    std::string text;
    std::vector<char> in(kPiece), out(kPiece);
    ENVFIX_TRY_VOID(wheel::stream_zip_entry(
        e, source_, [&](uint64_t off, char* into, size_t n) { return read_at(off, into, n); }, in, out,
        [&](std::string_view c) -> Expected<void> {
            text.append(c);
            return {};
        }));
    return text;
}

// The directory from the archive's end, the entries worth inflating early (large, stored or
// deflate, not kept by a switch), then one reader per range for the entries whose local header
// lies in it, in the order their bytes arrive.
std::vector<std::vector<EarlyUnpack::Job>> EarlyUnpack::choose() {
    const uint64_t total = progress_->total();
    uint64_t at = total > kTailGuess ? total - kTailGuess : 0;
    std::string tail;
    Expected<wheel::ZipCentral> central = unexpected(stopped());
    for (int tries = 0; tries < 3; ++tries) {
        if (total - at > kMaxDirectory) return {};
        tail.resize(static_cast<size_t>(total - at));
        auto got = read_at(at, tail.data(), tail.size());
        if (!got || *got != tail.size()) return {};
        central = wheel::read_zip_central(tail, at, source_);
        if (!central || !central->need_from) break;
        at = *central->need_from;
    }
    if (!central || central->need_from) return {};  // not a zip, or not yet: the checked wheel says why
    const wheel::ZipDirectory& dir = central->dir;

    // A switch links the files it keeps: those are not inflated here (the RECORD read early only
    // chooses; what is taken is checked against the checked wheel's RECORD).
    std::unordered_map<std::string_view, const standards::RecordEntry*> rows;
    std::vector<standards::RecordEntry> record;
    if (keep_ && !keep_->by_hash.empty()) {
        for (const auto& e : dir.entries) {
            auto slash = e.name.find('/');
            if (slash == std::string::npos || e.name.substr(slash) != "/RECORD" || !e.name.substr(0, slash).ends_with(".dist-info") ||
                e.size > kMaxRecord || !wheel::zipfmt::method_builtin(e.method))
                continue;
            auto r = with_data_offset(e, central->raw_names[static_cast<size_t>(&e - dir.entries.data())]);
            if (!r) return {};
            auto text = read_text(*r);
            if (!text) return {};
            auto parsed = standards::parse_record(*text, source_);
            if (!parsed) return {};
            record = std::move(*parsed);
            break;
        }
        for (const auto& row : record) rows.emplace(row.path, &row);
    }
    auto kept = [&](const wheel::ZipEntry& e) {
        if (!keep_ || keep_->by_hash.empty()) return false;
        auto r = rows.find(e.name);
        if (r == rows.end()) return record.empty();  // no RECORD read: nothing is known, nothing inflated early
        auto it = keep_->by_hash.find(r->second->hash_algorithm + "=" + r->second->hash_digest);
        return it != keep_->by_hash.end() && same_content(it->second.row, *r->second, e.size);
    };

    auto ranges = progress_->ranges();
    std::vector<std::vector<Job>> by_range(ranges.size());
    for (size_t i = 0; i < dir.entries.size(); ++i) {
        const wheel::ZipEntry& e = dir.entries[i];
        if (e.size < from_ || !wheel::zipfmt::method_builtin(e.method) || e.is_directory() || e.is_symlink() || e.is_special() ||
            e.local_header_offset >= central->cd_offset || kept(e))
            continue;
        for (size_t r = 0; r < ranges.size(); ++r)
            if (e.local_header_offset >= ranges[r].at && e.local_header_offset < ranges[r].at + ranges[r].length) {
                by_range[r].push_back({i, e, std::string(central->raw_names[i])});
                break;
            }
    }
    // The workers lent go to the entry that one thread would inflate longest: well-compressed
    // code (2:1 and more) inflates at about half the speed of mostly stored data (on the H200
    // libtorch_cpu.so, 3.25:1, at 388 MB/s, libtorch_cuda.so, 1.4:1, at 802 MB/s, with ISA-L).
    // ENVFIX_INFLATE_STREAMS > 1: the next costliest too (a switch's libtorch_cuda.so, 1.4:1,
    // ended 0.3 s after its last byte on one thread while libtorch_cpu.so had all 8 workers).
    if (helpers_) {
        auto cost = [](const wheel::ZipEntry& e) { return e.method == 8 ? e.size * (e.compressed_size * 2 <= e.size ? 2 : 1) : 0; };
        std::vector<Job*> all;
        for (auto& jobs : by_range)
            for (auto& j : jobs)
                if (cost(j.entry) > 0) all.push_back(&j);
        const size_t lent = std::min<size_t>(helpers_->streams(), all.size());
        std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(lent), all.end(),
                          [&](const Job* a, const Job* b) { return cost(a->entry) > cost(b->entry); });
        for (size_t k = 0; k < lent; ++k) all[k]->lend = true;
    }
    return by_range;
}

void EarlyUnpack::plan() {
    // Ahead of need: when the cores are all busy it yields to the transfers it waits for and to
    // the unpacking of complete wheels (on the H200 neither priority measured better; the A/B runs
    // are in docs/performance.md). Its readers and their write-behind threads inherit it.
    platform::lower_thread_priority();
    // The directory and the RECORD read from the tail are freed before the readers run.
    std::vector<size_t> chosen;
    try {
        auto by_range = choose();
        for (size_t r = 0; r < by_range.size(); ++r) {
            if (by_range[r].empty()) continue;
            std::sort(by_range[r].begin(), by_range[r].end(),
                      [](const Job& a, const Job& b) { return a.entry.local_header_offset < b.entry.local_header_offset; });
            std::vector<size_t> indexes;
            for (const auto& j : by_range[r]) indexes.push_back(j.index);
            readers_.emplace_back([this, jobs = std::move(by_range[r])]() mutable { read_range(std::move(jobs)); });
            chosen.insert(chosen.end(), indexes.begin(), indexes.end());
        }
    } catch (...) {  // no thread or memory left: the rest is inflated once the wheel is complete
    }
    {
        std::lock_guard lock(mu_);
        chosen_ = std::move(chosen);
    }
    started_.notify_all();
    for (auto& t : readers_) t.join();
}

void EarlyUnpack::read_range(std::vector<Job> jobs) {
    for (const auto& job : jobs) {
        if (stop_.load()) return;
        inflating_slots().acquire();
        auto done = inflate_one(job);
        inflating_slots().release();
        if (done) {
            std::lock_guard lock(mu_);
            files_.emplace(job.index, std::move(*done));
        } else if (done.error().code == ExitCode::Interrupted) {
            return;  // given up: the download is not going on as these bytes said
        }
        // Any other failure (a damaged entry): left to the checked wheel, which says why.
    }
}

// The entry with its data's offset, from its local header (waiting for its bytes), which must
// be there with the directory's method and name.
Expected<wheel::ZipEntry> EarlyUnpack::with_data_offset(const wheel::ZipEntry& entry, std::string_view raw_name) {
    wheel::ZipEntry e = entry;
    char lh[wheel::zipfmt::kLocalSize];
    ENVFIX_TRY(size_t got, read_at(e.local_header_offset, lh, sizeof lh));
    std::string_view h(lh, got);
    if (got != sizeof lh || wheel::zipfmt::u32(h, 0) != wheel::zipfmt::kLocalSig || wheel::zipfmt::u16(h, 8) != e.method)
        return wheel::zipfmt::malformed(source_, "the local header of " + e.name + " is missing or damaged");
    const size_t name_len = wheel::zipfmt::u16(h, 26), extra_len = wheel::zipfmt::u16(h, 28);
    std::string name(name_len, '\0');
    ENVFIX_TRY(size_t got_name, read_at(e.local_header_offset + wheel::zipfmt::kLocalSize, name.data(), name.size()));
    if (got_name != name_len || name != raw_name) return wheel::zipfmt::malformed(source_, "the local header of " + e.name + " disagrees");
    e.data_offset = e.local_header_offset + wheel::zipfmt::kLocalSize + name_len + extra_len;
    return e;
}

Expected<EarlyUnpack::File> EarlyUnpack::inflate_one(const Job& job) {
    ENVFIX_TRY(wheel::ZipEntry e, with_data_offset(job.entry, job.raw_name));

    auto path = unpacked::entry_file(entry_, job.index);
    ENVFIX_TRY(auto file, fileops::OutFile::create(path));
    RecordHasher hasher;
    hasher.start("sha256");
    HashedOutput output(hasher, file, true);
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) { return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
    auto since = [&] { return ms(Clock::now() - epoch_); };
    // Several workers read at once where the stream is inflated on several threads.
    std::mutex times_mu;
    uint64_t first_ms = 0, bytes_ms = 0;
    bool first = true;
    Clock::duration reading{}, between{}, handing{};
    const wheel::ZipReadAt read = [&](uint64_t off, char* into, size_t n) {
        const auto began = Clock::now();
        auto got = read_at(off, into, n);
        const auto took = Clock::now() - began;
        std::lock_guard lock(times_mu);
        reading += took;
        if (first) first_ms = since();
        first = false;
        if (got && off + *got >= e.data_offset + e.compressed_size) bytes_ms = std::max(bytes_ms, since());
        return got;
    };
    // Only the thread that hands the output on calls push, in order.
    std::optional<Clock::time_point> last_push;
    const wheel::ZipSink push = [&](std::string_view c) -> Expected<void> {
        if (stop_.load(std::memory_order_relaxed)) return unexpected(stopped());
        const auto began = Clock::now();
        if (last_push) between += began - *last_push;
        auto pushed = output.push(c);
        last_push = Clock::now();
        handing += *last_push - began;
        return pushed;
    };
    const Lent workers(job.lend ? helpers_.get() : nullptr, e.compressed_size);  // choose() lends to deflate entries only
    unsigned by = 0;  // workers that inflated it (0: this thread)
    uint64_t joined_ms = 0, joined_at = 0;
    if (workers.count()) {
        output.widen();
        try {
            ENVFIX_TRY_VOID(wheel::stream_zip_entry_parallel(e, source_, read, workers.count(), push));
            by = workers.count();
        } catch (const std::system_error&) {  // no thread for its workers, before any output: one thread does it
            if (output.size() != 0) throw;     // not that: what failed after output
        }
    }
    if (!by) {
        std::vector<char> in(kPiece), out(kPiece);
        if (helpers_ && helpers_->late() && e.method == 8) {
            // Workers freed while this stream runs (a switch's libtorch_cuda.so once libtorch_cpu.so's
            // are done) take the rest over, where this thread is behind the download.
            std::optional<Lent> late;
            struct Forget {  // this stream no longer asks, however it ends
                InflateHelpers* pool;
                const void* stream;
                ~Forget() { pool->take_late(stream, std::nullopt); }
            } forget{helpers_.get(), &e};
            // A stream asks every 128 KiB or so of output and reads far less than kBehind meanwhile,
            // so one listed as behind is not waiting for its bytes before it asks again.
            const wheel::ZipLendWorkers lend{[&](uint64_t decoded) -> unsigned {
                                                 const uint64_t left = e.compressed_size - decoded;
                                                 const bool behind = progress_->has(e.data_offset + decoded, std::min(left, kBehind));
                                                 const unsigned n = helpers_->take_late(&e, behind ? std::optional(left) : std::nullopt);
                                                 if (!n) return 0;
                                                 output.widen();
                                                 late.emplace(helpers_.get(), Lent::Taken{n});
                                                 joined_ms = since();
                                                 joined_at = decoded;
                                                 return n;
                                             },
                                             [&] {  // not used after all: back to the pool at once
                                                 late.reset();
                                                 joined_ms = joined_at = 0;
                                             }};
            ENVFIX_TRY(by, wheel::stream_zip_entry_handing_over(e, source_, read, in, out, lend, push));
        } else {
            ENVFIX_TRY_VOID(wheel::stream_zip_entry(e, source_, read, in, out, push));
        }
    }
    ENVFIX_TRY_VOID(output.finish());
    const bool exec = e.is_executable();
    ENVFIX_TRY_VOID(file.finish(exec ? fileops::FileMode::Executable : fileops::FileMode::Regular));
    if (!by) joined_ms = joined_at = 0;  // lent, but the stream ended before a block boundary came
    const auto& behind = output.times();
    const UnpackAhead::EarlyTimes times{ms(reading), ms(between), ms(handing), ms(behind.waited), ms(behind.hashing), ms(behind.writing)};
    return File{e.name, output.size(), e.crc32, hasher.finish_b64(), exec, e.compressed_size, first_ms, bytes_ms, since(), by, joined_ms, joined_at, times};
}

}  // namespace envfix::installer
