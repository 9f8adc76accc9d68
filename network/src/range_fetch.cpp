#include "envfix/network/range_fetch.hpp"

#include "curl_session.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network::detail {

namespace {

constexpr size_t kMaxRangeBytes = size_t{64} << 20;

struct Transfer {
    long status = 0;
    bool refused = false;  // a 200 to a Range request: stop reading
    bool too_large = false;
    std::string body;
    std::optional<uint64_t> total;
    std::optional<uint64_t> length;
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    std::string_view line(data, size * n);
    if (line.starts_with("HTTP/")) {
        t->total.reset();
        t->length.reset();
        auto sp = line.find(' ');
        if (sp != std::string_view::npos)
            if (auto code = str::to_int(line.substr(sp + 1, 3))) t->status = static_cast<long>(*code);
        return size * n;
    }
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return size * n;
    auto name = str::lower(str::trim(line.substr(0, colon)));
    auto value = str::trim(line.substr(colon + 1));
    if (name == "content-range") {  // "bytes 0-99/1234"
        auto slash = value.rfind('/');
        if (slash != std::string_view::npos)
            if (auto v = str::to_int(value.substr(slash + 1)); v && *v >= 0) t->total = static_cast<uint64_t>(*v);
    } else if (name == "content-length") {
        if (auto v = str::to_int(value); v && *v >= 0) t->length = static_cast<uint64_t>(*v);
    }
    return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    if (t->status == 200) {
        t->refused = true;
        return 0;  // the whole file is coming: not this way
    }
    // What a plan asks of a wheel by range is its tail, directory and one metadata entry: an
    // answer past a few tens of MiB is no such range (an endless body).
    if (t->body.size() + size * n > kMaxRangeBytes) {
        t->too_large = true;
        return 0;
    }
    t->body.append(data, size * n);
    return size * n;
}

// One request with the client's retry rules; `head`: no body.
Expected<Transfer> perform(const HttpOptions& o, const std::string& url, const std::string& range, bool head) {
    if (auto* missing = curl_load_error())
        return fail(ExitCode::LibraryMissing, "http.no_libcurl", {{"url", redact_url(url)}, {"reason", *missing}});
    for (int attempt = 0;; ++attempt) {
        CurlEasy e;
        Transfer t;
        if (!range.empty()) e.add_header("Range: bytes=" + range);
        configure(e, o, url, true);
        curl_easy_setopt(e.h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(e.h, CURLOPT_HEADERDATA, &t);
        curl_easy_setopt(e.h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(e.h, CURLOPT_WRITEDATA, &t);
        if (head) curl_easy_setopt(e.h, CURLOPT_NOBODY, 1L);
        CURLcode rc = curl_easy_perform(e.h);
        if (rc == CURLE_WRITE_ERROR && t.refused) return t;
        if (rc == CURLE_WRITE_ERROR && t.too_large)
            return fail(ExitCode::BadIndexPage, "http.too_large", {{"url", redact_url(url)}, {"limit", str::human_bytes(kMaxRangeBytes)}});
        if (rc != CURLE_OK) {
            auto err = transport_error(rc, url, e.errbuf, o);
            if (retryable(rc) && attempt < o.retries && sleep_unless_interrupted(backoff_delay(o, attempt))) continue;
            return unexpected(std::move(err));
        }
        curl_easy_getinfo(e.h, CURLINFO_RESPONSE_CODE, &t.status);
        if (retryable_status(t.status) && attempt < o.retries && sleep_unless_interrupted(backoff_delay(o, attempt))) continue;
        if (t.status >= 400) return unexpected(http_status_error(t.status, url));
        return t;
    }
}

}  // namespace

Expected<RangeResult> fetch_range(const HttpOptions& http, const std::string& url, const std::string& range) {
    ENVFIX_TRY(auto t, perform(http, url, range, false));
    RangeResult r;
    r.partial = t.status == 206;
    r.total = t.total ? t.total : (t.status == 200 ? t.length : std::nullopt);
    if (r.partial) r.body = std::move(t.body);
    return r;
}

Expected<std::optional<uint64_t>> fetch_size(const HttpOptions& http, const std::string& url) {
    ENVFIX_TRY(auto t, perform(http, url, "", true));
    return t.length;
}

}  // namespace envfix::network::detail
