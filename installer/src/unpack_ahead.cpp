// Unpacking wheels into the unpacked-wheel cache ahead of an install (unpacked_cache.hpp).
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_set>

#include "envfix/common/env.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "file_ops.hpp"
#include "keep_links.hpp"
#include "path_under.hpp"
#include "record_hash.hpp"
#include "stager.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"
#include "unpack_early.hpp"
#include "unpacked_store.hpp"
#include "write_behind.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

struct Opened {
    WheelFile wheel;
    WheelPlan plan;
    std::string sha256;
    stdfs::path tmp;      // the entry being made
    size_t extracted = 0;
    std::shared_ptr<EarlyUnpack> early;  // what was inflated while it downloaded, into tmp
};

// The early reader of a wheel, if any, handed over once (dropped when the entry is made elsewhere).
using TakeEarly = std::function<std::shared_ptr<EarlyUnpack>(const std::string& sha256)>;

// A file inflated while the wheel downloaded is the wheel's entry when the checked wheel says so:
// the same name, size and CRC-32 in the checked directory, the SHA-256 of its RECORD row, and
// the mode the stager would give it.
bool early_file_matches(const EarlyUnpack::File& got, const WheelFile& w, const PlannedFile& f) {
    const wheel::ZipEntry& e = w.zip.entries[f.entry];
    if (w.record_row[f.entry] < 0 || got.name != e.name || got.size != e.size || got.crc32 != e.crc32 || got.executable != f.executable)
        return false;
    const auto& row = w.record[static_cast<size_t>(w.record_row[f.entry])];
    return row.hash_algorithm == "sha256" && row.hash_digest == got.sha256;
}

// The wheel and which of its entries an install extracts as they are. That list does not
// depend on where they go: any scheme gives the same ("#!python" scripts are rewritten per
// environment, so never cached).
Expected<std::unique_ptr<Opened>> open_for_cache(const stdfs::path& file, const std::string& sha256) {
    auto o = std::make_unique<Opened>();
    ENVFIX_TRY(o->wheel, open_wheel(file));
    const stdfs::path nowhere = "/envfix-unpack";
    InstallScheme scheme{nowhere / "purelib", nowhere / "platlib", nowhere / "scripts", nowhere / "data", nowhere / "include"};
    ENVFIX_TRY(o->plan, plan_wheel(o->wheel, scheme, ScriptTarget{}, WheelOptions{.requested = false}));
    // Where the files would go is not needed here (they go to the entry by zip index), and
    // torch's unpacking runs on beside the install's planning: its 12 000 paths freed.
    for (auto& f : o->plan.files) f.dest = PathText();
    o->sha256 = sha256;
    o->extracted = extracted_files(o->plan);
    return o;
}

void drop(std::vector<std::unique_ptr<Opened>>& opened) {
    for (auto& o : opened) {
        std::error_code ec;
        if (!o->tmp.empty()) stdfs::remove_all(o->tmp, ec);
    }
    opened.clear();
}

// The installed file with the bytes of this entry, when both RECORDs promise the same bytes
// (keep_links.hpp's rule) and the file is a regular one (not a link elsewhere) of that size.
const PathText* kept_file(const InstalledContent* keep, const WheelFile& w, size_t entry) {
    if (!keep || w.record_row[entry] < 0) return nullptr;
    const auto& row = w.record[static_cast<size_t>(w.record_row[entry])];
    auto it = keep->by_hash.find(row.hash_algorithm + "=" + row.hash_digest);
    const uint64_t size = w.zip.entries[entry].size;
    if (it == keep->by_hash.end() || !same_content(it->second.row, row, size)) return nullptr;
    auto st = storeops::stat_text(it->second.path);
    if (!st || !st->regular || st->size != size) return nullptr;
    return &it->second.path;
}

// The identity under which the snapshot of the present vouches for `kept` holding the bytes of
// this RECORD row (sha256 only), if it does.
std::optional<StageItem::Identity> vouched(const KnownInstalled* known, const PathText& kept, const standards::RecordEntry& row) {
    if (!known || row.hash_algorithm != "sha256") return std::nullopt;
    auto it = known->files.find(relative_generic_text(kept, known->root));
    if (it == known->files.end()) return std::nullopt;
    if (record_hex(row.hash_digest) != it->second.sha256) return std::nullopt;
    const auto& f = it->second;
    return StageItem::Identity{f.device, f.inode, f.size, f.mtime_ns};
}

// Where a batch's time went (-vv): when its other files' staging began and ended, beside its
// early readers, and when those ended: the last file they wrote (ms in the UnpackAhead's epoch),
// else when the wait for them returned (none wrote a file).
struct BatchTimes {
    std::optional<std::chrono::steady_clock::time_point> staged_from, rest_done, early_done;
    uint64_t early_end_ms = 0;
};

// The batch's wheels not unpacked yet, opened and checked, each with its entry begun (or the
// entry its early readers write into). What fails goes into `out`; a failed entry ends the batch.
std::vector<std::unique_ptr<Opened>> open_batch(const stdfs::path& root, const std::vector<std::pair<stdfs::path, std::string>>& wheels,
                                                const TakeEarly& take_early, UnpackAhead::Outcome& out) {
    std::vector<std::pair<stdfs::path, std::string>> todo;
    for (const auto& w : wheels) {
        if (unpacked::has_entry(root, w.second)) {
            ++out.present;
            if (take_early) take_early(w.second);  // not needed: its files go with it
        } else {
            todo.push_back(w);
        }
    }
    std::vector<std::unique_ptr<Opened>> tried(todo.size());
    std::vector<std::optional<Error>> failed(todo.size());
    tx::parallel_for(todo.size(), [&](size_t i) {
        auto o = open_for_cache(todo[i].first, todo[i].second);
        if (o) tried[i] = std::move(*o);
        else failed[i] = o.error();
    }, 1);
    std::vector<std::unique_ptr<Opened>> opened;
    for (size_t i = 0; i < todo.size(); ++i) {
        if (failed[i]) out.errors.push_back(*failed[i]);
        else opened.push_back(std::move(tried[i]));
    }
    for (auto& o : opened) {
        if (take_early && (o->early = take_early(o->sha256))) {
            o->tmp = o->early->entry();  // its readers go on writing their files into it
            ++out.early_wheels;
            continue;
        }
        auto tmp = unpacked::begin_entry(root, o->sha256);
        if (!tmp) {
            out.errors.push_back(tmp.error());
            drop(opened);
            return {};
        }
        o->tmp = *tmp;
    }
    return opened;
}

UnpackAhead::Outcome unpack_batch(const stdfs::path& root, const std::vector<std::pair<stdfs::path, std::string>>& wheels, unsigned threads,
                                  const InstalledContent* keep, const TakeEarly& take_early = {}, BatchTimes* times = nullptr,
                                  const std::function<std::shared_ptr<const KnownInstalled>()>& await_known = {});

// One bad wheel spoils a run: each wheel again alone, so the others still make it.
void unpack_each_alone(const stdfs::path& root, const std::vector<std::pair<stdfs::path, std::string>>& wheels, unsigned threads,
                       const InstalledContent* keep, UnpackAhead::Outcome& out) {
    for (const auto& w : wheels) {
        auto one = unpack_batch(root, {w}, threads, keep);
        out.unpacked += one.unpacked;
        out.files += one.files;
        out.present += one.present;
        out.errors.insert(out.errors.end(), one.errors.begin(), one.errors.end());
    }
}

// Every wheel of the batch in one staging run, so its largest files are inflated side by side
// across wheels (one wheel at a time left the cores idle behind each wheel's largest library).
UnpackAhead::Outcome unpack_batch(const stdfs::path& root, const std::vector<std::pair<stdfs::path, std::string>>& wheels, unsigned threads,
                                  const InstalledContent* keep, const TakeEarly& take_early, BatchTimes* times,
                                  const std::function<std::shared_ptr<const KnownInstalled>()>& await_known) {
    UnpackAhead::Outcome out;
    auto opened = open_batch(root, wheels, take_early, out);
    if (opened.empty()) return out;
    // What the snapshot of the present says of the installed files (captured beside the
    // downloads): waited for at the batch's first kept file, so a batch that keeps none goes on.
    std::shared_ptr<const KnownInstalled> known;
    bool asked = false;
    auto known_now = [&] {
        if (!asked && await_known) known = await_known();
        asked = true;
        return known.get();
    };
    // The entry's file for a planned one: linked from the installed copy a switch keeps, else
    // inflated from the checked wheel.
    auto item = [&](const Opened& o, const PlannedFile& f) {
        StageItem it{&o.wheel, &f, unpacked::entry_file(o.tmp, f.entry)};
        if (const auto* kept = kept_file(keep, o.wheel, f.entry)) {
            it.linked_from = *kept;
            it.verify_link = true;  // hashed after linking (unless vouched for); inflated when it differs
            it.vouched = vouched(known_now(), *kept, o.wheel.record[static_cast<size_t>(o.wheel.record_row[f.entry])]);
        }
        return it;
    };
    // The files the early readers inflate wait for them; the rest are staged beside them (on the
    // H200 a switch's torch waited 0.25 s after its large files for the other 11 800).
    std::vector<StageItem> items;
    std::vector<std::pair<const Opened*, const PlannedFile*>> awaited;
    bool reading = false;
    for (const auto& o : opened) {
        std::unordered_set<size_t> claimed;
        if (o->early) {
            auto c = o->early->chosen();
            claimed.insert(c.begin(), c.end());
            reading = reading || !c.empty();
        }
        for (const auto& f : o->plan.files)
            if (f.kind == PlannedFile::Kind::Extracted) {
                if (claimed.count(f.entry)) awaited.emplace_back(o.get(), &f);
                else items.push_back(item(*o, f));
            }
    }
    StageOptions so;
    // Threads for the work in the batch: torch's 11 800 files get the cores (2 × cores, as a
    // plain install stages), a small wheel two; the runs overlap the downloads at low priority.
    so.threads = threads ? threads
                         : static_cast<unsigned>(std::clamp<size_t>((items.size() + awaited.size()) / 128, 2,
                                                                    std::clamp(2 * std::thread::hardware_concurrency(), 4u, 32u)));
    // Several runs at once: fewer whole-entry buffers each (one for a small wheel's two threads).
    so.pool_buffers = so.threads <= 2 ? 1 : 2;
    if (times) times->staged_from = std::chrono::steady_clock::now();
    // Beside the readers, below them: they inflate the wheel's largest files, which end last, so
    // the rest takes the cores they leave; once they end it goes on at full speed (on the H200 a
    // cold install's torch, staged at nice 19 throughout, ended 1.5 s after its large files).
    // A failing run ends once the readers have (they hold every byte by now: at most the time
    // to inflate them), and they are then cancelled to no effect; Ctrl-C stops them at once.
    if (reading)
        so.beside = [&] {
            for (auto& o : opened)
                if (o->early) o->early->wait();
        };
    std::chrono::steady_clock::time_point rest_done{};
    so.last_written = &rest_done;
    Expected<std::vector<StagedDigest>> staged = stage_items(items, so);
    if (staged)
        for (size_t k = 0; k < items.size(); ++k)
            if (items[k].verify_link && (*staged)[k].linked) ++((*staged)[k].vouched ? out.kept_vouched : out.kept_read);
    if (times) times->rest_done = rest_done == std::chrono::steady_clock::time_point{} ? std::chrono::steady_clock::now() : rest_done;
    if (!staged) {
        for (auto& o : opened)
            if (o->early) o->early->cancel();
    }
    for (auto& o : opened)
        if (o->early) {
            o->early->wait();  // the wheel is complete: its readers end
            o->early->take_entry();
            if (times) {
                times->early_done = std::chrono::steady_clock::now();
                for (const auto& [entry, file] : o->early->files()) times->early_end_ms = std::max(times->early_end_ms, file.end_ms);
            }
        }
    // What the readers inflated is taken where the checked wheel says so; the rest of theirs is
    // staged afresh from it.
    std::vector<StageItem> again;
    size_t taken = 0;
    if (staged) {
        std::set<std::pair<const Opened*, size_t>> took;
        for (const auto& [o, f] : awaited) {
            const auto& files = o->early->files();
            auto e = files.find(f->entry);
            if (e != files.end() && early_file_matches(e->second, o->wheel, *f)) {
                took.emplace(o, f->entry);
                const auto& t = e->second;
                out.early_files.push_back({t.name, t.size, t.compressed, t.first_ms, t.bytes_ms, t.end_ms, t.workers, t.joined_ms, t.joined_at, t.times});
                continue;
            }
            if (e != files.end()) ++out.early_refused;
            again.push_back(item(*o, *f));
        }
        taken = took.size();
        // What was inflated early and not taken goes (the stager writes those entries afresh).
        for (const auto& o : opened)
            if (o->early)
                for (const auto& [entry, file] : o->early->files())
                    if (!took.count({o.get(), entry})) {
                        std::error_code ec;
                        stdfs::remove(unpacked::entry_file(o->tmp, entry), ec);
                        if (entry >= o->wheel.zip.entries.size()) ++out.early_refused;
                    }
        // Nothing runs beside these: at the runner's priority.
        so.beside = nullptr;
        so.last_written = nullptr;
        if (!again.empty()) staged = stage_items(again, so);
    }
    out.early_taken += taken;
    if (!staged) {
        std::vector<std::pair<stdfs::path, std::string>> retry;
        for (const auto& o : opened) retry.emplace_back(o->wheel.path, o->sha256);
        drop(opened);
        if (retry.size() == 1 || staged.error().code == ExitCode::Interrupted) {
            out.errors.push_back(staged.error());
            return out;
        }
        unpack_each_alone(root, retry, threads, keep, out);
        return out;
    }
    out.files += items.size() + again.size() + taken;
    for (auto& o : opened) {
        if (auto sealed = unpacked::seal_entry(root, o->tmp, o->sha256, o->extracted); !sealed) out.errors.push_back(sealed.error());
        else ++out.unpacked;
        o->tmp.clear();
    }
    return out;
}

}  // namespace

Expected<bool> unpack_into_cache(const stdfs::path& root, const stdfs::path& file, const std::string& sha256, unsigned threads,
                                 const InstalledContent* keep) {
    auto out = unpack_batch(root, {{file, sha256}}, threads, keep);
    if (!out.errors.empty()) return unexpected(out.errors.front());
    return out.unpacked > 0;
}

// Several runners, so a wheel that arrives while others unpack starts at once instead of waiting.
// Half the cores: on the 16-core GPU machine four runners were all held by torch and three wheels
// of one large library each (one thread streams each), and 28 wheels waited 1-2 s behind them.
// ENVFIX_UNPACK_RUNNERS overrides it, for tuning (four against eight on one machine).
static unsigned default_runners() {
    if (auto v = env::get(EnvVar::EnvfixUnpackRunners))
        if (auto n = str::to_int(*v); n && *n >= 1 && *n <= 64) return static_cast<unsigned>(*n);
    return std::clamp(std::thread::hardware_concurrency() / 2, 4u, 8u);
}

UnpackAhead::UnpackAhead(stdfs::path root, unsigned runners, unsigned threads, std::shared_ptr<const InstalledContent> keep,
                         uint64_t early_from)
    : root_(std::move(root)), threads_(threads), keep_(std::move(keep)), early_from_(early_from ? early_from : HashWriteBehind::kFrom),
      started_(std::chrono::steady_clock::now()) {
    if (runners == 0) runners = default_runners();
    outcome_.runners = std::max(1u, runners);
    // The runners are made with the first wheel that needs one (add): a warm install's wheels are
    // all unpacked already, and its 4-8 runners were made and joined for nothing.
}

UnpackAhead::~UnpackAhead() {
    std::map<std::string, std::shared_ptr<EarlyUnpack>> early;
    {
        std::lock_guard lock(mu_);
        closing_ = true;
        queue_.clear();
        early.swap(early_);
    }
    for (auto& [sha, e] : early) e->cancel();
    cv_.notify_all();
    known_cv_.notify_all();
    for (auto& t : workers_)
        if (t.joinable()) t.join();
}

// ENVFIX_UNPACK_EARLY: 0 turns it off (to measure what it brings), a size in bytes sets the
// entries it takes (tests reach it with small wheels); nothing where a .part being read cannot
// be renamed.
static std::optional<uint64_t> early_from(uint64_t given) {
    if (!fileops::open_files_can_be_renamed()) return std::nullopt;
    if (auto v = env::get(EnvVar::EnvfixUnpackEarly))
        if (auto n = str::to_int(*v); n && *n >= 0) {
            if (*n == 0) return std::nullopt;
            return static_cast<uint64_t>(*n);
        }
    return given;
}

bool UnpackAhead::reads_early() const { return early_from(early_from_).has_value(); }

unsigned inflate_helpers_for(size_t wheels) {
    if (auto v = env::get(EnvVar::EnvfixInflateHelpers))
        if (auto n = str::to_int(*v); n && *n >= 0) return static_cast<unsigned>(std::min<int64_t>(*n, 64));
    // Fewer than 4 workers inflate slower than ISA-L on one thread (InflateHelpers): a machine
    // with fewer than 8 cores lends none.
    const unsigned half = std::thread::hardware_concurrency() / 2;
    return wheels <= 4 && half >= 4 ? std::min(half, 8u) : 0;
}

unsigned inflate_streams() {
    if (auto v = env::get(EnvVar::EnvfixInflateStreams))
        if (auto n = str::to_int(*v); n && *n >= 1) return static_cast<unsigned>(std::min<int64_t>(*n, 4));
    return 1;
}

bool inflate_handover() {
    auto v = env::get(EnvVar::EnvfixInflateHandover);
    return !v || *v != "0";
}

void UnpackAhead::lend_inflate_helpers(unsigned n) {
    // As many as 4 make the least worth lending; fewer, given on purpose (ENVFIX_INFLATE_HELPERS,
    // tests), are lent as they are.
    helpers_ = n >= 2 ? std::make_shared<InflateHelpers>(n, std::min(n, 4u), inflate_streams(), inflate_handover()) : nullptr;
}

void UnpackAhead::early(const stdfs::path& part, const std::string& sha256, std::shared_ptr<network::PartProgress> progress) {
    auto from = early_from(early_from_);
    if (!progress || sha256.empty() || !from || unpacked::has_entry(root_, sha256)) return;
    auto entry = unpacked::begin_entry(root_, sha256);
    if (!entry) return;
    std::shared_ptr<EarlyUnpack> reader;
    try {
        reader = std::make_shared<EarlyUnpack>(part, std::move(progress), *entry, keep_, *from, started_, helpers_);
    } catch (const std::exception&) {  // no thread left: the wheel is unpacked once it is complete
        std::error_code ec;
        stdfs::remove_all(*entry, ec);
        return;
    }
    std::lock_guard lock(mu_);
    if (closing_) {
        reader->cancel();  // its destructor, outside the lock, waits and removes the entry
        return;
    }
    early_[sha256] = std::move(reader);
}

void UnpackAhead::add(stdfs::path wheel, std::string sha256) {
    bool reading = false;  // a reader of its own under way (early): a runner takes it over
    {
        std::lock_guard lock(mu_);
        if (closing_) return;
        reading = early_.count(sha256) > 0;
    }
    // Unpacked already: counted here, a stat on the downloader's thread, instead of waiting for a
    // runner (the wait for them was 2 ms of a warm install on the GPU machine, 8 ms here).
    if (!reading && unpacked::has_entry(root_, sha256)) {
        std::lock_guard lock(mu_);
        ++outcome_.present;
        return;
    }
    {
        std::lock_guard lock(mu_);
        if (closing_) return;
        queue_.emplace_back(std::move(wheel), std::move(sha256));
        if (workers_.empty()) {
            try {
                for (unsigned i = 0; i < outcome_.runners; ++i) workers_.emplace_back([this] { work(); });
            } catch (const std::exception&) {  // no thread left: those made work the queue, else finish() does
            }
        }
    }
    cv_.notify_one();
}

// Takes every wheel handed over since the last batch: wheels that arrive while a batch runs wait
// for the next one (or the other runner), and go in together.
void UnpackAhead::work() {
    // What an envfix killed while unpacking left behind (once, by the first runner, or by
    // finish() where none was made).
    if (!swept_.exchange(true)) unpacked::sweep_tmp(root_, std::chrono::hours(1));
    std::unique_lock lock(mu_);
    for (;;) {
        cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;  // closing, nothing left
        std::vector<std::pair<stdfs::path, std::string>> batch(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
        queue_.clear();
        lock.unlock();
        auto ms = [&](std::chrono::steady_clock::time_point t) {
            return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(t - started_).count());
        };
        const uint64_t from = ms(std::chrono::steady_clock::now());
        Outcome r;
        BatchTimes times;
        try {
            r = unpack_batch(root_, batch, threads_, keep_.get(), [this](const std::string& sha256) {
                std::shared_ptr<EarlyUnpack> e;
                std::lock_guard lock(mu_);
                if (auto it = early_.find(sha256); it != early_.end()) {
                    e = std::move(it->second);
                    early_.erase(it);
                }
                return e;
            }, &times, [this] { return await_known(); });
        } catch (const std::exception& e) {  // no thread or memory left: the install inflates them
            r.errors.push_back(make_error(ExitCode::Internal, "fs.write_failed", {{"path", root_.string()}, {"reason", e.what()}}));
        }
        const uint64_t to = ms(std::chrono::steady_clock::now());
        lock.lock();
        const uint64_t early_ms = times.early_end_ms ? times.early_end_ms : times.early_done ? ms(*times.early_done) : 0;
        outcome_.batches.push_back({batch.size(), r.files, from, to, early_ms,
                                    times.staged_from ? ms(*times.staged_from) : 0, times.rest_done ? ms(*times.rest_done) : 0});
        outcome_.unpacked += r.unpacked;
        outcome_.files += r.files;
        outcome_.present += r.present;
        outcome_.early_wheels += r.early_wheels;
        outcome_.early_taken += r.early_taken;
        outcome_.early_files.insert(outcome_.early_files.end(), r.early_files.begin(), r.early_files.end());
        outcome_.early_refused += r.early_refused;
        outcome_.kept_vouched += r.kept_vouched;
        outcome_.kept_read += r.kept_read;
        outcome_.errors.insert(outcome_.errors.end(), r.errors.begin(), r.errors.end());
    }
}

void UnpackAhead::know_present(std::shared_ptr<const KnownInstalled> known) {
    {
        std::lock_guard lock(mu_);
        known_told_ = true;
        known_ = std::move(known);
    }
    known_cv_.notify_all();
}

// Until the install tells (know_present) or ends (finish, the destructor: nothing comes then).
std::shared_ptr<const KnownInstalled> UnpackAhead::await_known() {
    std::unique_lock lock(mu_);
    known_cv_.wait(lock, [&] { return known_told_ || closing_; });
    return known_;
}

UnpackAhead::Outcome UnpackAhead::finish() {
    {
        std::lock_guard lock(mu_);
        closing_ = true;  // the queue is still worked off
    }
    cv_.notify_all();
    known_cv_.notify_all();
    // No runner made after closing_ (add), so workers_ is read here without the lock.
    for (auto& t : workers_)
        if (t.joinable()) t.join();
    // No runner made (every wheel unpacked already, or no thread to be had): the sweep of what a
    // killed envfix left, and any wheel queued, here (a listing of a folder that is mostly empty).
    if (workers_.empty()) work();
    // Wheels read early that never came (their download failed): stopped, their entries removed.
    std::map<std::string, std::shared_ptr<EarlyUnpack>> left;
    {
        std::lock_guard lock(mu_);
        left.swap(early_);
    }
    for (auto& [sha, e] : left) e->cancel();
    left.clear();
    std::lock_guard lock(mu_);
    return outcome_;
}

}  // namespace envfix::installer
