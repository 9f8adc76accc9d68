// Files fetched as byte ranges at once (download_job.hpp).
#include "download_job.hpp"

#include <algorithm>
#include <fstream>
#include <system_error>
#include <tuple>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network::download {

namespace {

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

}  // namespace

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

// Starts follow_hash() for a split file; without a thread left, it is hashed whole at the end.
void start_hash(Split& sp) {
    try {
        sp.hash = std::async(std::launch::async, follow_hash, sp.file, sp.progress);
    } catch (const std::system_error&) {
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

bool learn_split(Job& j, uint64_t total) {
    auto plan = range_plan(total, j.parallel, j.tail, j.min_range);
    j.learned = std::make_unique<Split>();
    j.learned->item = j.index;
    j.learned->file = j.part;
    j.learned->left = plan.size();
    j.learned->total = total;
    j.learned->ranges.push_back(&j);
    j.learned->progress = std::make_shared<PartProgress>(plan, total);
    std::setvbuf(j.file, nullptr, _IONBF, 0);  // nothing written yet: what is written is readable
    j.split = j.learned.get();
    j.range_at = 0;
    j.range_len = plan.front().length;
    j.range_no = 0;
    j.range_attempts = 1;  // this transfer was its first attempt
    return true;
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

}  // namespace envfix::network::download
