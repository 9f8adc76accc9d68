// The answer's headers and body, as curl hands them over (download_job.hpp).
#include "download_job.hpp"

#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::network::download {

size_t on_header(char* data, size_t size, size_t n, void* user) {
    auto* j = static_cast<Job*>(user);
    std::string_view line(data, size * n);
    if (line.starts_with("HTTP/")) {
        auto sp = line.find(' ');
        if (sp != std::string_view::npos) j->status = str::to_int(line.substr(sp + 1, 3)).value_or(0);
        j->range_start.reset();
        j->range_total.reset();
    } else if (auto colon = line.find(':');
               colon != std::string_view::npos && str::iequals(str::trim(line.substr(0, colon)), "content-range")) {
        // "bytes 1000-4999/5000"
        auto v = str::trim(line.substr(colon + 1));
        if (v.starts_with("bytes ")) {
            auto dash = v.find('-');
            if (auto start = str::to_int(v.substr(6, dash == std::string_view::npos ? 0 : dash - 6)); start && *start >= 0)
                j->range_start = static_cast<uint64_t>(*start);
            if (auto slash = v.find('/'); slash != std::string_view::npos)
                if (auto total = str::to_int(str::trim(v.substr(slash + 1))); total && *total >= 0)
                    j->range_total = static_cast<uint64_t>(*total);
        }
    }
    return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto* j = static_cast<Job*>(user);
    size_t len = size * n;
    if (interrupt_requested()) return 0;
    if (j->status >= 300) return len;  // an error page: not part of the file
    if (!j->body_started) {
        j->body_started = true;
        if (j->split && (j->status != 206 || j->range_start != j->range_at)) {
            j->not_ranged = true;
            return 0;
        }
        if (j->split && j->range_total && *j->range_total != j->split->total) {
            j->oversize = true;  // the file on the server is not the size the index gave
            return 0;
        }
        // The index gave no size (the PyTorch index's pages do not): learned from this answer.
        if (!j->split && j->split_at > 0 && j->parallel >= 2 && j->range_from == 0 && j->status == 200 && !j->item->sha256.empty()) {
            curl_off_t length = -1;
            curl_easy_getinfo(j->easy->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
            if (length > 0 && static_cast<uint64_t>(length) >= j->split_at && static_cast<uint64_t>(length) <= j->max_download)
                learn_split(*j, static_cast<uint64_t>(length));
        }
        if (!j->split && j->range_from > 0 && j->status != 206) restart_part(*j);
        if (!j->split && !j->item->size) {
            // Nothing announced by the index: the answer's own length bounds it, and a cap bounds
            // that (an endless body, or a length of a terabyte, would fill the disk).
            curl_off_t length = -1;
            curl_easy_getinfo(j->easy->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
            j->limit = j->max_download;
            if (length >= 0) j->limit = std::min<uint64_t>(j->limit, j->done + static_cast<uint64_t>(length));
        }
        if (j->status == 206 && j->range_start != j->range_from) {
            j->bad_range = true;
            return 0;
        }
        if (!j->file) {
            j->write_failed = true;
            return 0;
        }
        // A range's readers learn of its bytes once they are in the file, from the writer.
        std::function<void(uint64_t)> written;
        if (j->split) written = [p = j->split->progress.get(), r = j->range_no](uint64_t n) { p->advance(r, n); };
        j->writer = std::make_unique<detail::TransferWriter>(j->file, std::move(written));
    }
    if (j->split && j->done + len > j->range_len) {
        // The whole file's answer taken as the first range, or a server that sends more than the
        // range asked for: cut at the range's end.
        size_t keep = static_cast<size_t>(j->range_len - j->done);
        if (!j->writer->write(data, keep)) {
            j->write_failed = true;
            return 0;
        }
        j->done += keep;
        j->split->done += keep;
        j->rep->task_advance(j->task, j->split->done);
        j->cut = true;
        return 0;
    }
    if (!j->split && j->item->size && j->done + len > *j->item->size) {
        j->oversize = true;
        return 0;
    }
    if (!j->split && j->done + len > j->limit) {
        j->too_large = true;
        return 0;
    }
    if (!j->writer->write(data, len)) {
        j->write_failed = true;
        return 0;
    }
    j->done += len;
    if (j->split) {
        j->split->done += len;
        j->rep->task_advance(j->task, j->split->done);
    } else {
        j->rep->task_advance(j->task, j->done);
    }
    return len;
}

}  // namespace envfix::network::download
