// Parallel staging of new files (stager.hpp).
#include "stager.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "envfix/common/hash.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/installer/fault.hpp"
#include "envfix/installer/scripts.hpp"
#include "file_ops.hpp"
#include "record_hash.hpp"
#include "store_ops.hpp"

namespace envfix::installer {

namespace {

// Files at least this large are inflated into their mapped output file, smaller ones into a
// reused buffer and written with one write().
constexpr size_t kMapAtLeast = 8u << 20;
// Installed files kept in a switch are hashed in pieces of this size.
constexpr size_t kReadPiece = 1u << 20;

struct Task {
    std::vector<size_t> items;  // one item, a wheel's entries that libarchive reads in one pass, or links
    uint64_t weight = 0;
    bool links = false;         // cached files linked into one folder, in one run
};

// Links into one folder taken together: one thread per folder run instead of 32 threads queueing
// on the same directory lock, and one task fetch per run.
constexpr size_t kLinksPerTask = 64;

class Run {
public:
    Run(const std::vector<StageItem>& items, const StageOptions& o) : items_(items), opts_(o), out_(items.size()) {}

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
        for (unsigned i = 0; i < n; ++i) threads.emplace_back([this] { worker(); });
        {
            std::unique_lock lock(mu_);
            while (exited_ < n) {
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
        std::map<std::filesystem::path, Task> links;  // by staged folder
        for (size_t i = 0; i < items_.size(); ++i) {
            const auto& it = items_[i];
            uint64_t w = 4096;
            if (!it.file) w += it.wheel->bytes().size() / 4;  // hashing is cheaper than inflating
            else if (!it.linked_from.empty()) {  // a link: one metadata write, and a read to verify it
                if (it.verify_link) w += it.wheel->zip.entries[it.file->entry].size / 4;
                auto& t = links[it.stage.parent_path()];
                t.items.push_back(i);
                t.weight += w;
                t.links = true;
                if (t.items.size() == kLinksPerTask) tasks_.push_back(std::exchange(t, Task{}));
                continue;
            }
            else if (it.file->kind == PlannedFile::Kind::Generated) w += it.file->content.size();
            else {
                const auto& e = it.wheel->zip.entries[it.file->entry];
                w += e.size;
                if (zip_entry_needs_sequential_read(e)) {
                    auto& t = sequential[it.wheel];
                    t.items.push_back(i);
                    t.weight += w;
                    continue;
                }
            }
            tasks_.push_back(Task{{i}, w});
        }
        for (auto& [w, t] : sequential) tasks_.push_back(std::move(t));
        for (auto& [d, t] : links)
            if (!t.items.empty()) tasks_.push_back(std::move(t));
        std::stable_sort(tasks_.begin(), tasks_.end(), [](const Task& a, const Task& b) { return a.weight > b.weight; });
    }

    void set_error(Error e) {
        std::lock_guard lock(mu_);
        if (!error_) error_ = std::move(e);
        stop_ = true;
    }

    // What one worker thread reuses from file to file.
    struct WorkerState {
        RecordHasher hasher;
        ZipInflater inflater;
        std::vector<char> buffer;
    };

    void worker() {
        WorkerState state;
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
        }
        std::lock_guard lock(mu_);
        ++exited_;
        cv_.notify_all();
    }

    Expected<void> run_task(const Task& task, WorkerState& ws) {
        const StageItem& first = items_[task.items.front()];
        if (task.links) {
            // A cached file missing or the wrong size, a kept file that differs: that one is
            // inflated from its own wheel.
            for (size_t i : task.items)
                if (!link_one(i, ws)) ENVFIX_TRY_VOID(run_task(Task{{i}, 0, false}, ws));
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
        return visit_zip_entries(first.wheel->bytes(), first.wheel->zip, entries, first.wheel->source(),
                                 [&](size_t entry, const std::function<Expected<void>(const ZipSink&)>& read) {
                                     return stage_one(by_entry.at(entry), &read, ws);
                                 });
    }

    // The cached or installed copy linked (or copied) into staging; false: inflate instead
    // (nothing left behind).
    bool link_one(size_t index, WorkerState& ws) {
        const StageItem& it = items_[index];
        const ZipEntry& e = it.wheel->zip.entries[it.file->entry];
        auto st = storeops::stat_path(it.linked_from);
        if (!st || !st->regular || st->size != e.size) return false;
        // An installed file keeps its mode when linked: only one the stager would write alike.
        if (it.verify_link && (((st->mode & 0111) != 0) != it.file->executable || !(st->mode & 0200))) return false;
        bool cross = false;
        if (!storeops::hard_link(it.linked_from, it.stage, &cross) &&
            (!cross || !storeops::copy_file(it.linked_from, it.stage, st->mode)))
            return false;
        const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[it.file->entry])];
        if (it.verify_link && !same_bytes(it.stage, row, ws)) {
            std::error_code ec;
            std::filesystem::remove(it.stage, ec);
            return false;
        }
        out_[index] = {row.hash_algorithm, row.hash_digest, e.size, true};
        bytes_.fetch_add(4096 + (it.verify_link ? e.size / 4 : 0), std::memory_order_relaxed);
        fault_point();
        return true;
    }

    // The staged link (the installed inode) hashed against the wheel's RECORD row: a file edited
    // by hand since it was installed is not kept, whatever its old RECORD row says. Read in
    // pieces, so an unchanged library of a gigabyte does not become resident all at once.
    static bool same_bytes(const std::filesystem::path& p, const resolver::RecordEntry& row, WorkerState& ws) {
        std::ifstream in(p, std::ios::binary);
        if (!in || !ws.hasher.start(row.hash_algorithm)) return false;
        ws.buffer.resize(std::max<size_t>(ws.buffer.size(), kReadPiece));
        while (in) {
            in.read(ws.buffer.data(), static_cast<std::streamsize>(kReadPiece));
            ws.hasher.update(std::string_view(ws.buffer.data(), static_cast<size_t>(in.gcount())));
        }
        return !in.bad() && ws.hasher.finish_b64() == row.hash_digest;
    }

    static bool zip_entry_needs_sequential_read_for(const StageItem& it) {
        return it.file->kind != PlannedFile::Kind::Generated &&
               zip_entry_needs_sequential_read(it.wheel->zip.entries[it.file->entry]);
    }

    Expected<void> check_digest(const StageItem& it, const std::string& algorithm, const std::string& digest) {
        const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[it.file->entry])];
        if (row.hash_algorithm != algorithm || row.hash_digest != digest)
            return fail(ExitCode::BadWheel, "wheel.hash_mismatch",
                        {{"file", it.wheel->source()}, {"entry", it.wheel->zip.entries[it.file->entry].name}});
        return {};
    }

    Expected<void> stage_one(size_t index, const std::function<Expected<void>(const ZipSink&)>* read, WorkerState& ws) {
        RecordHasher& hasher = ws.hasher;
        const StageItem& it = items_[index];
        StagedDigest& out = out_[index];
        if (!it.file) {  // the archive's own sha256, for direct_url.json
            Sha256 h;
            auto bytes = it.wheel->bytes();
            for (size_t p = 0; p < bytes.size(); p += 1u << 22) {
                auto chunk = bytes.substr(p, 1u << 22);
                h.update(chunk);
                bytes_ += chunk.size() / 4;
                if (stop_.load()) return {};
            }
            auto d = h.finish();
            out = {"sha256", to_hex(d.data(), d.size()), bytes.size()};
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
        auto read_entry = [&](const ZipSink& sink) -> Expected<void> {
            if (read) return (*read)(sink);
            return read_zip_entry(it.wheel->bytes(), it.wheel->zip.entries[f.entry], it.wheel->source(), sink);
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
        } else if (!read) {
            // Stored and deflate: the whole entry at once, into a buffer, or for large files
            // straight into the mapped output file (no copy, no memory the size of torch's
            // largest library).
            const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[f.entry])];
            const ZipEntry& e = it.wheel->zip.entries[f.entry];
            const size_t size = static_cast<size_t>(e.size);
            const bool mapped = size >= kMapAtLeast;
            char* data = nullptr;
            if (mapped) {
                ENVFIX_TRY(data, file.map(size));
            } else {
                ws.buffer.resize(std::max<size_t>(size, 1));
                data = ws.buffer.data();
            }
            ENVFIX_TRY_VOID(ws.inflater.inflate(it.wheel->bytes(), e, it.wheel->source(), data));
            hasher.start(row.hash_algorithm);
            hasher.update(std::string_view(data, size));
            std::string digest = hasher.finish_b64();
            ENVFIX_TRY_VOID(check_digest(it, row.hash_algorithm, digest));
            if (!mapped) ENVFIX_TRY_VOID(file.write(std::string_view(data, size)));
            bytes_.fetch_add(size, std::memory_order_relaxed);
            out = {row.hash_algorithm, std::move(digest), size};
        } else {
            const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[f.entry])];
            hasher.start(row.hash_algorithm);
            uint64_t size = 0;
            ENVFIX_TRY_VOID(read_entry([&](std::string_view c) -> Expected<void> {
                if (stop_.load(std::memory_order_relaxed))
                    return fail(ExitCode::Interrupted, "install.interrupted");  // another worker failed: stop early
                if (interrupt_requested()) return fail(ExitCode::Interrupted, "install.interrupted");
                hasher.update(c);
                size += c.size();
                bytes_.fetch_add(c.size(), std::memory_order_relaxed);
                return file.write(c);
            }));
            std::string digest = hasher.finish_b64();
            ENVFIX_TRY_VOID(check_digest(it, row.hash_algorithm, digest));
            out = {row.hash_algorithm, std::move(digest), size};
        }
        ENVFIX_TRY_VOID(file.finish(mode));
        fault_point();
        return {};
    }

    const std::vector<StageItem>& items_;
    const StageOptions& opts_;
    std::vector<StagedDigest> out_;
    std::vector<Task> tasks_;
    std::atomic<size_t> next_{0};
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> bytes_{0};
    std::mutex mu_;
    std::condition_variable cv_;
    unsigned exited_ = 0;
    std::optional<Error> error_;
};

}  // namespace

Expected<std::vector<StagedDigest>> stage_items(const std::vector<StageItem>& items, const StageOptions& options) {
    if (items.empty()) return std::vector<StagedDigest>{};
    Run run(items, options);
    return run.go();
}

}  // namespace envfix::installer
