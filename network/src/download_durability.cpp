// Downloads made durable: each file flushed before it is renamed into place, or beside an unsynced
// marker, flushed with its batch or left to the cache's next reader (download_job.hpp).
#include "download_job.hpp"

#include <algorithm>
#include <system_error>
#include <tuple>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/url.hpp"
#include "file_sync.hpp"

namespace envfix::network {

namespace download {

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
        r.error =
            make_error(ExitCode::PermissionDenied, "download.cannot_write", {{"path", dest.string()}, {"url", redact_url(j.item->url)}});
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

namespace {

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
            failed.emplace_back(
                f.index, make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", f.dest.string()}, {"url", redact_url(f.url)}}));
        }
        std::filesystem::remove(unsynced_marker(f.dest), ec);
    }
    return {std::move(failed), std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count()};
}

void tell_synced(Reporter& rep, size_t files, int64_t ms) {
    rep.debug(msg("download.debug.synced", {{"files", std::to_string(files)}, {"ms", std::to_string(ms)}}));
}

}  // namespace

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

}  // namespace download

using download::flush_file;
using download::settle_files;
using download::tell_synced;

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

}  // namespace envfix::network
