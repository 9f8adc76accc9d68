// Resuming a download from its .part file, and checking what it holds (download_job.hpp).
#include "download_job.hpp"

#include <algorithm>
#include <system_error>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network::download {

std::string label_of(const DownloadItem& it) { return it.label.empty() ? url_filename(it.url) : it.label; }

Error size_error(const DownloadItem& it, uint64_t expected, uint64_t got) {
    return make_error(ExitCode::HashMismatch, "download.size_mismatch",
                      {{"url", redact_url(it.url)}, {"expected", std::to_string(expected)}, {"actual", std::to_string(got)}});
}
Error size_error(const DownloadItem& it, uint64_t got) { return size_error(it, *it.size, got); }

Expected<void> open_part(Job& j) {
    j.close_file();
    j.done = 0;
    std::error_code ec;
    uint64_t have = std::filesystem::exists(j.part, ec) ? std::filesystem::file_size(j.part, ec) : 0;
    if (ec) have = 0;
    if (have > 0 && (!j.item->size || have <= *j.item->size)) j.done = have;
    j.file = detail::open_file(j.part, j.done > 0 ? "ab" : "wb");
    if (!j.file)
        return fail(ExitCode::PermissionDenied, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(j.item->url)}});
    if (j.done > 0) j.result->resumed = true;
    return {};
}

void restart_part(Job& j) {
    j.close_file();
    j.file = detail::open_file(j.part, "wb");
    j.done = 0;
    j.result->resumed = false;
}

void discard_part(Job& j) {
    j.close_file();
    std::error_code ec;
    std::filesystem::remove(j.part, ec);
}

// The bytes are all there: check their size and hash (false: the .part is gone, the error set).
// The hash is taken from the finished file, not on the transfer thread: one thread receiving
// every transfer and hashing it too held a cold install's download to about 500 MB/s; read back
// from the page cache on the sealing threads, all files are hashed at once.
bool verify(Job& j) {
    auto& r = *j.result;
    r.size = j.done;
    if (j.item->size && j.done != *j.item->size) {
        discard_part(j);
        r.error = size_error(*j.item, j.done);
        return false;
    }
    if (j.file && std::fflush(j.file) != 0) {
        discard_part(j);
        r.error = make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", j.part.string()}, {"url", redact_url(j.item->url)}});
        return false;
    }
    auto hex = sha256_file_hex(j.part);
    if (!hex) {
        discard_part(j);
        r.error = hex.error();
        return false;
    }
    r.sha256 = *hex;
    if (!j.item->sha256.empty() && str::lower(j.item->sha256) != r.sha256) {
        discard_part(j);
        r.error = make_error(ExitCode::HashMismatch, "download.hash_mismatch",
                             {{"url", redact_url(j.item->url)}, {"expected", str::lower(j.item->sha256)}, {"actual", r.sha256}});
        return false;
    }
    return true;
}

void finish(Job& j) {
    const auto from = Clock::now();
    if (verify(j)) seal(j, from, Clock::now());
}

bool part_is_complete(const Job& j) { return j.item->size && j.done == *j.item->size && !j.item->sha256.empty(); }

}  // namespace envfix::network::download
