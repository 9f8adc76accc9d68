// Parallel staging of new files (stager.hpp).
#include "stager.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "envfix/common/hash.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/installer/fault.hpp"
#include "envfix/installer/scripts.hpp"
#include "file_ops.hpp"
#include "record_hash.hpp"
#include "store_ops.hpp"
#include "unpacked_store.hpp"
#include "write_behind.hpp"

namespace envfix::installer {

namespace {

// Where a staged path's folder ends: rfind, as find_last_of over a set runs a memchr per
// character (17 000 times in a warm install); Windows paths may hold either separator.
size_t last_separator(const PathText& p) {
    if constexpr (std::filesystem::path::preferred_separator == '/') {
        return p.rfind('/');
    } else {
        const size_t a = p.rfind(std::filesystem::path::preferred_separator), b = p.rfind(L'/');
        return a == PathText::npos ? b : b == PathText::npos ? a : std::max(a, b);
    }
}

// Memory stays bounded whatever the wheels and the thread count (docs/performance.md, "Peak
// memory of a cold install"): entries are read from the wheel file, not through its mapping,
// and written with write(), never through a mapped output file. Entries up to kWholeUpTo are
// inflated whole by libdeflate (about twice zlib's speed) into a buffer: each thread's own for
// small ones, one from a pool of kPoolBuffers for the rest (when all are in use, the entry is
// streamed instead of waiting); larger entries are streamed (ISA-L, else zlib: zip_read.cpp)
// through two kPiece buffers.
// At most, with 32 threads: 32 × (2 × 64 KiB + 2 × 128 KiB) + 8 × 2 MiB = 28 MiB.
constexpr size_t kWholeUpTo = 1u << 20;
constexpr size_t kSmall = 64u << 10;
constexpr size_t kPiece = 128u << 10;
constexpr size_t kPoolBuffers = 8;

// The buffers for entries inflated whole above kSmall, each holding the compressed input and
// the output: at most `count`.
class BufferPool {
public:
    BufferPool(size_t count, size_t size) : count_(std::max<size_t>(1, count)), size_(size) {}
    size_t size() const { return size_; }
    // nullptr when all are in use.
    std::unique_ptr<char[]> try_take() {
        std::lock_guard lock(mu_);
        if (!free_.empty()) {
            auto b = std::move(free_.back());
            free_.pop_back();
            return b;
        }
        if (made_ == count_) return nullptr;
        ++made_;
        return std::unique_ptr<char[]>(new char[size_]);
    }
    void give(std::unique_ptr<char[]> b) {
        std::lock_guard lock(mu_);
        free_.push_back(std::move(b));
    }

private:
    std::mutex mu_;
    std::vector<std::unique_ptr<char[]>> free_;
    size_t count_, size_, made_ = 0;
};

// One thread's reads of wheel files: the last one stays open, since tasks of one wheel often
// follow each other.
class WheelReader {
public:
    Expected<size_t> read(const WheelFile& w, uint64_t offset, char* into, size_t n) {
        if (open_ != &w) {
            open_ = nullptr;
            in_ = std::ifstream(w.path, std::ios::binary);
            if (!in_)
                return fail(ExitCode::BadInput, "fs.read_failed",
                            {{"path", w.path.string()}, {"reason", render(msg("reason.cannot_open"))}});
            open_ = &w;
        }
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(offset));
        in_.read(into, static_cast<std::streamsize>(n));
        if (in_.bad()) {
            open_ = nullptr;
            return fail(ExitCode::BadInput, "fs.read_failed", {{"path", w.path.string()}, {"reason", render(msg("reason.read_error"))}});
        }
        return static_cast<size_t>(in_.gcount());
    }

private:
    const WheelFile* open_ = nullptr;
    std::ifstream in_;
};

struct Task {
    std::vector<size_t> items;  // one item, a wheel's entries that libarchive reads in one pass, or links
    uint64_t weight = 0;
    bool links = false;         // cached files linked into one folder, in one run
};

// Links into one folder taken together: one thread per folder run instead of 32 threads queueing
// on the same directory lock, and one task fetch per run.
constexpr size_t kLinksPerTask = 64;
// A folder with more links is split into this many tasks at most, whatever its size: torch's
// include/ATen/ops (7 030 files) made 110 tasks of 64, which the threads took side by side and
// queued on that one folder's lock (bench/dir_contention.cpp: 32 threads in one folder take 3–6×
// as long as in 16, spinning in the kernel meanwhile).
constexpr size_t kTasksPerFolder = 2;

class Run {
public:
    Run(const std::vector<StageItem>& items, const StageOptions& o)
        : items_(items), opts_(o), out_(items.size()), whole_up_to_(o.whole_up_to ? o.whole_up_to : kWholeUpTo),
          write_behind_from_(o.write_behind_from ? o.write_behind_from : HashWriteBehind::kFrom),
          pool_(o.pool_buffers ? o.pool_buffers : kPoolBuffers, 2 * std::max(whole_up_to_, kSmall)) {}

    Expected<std::vector<StagedDigest>> go() {
        fileops::umask_value();  // read before threads start: umask() is process-wide
        build_tasks();
        // Twice the cores by default: creating files waits on metadata writes, and threads waiting
        // there leave the cores to those inflating.
        unsigned n = opts_.threads ? opts_.threads : std::clamp(2 * std::thread::hardware_concurrency(), 4u, 32u);
        n = static_cast<unsigned>(std::min<size_t>(n, std::max<size_t>(1, tasks_.size())));
        uint64_t total = 0;
        for (const auto& t : tasks_) total += t.weight;
        int bar = opts_.reporter ? opts_.reporter->task_begin(msg("install.progress_staging"), total) : 0;
        std::vector<std::thread> threads;
        const bool low = static_cast<bool>(opts_.beside);
        for (unsigned i = 0; i < n; ++i)
            if (!start_thread(threads, [this, low] {
                    if (low) platform::lower_thread_priority(platform::ThreadPriority::Idle);
                    worker();
                }))
                break;
        if (threads.empty()) {  // no thread left: all of it on this one
            started_ = 1;
            worker();
        } else if (low) {
            start_thread(threads, [this, n] { join_after_beside(n); });  // else the low ones go on alone
        }
        {
            std::unique_lock lock(mu_);
            while (exited_ < started_) {
                cv_.wait_for(lock, std::chrono::milliseconds(100));
                if (opts_.reporter) opts_.reporter->task_advance(bar, bytes_.load(std::memory_order_relaxed));
            }
        }
        for (auto& t : threads) t.join();
        if (opts_.reporter) opts_.reporter->task_end(bar, !error_);
        if (error_) return unexpected(std::move(*error_));
        return std::move(out_);
    }

private:
    void build_tasks() {
        std::map<const WheelFile*, Task> sequential;
        // By staged folder, its path's text: a warm install links all 17 000 files, and making a
        // path of each one's parent would parse it component by component.
        std::map<PathText, std::vector<std::pair<size_t, uint64_t>>> links;  // item, weight
        for (size_t i = 0; i < items_.size(); ++i) {
            const auto& it = items_[i];
            uint64_t w = 4096;
            if (!it.file) w += it.wheel->bytes().size() / 4;  // hashing is cheaper than inflating
            else if (!it.linked_from.empty()) {  // a link: one metadata write, and a read to verify it
                if (it.verify_link && !it.vouched) w += it.wheel->zip.entries[it.file->entry].size / 4;
                const size_t cut = last_separator(it.stage);
                links[it.stage.substr(0, cut == PathText::npos ? 0 : cut)].emplace_back(i, w);
                continue;
            }
            else if (it.file->kind == PlannedFile::Kind::Generated) w += it.file->content.size();
            else {
                const auto& e = it.wheel->zip.entries[it.file->entry];
                w += e.size;
                if (wheel::zip_entry_needs_sequential_read(e)) {
                    auto& t = sequential[it.wheel];
                    t.items.push_back(i);
                    t.weight += w;
                    continue;
                }
            }
            tasks_.push_back(Task{{i}, w});
        }
        for (auto& [w, t] : sequential) tasks_.push_back(std::move(t));
        for (const auto& [d, in_folder] : links) {
            const size_t per = std::max(kLinksPerTask, (in_folder.size() + kTasksPerFolder - 1) / kTasksPerFolder);
            for (size_t from = 0; from < in_folder.size(); from += per) {
                Task t;
                t.links = true;
                for (size_t k = from; k < std::min(in_folder.size(), from + per); ++k) {
                    t.items.push_back(in_folder[k].first);
                    t.weight += in_folder[k].second;
                }
                tasks_.push_back(std::move(t));
            }
        }
        std::stable_sort(tasks_.begin(), tasks_.end(), [](const Task& a, const Task& b) { return a.weight > b.weight; });
    }

    // Once the work beside ends: this thread and n - 1 more, at the caller's priority, take the
    // tasks the low ones have not begun. Each is counted in started_ before it starts, so the run
    // cannot look finished while one is still to come.
    void join_after_beside(unsigned n) {
        opts_.beside();
        std::vector<std::thread> more;
        for (unsigned i = 1; i < n && !stop_.load() && next_.load() < tasks_.size(); ++i)
            if (!start_thread(more, [this] { worker(); })) break;  // no thread left: those running go on
        worker();
        for (auto& t : more) t.join();
    }

    // A worker thread, counted in started_ before it starts (so the run cannot look finished while
    // it is still to come); false where none could start.
    template <class Fn>
    bool start_thread(std::vector<std::thread>& into, Fn fn) {
        {
            std::lock_guard lock(mu_);
            ++started_;
        }
        try {
            into.emplace_back(std::move(fn));
            return true;
        } catch (const std::exception&) {  // std::system_error, or bad_alloc growing `into`
            std::lock_guard lock(mu_);
            --started_;
            return false;
        }
    }

    void set_error(Error e) {
        std::lock_guard lock(mu_);
        if (!error_) error_ = std::move(e);
        stop_ = true;
    }

    // What one worker thread reuses from file to file.
    struct WorkerState {
        RecordHasher hasher;
        wheel::ZipInflater inflater;
        WheelReader reader;
        std::unique_ptr<char[]> small;   // 2 × kSmall: compressed input, then output
        std::unique_ptr<char[]> pieces;  // 2 × kPiece, for streamed entries
        char* small_buffer() {
            if (!small) small.reset(new char[2 * kSmall]);
            return small.get();
        }
        std::span<char> piece(int which) {
            if (!pieces) pieces.reset(new char[2 * kPiece]);
            return {pieces.get() + which * kPiece, kPiece};
        }
    };

    // Whether an entry is inflated whole (libdeflate) rather than streamed.
    bool inflated_whole(const wheel::ZipEntry& e) const { return e.size <= whole_up_to_ && e.compressed_size <= whole_up_to_; }
    static bool small_entry(const wheel::ZipEntry& e) { return e.size <= kSmall && e.compressed_size <= kSmall; }

    // The entry's compressed bytes, read from the wheel file into `into` (room for all of them).
    Expected<std::string_view> read_compressed(const WheelFile& w, const wheel::ZipEntry& e, char* into, WorkerState& ws) {
        const size_t n = static_cast<size_t>(e.compressed_size);
        ENVFIX_TRY(size_t got, ws.reader.read(w, e.data_offset, into, n));
        return std::string_view(into, got);  // short: inflate_data says the data is truncated
    }

    void worker() {
        WorkerState state;
        std::optional<std::chrono::steady_clock::time_point> wrote;
        for (size_t t; !stop_.load() && (t = next_.fetch_add(1)) < tasks_.size();) {
            if (interrupt_requested()) {
                set_error(make_error(ExitCode::Interrupted, "install.interrupted"));
                break;
            }
            auto r = run_task(tasks_[t], state);
            if (!r) {
                set_error(std::move(r).error());
                break;
            }
            if (opts_.last_written) wrote = std::chrono::steady_clock::now();
        }
        std::lock_guard lock(mu_);
        if (wrote && *wrote > *opts_.last_written) *opts_.last_written = *wrote;
        ++exited_;
        cv_.notify_all();
    }

    Expected<void> run_task(const Task& task, WorkerState& ws) {
        const StageItem& first = items_[task.items.front()];
        if (task.links) {
            // A cached file missing or the wrong size, a kept file that differs: that one is
            // inflated from its own wheel.
            for (size_t i : task.items) {
                bool modified = false;
                if (link_one(i, ws, &modified)) continue;
                ENVFIX_TRY_VOID(run_task(Task{{i}, 0, false}, ws));
                // An entry's file edited in place since: the entry takes the wheel's bytes again.
                if (modified) unpacked::repair_entry_file(items_[i].linked_from, items_[i].stage, items_[i].made_before_ns);
            }
            return {};
        }
        if (task.items.size() == 1 && (!first.file || !zip_entry_needs_sequential_read_for(first)))
            return stage_one(task.items.front(), nullptr, ws);
        // libarchive: one pass over the wheel for all of these entries.
        std::map<size_t, size_t> by_entry;
        std::vector<size_t> entries;
        for (size_t i : task.items) {
            by_entry[items_[i].file->entry] = i;
            entries.push_back(items_[i].file->entry);
        }
        return wheel::visit_zip_entries(first.wheel->bytes(), first.wheel->zip, entries, first.wheel->source(),
                                        [&](size_t entry, const std::function<Expected<void>(const wheel::ZipSink&)>& read) {
                                            return stage_one(by_entry.at(entry), &read, ws);
                                        });
    }

    // The cached or installed copy linked (or copied) into staging; false: inflate instead
    // (nothing left behind).
    // `modified`: false because an unpacked entry's file was modified after the entry was made.
    bool link_one(size_t index, WorkerState& ws, bool* modified) {
        const StageItem& it = items_[index];
        const wheel::ZipEntry& e = it.wheel->zip.entries[it.file->entry];
        auto st = storeops::stat_text(it.linked_from);
        if (!st || !st->regular || st->size != e.size) return false;
        if (it.made_before_ns != 0 && st->mtime_ns > it.made_before_ns) return *modified = true, false;
        // An installed file keeps its mode when linked: only one the stager would write alike.
        if (it.verify_link && (((st->mode & 0111) != 0) != it.file->executable || !(st->mode & 0200))) return false;
        bool cross = false;
        if (!storeops::hard_link_text(it.linked_from, it.stage, &cross) &&
            (!cross || !storeops::copy_file(it.linked_from, it.stage, st->mode)))
            return false;
        const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[it.file->entry])];
        const bool vouched = it.verify_link && vouched_for(it);
        if (it.verify_link && !vouched && !same_bytes(it.stage, row, ws)) {
            std::error_code ec;
            std::filesystem::remove(it.stage, ec);
            return false;
        }
        const bool on_disk = !cross && it.on_disk_since_ns != 0 && st->mtime_ns <= it.on_disk_since_ns;
        out_[index] = {row.hash_algorithm, row.hash_digest, e.size, true, !cross, on_disk, vouched};
        bytes_.fetch_add(4096 + (it.verify_link && !it.vouched ? e.size / 4 : 0), std::memory_order_relaxed);
        fault_point();
        return true;
    }

    // The staged link is the inode the snapshot of the present vouched for, unchanged since: the
    // same size and mtime (an edit in place moves the mtime; a file replaced is another inode).
    static bool vouched_for(const StageItem& it) {
        if (!it.vouched) return false;
        auto st = storeops::stat_text(it.stage);
        return st && st->regular && st->device == it.vouched->device && st->inode == it.vouched->inode &&
               st->size == it.vouched->size && st->mtime_ns == it.vouched->mtime_ns;
    }

    // The staged link (the installed inode) hashed against the wheel's RECORD row: a file edited
    // by hand since it was installed is not kept, whatever its old RECORD row says. Read in
    // pieces, so an unchanged library of a gigabyte does not become resident all at once.
    static bool same_bytes(const std::filesystem::path& p, const standards::RecordEntry& row, WorkerState& ws) {
        std::ifstream in(p, std::ios::binary);
        if (!in || !ws.hasher.start(row.hash_algorithm)) return false;
        auto buf = ws.piece(0);
        while (in) {
            in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
            ws.hasher.update(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
        }
        return !in.bad() && ws.hasher.finish_b64() == row.hash_digest;
    }

    static bool zip_entry_needs_sequential_read_for(const StageItem& it) {
        return it.file->kind != PlannedFile::Kind::Generated &&
               wheel::zip_entry_needs_sequential_read(it.wheel->zip.entries[it.file->entry]);
    }

    Expected<void> check_digest(const StageItem& it, const std::string& algorithm, const std::string& digest) {
        const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[it.file->entry])];
        if (row.hash_algorithm != algorithm || row.hash_digest != digest)
            return fail(ExitCode::BadWheel, "wheel.hash_mismatch",
                        {{"file", it.wheel->source()}, {"entry", it.wheel->zip.entries[it.file->entry].name}});
        return {};
    }

    Expected<void> stage_one(size_t index, const std::function<Expected<void>(const wheel::ZipSink&)>* read, WorkerState& ws) {
        RecordHasher& hasher = ws.hasher;
        const StageItem& it = items_[index];
        StagedDigest& out = out_[index];
        if (!it.file) {  // the archive's own sha256, for direct_url.json: read, not mapped
            Sha256 h;
            auto buf = ws.piece(0);
            uint64_t size = 0;
            for (;;) {
                ENVFIX_TRY(size_t n, ws.reader.read(*it.wheel, size, buf.data(), buf.size()));
                if (n == 0) break;
                h.update(buf.data(), n);
                size += n;
                bytes_ += n / 4;
                if (stop_.load()) return {};
            }
            auto d = h.finish();
            out = {"sha256", to_hex(d.data(), d.size()), size};
            return {};
        }
        const PlannedFile& f = *it.file;
        auto mode = f.launcher ? fileops::FileMode::Launcher
                    : f.executable ? fileops::FileMode::Executable
                                   : fileops::FileMode::Regular;
        ENVFIX_TRY(auto file, fileops::OutFile::create(it.stage));
        auto write_whole = [&](const std::string& content) -> Expected<void> {
            ENVFIX_TRY_VOID(file.write(content));
            out = {"sha256", record_sha256(content), content.size()};
            bytes_ += content.size();
            return {};
        };
        auto read_entry = [&](const wheel::ZipSink& sink) -> Expected<void> {
            if (read) return (*read)(sink);
            return wheel::stream_zip_entry(
                it.wheel->zip.entries[f.entry], it.wheel->source(),
                [&](uint64_t off, char* into, size_t n) { return ws.reader.read(*it.wheel, off, into, n); }, ws.piece(0), ws.piece(1),
                sink);
        };
        if (f.kind == PlannedFile::Kind::Generated) {
            ENVFIX_TRY_VOID(write_whole(f.content));
        } else if (f.kind == PlannedFile::Kind::Script) {
            std::string content;
            ENVFIX_TRY_VOID(read_entry([&](std::string_view c) -> Expected<void> {
                content.append(c);
                return {};
            }));
            const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[f.entry])];
            hasher.start(row.hash_algorithm);
            hasher.update(content);
            ENVFIX_TRY_VOID(check_digest(it, row.hash_algorithm, hasher.finish_b64()));
            if (auto rewritten = rewrite_python_shebang(content, opts_.interpreter, opts_.line_end)) {
                ENVFIX_TRY_VOID(write_whole(*rewritten));
            } else {
                ENVFIX_TRY_VOID(file.write(content));
                out = {row.hash_algorithm, row.hash_digest, content.size()};
                bytes_ += content.size();
            }
        } else if (std::unique_ptr<char[]> leased;
                   !read && inflated_whole(it.wheel->zip.entries[f.entry]) &&
                   (small_entry(it.wheel->zip.entries[f.entry]) || (leased = pool_.try_take()))) {
            // Stored and deflate up to kWholeUpTo: read whole, inflated at once by libdeflate.
            const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[f.entry])];
            const wheel::ZipEntry& e = it.wheel->zip.entries[f.entry];
            const size_t size = static_cast<size_t>(e.size);
            const bool small = !leased;
            struct Return {
                BufferPool& pool;
                std::unique_ptr<char[]>& b;
                ~Return() {
                    if (b) pool.give(std::move(b));
                }
            } give_back{pool_, leased};
            char* in = small ? ws.small_buffer() : leased.get();
            char* data = in + (small ? kSmall : pool_.size() / 2);
            ENVFIX_TRY(auto compressed, read_compressed(*it.wheel, e, in, ws));
            ENVFIX_TRY_VOID(ws.inflater.inflate_data(compressed, e, it.wheel->source(), data));
            hasher.start(row.hash_algorithm);
            hasher.update(std::string_view(data, size));
            std::string digest = hasher.finish_b64();
            ENVFIX_TRY_VOID(check_digest(it, row.hash_algorithm, digest));
            ENVFIX_TRY_VOID(file.write(std::string_view(data, size)));
            bytes_.fetch_add(size, std::memory_order_relaxed);
            out = {row.hash_algorithm, std::move(digest), size};
        } else {
            // Larger entries (or all pool buffers in use), and those libarchive reads: streamed,
            // hashed and written piece by piece.
            const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[f.entry])];
            hasher.start(row.hash_algorithm);
            // A large library: hashed and written on other threads while this one inflates.
            HashedOutput output(hasher, file, it.wheel->zip.entries[f.entry].size >= write_behind_from_);
            ENVFIX_TRY_VOID(read_entry([&](std::string_view c) -> Expected<void> {
                if (stop_.load(std::memory_order_relaxed))
                    return fail(ExitCode::Interrupted, "install.interrupted");  // another worker failed: stop early
                if (interrupt_requested()) return fail(ExitCode::Interrupted, "install.interrupted");
                bytes_.fetch_add(c.size(), std::memory_order_relaxed);
                return output.push(c);
            }));
            ENVFIX_TRY_VOID(output.finish());
            std::string digest = hasher.finish_b64();
            ENVFIX_TRY_VOID(check_digest(it, row.hash_algorithm, digest));
            out = {row.hash_algorithm, std::move(digest), output.size()};
        }
        // What staging writes itself is written back now: the flush before the commit then waits
        // for little (on the GPU machine its 76 small files were 13-35 ms of a warm install).
        ENVFIX_TRY_VOID(file.finish(mode, f.kind != PlannedFile::Kind::Extracted));
        fault_point();
        return {};
    }

    const std::vector<StageItem>& items_;
    const StageOptions& opts_;
    std::vector<StagedDigest> out_;
    const size_t whole_up_to_;
    const uint64_t write_behind_from_;
    BufferPool pool_;
    std::vector<Task> tasks_;
    std::atomic<size_t> next_{0};
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> bytes_{0};
    std::mutex mu_;
    std::condition_variable cv_;
    unsigned started_ = 0, exited_ = 0;  // worker threads (under mu_)
    std::optional<Error> error_;
};

}  // namespace

Expected<std::vector<StagedDigest>> stage_items(const std::vector<StageItem>& items, const StageOptions& options) {
    if (items.empty()) return std::vector<StagedDigest>{};
    Run run(items, options);
    return run.go();
}

}  // namespace envfix::installer
