#include "envfix/network/http_client.hpp"

#include <chrono>
#include <tuple>

#include "curl_session.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/http_cache.hpp"
#include "envfix/network/netrc.hpp"
#include "envfix/network/url.hpp"
#include "unreachable_hosts.hpp"

#ifndef ENVFIX_VERSION
#define ENVFIX_VERSION "0"
#endif

namespace envfix::network {

namespace {

struct Transfer {
    std::string body;
    std::string content_type;
    std::string etag;
    std::string last_modified;
    FreshnessHeaders freshness;  // its last_modified unused: the one above
    bool too_large = false;
    size_t limit = 0;  // HttpRequest::max_bytes
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    if (interrupt_requested()) return 0;
    if (t->body.size() + size * n > t->limit) {
        t->too_large = true;
        return 0;
    }
    t->body.append(data, size * n);
    return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    std::string_view line(data, size * n);
    if (line.starts_with("HTTP/")) {  // a new response (after a redirect): forget the last one's
        t->etag.clear();
        t->last_modified.clear();
        t->content_type.clear();
        t->freshness = {};
    }
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return size * n;
    auto name = str::lower(str::trim(line.substr(0, colon)));
    auto value = std::string(str::trim(line.substr(colon + 1)));
    if (name == "etag")
        t->etag = value;
    else if (name == "last-modified")
        t->last_modified = value;
    else if (name == "content-type")
        t->content_type = value;
    else if (name == "cache-control")  // may come on several lines
        t->freshness.cache_control += (t->freshness.cache_control.empty() ? "" : ", ") + value;
    else if (name == "expires" && t->freshness.expires.empty())
        t->freshness.expires = value;  // the first (RFC 9111 §4.2.1)
    else if (name == "date")
        t->freshness.date = value;
    else if (name == "age")
        t->freshness.age = value;
    return size * n;
}

std::string seconds_text(std::chrono::milliseconds d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(d.count()) / 1000.0);
    return buf;
}

int64_t now_unix() { return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count(); }

HttpResponse from_cached(const CachedResponse& c) {
    HttpResponse r;
    r.status = 200;
    r.url = c.url;
    r.content_type = c.content_type;
    r.etag = c.etag;
    r.last_modified = c.last_modified;
    r.body = c.body;
    r.from_cache = true;
    return r;
}

std::string variant_of(const HttpRequest& req) { return req.accept; }

// RFC 9111 §4.3.4: the stored answer takes the 304's fields, and is fresh again from its
// arrival. True when that changed something a later use reads: a copy never fresh whose fields
// stay the same (a nightly page) is not written again, megabytes each use.
bool freshen(CachedResponse& c, const Transfer& t, const std::string& auth, int64_t request_time, int64_t response_time) {
    const auto old = std::tuple(c.cache_control, c.expires, c.last_modified, c.auth);
    if (!t.freshness.cache_control.empty()) c.cache_control = t.freshness.cache_control;
    if (!t.freshness.expires.empty()) c.expires = t.freshness.expires;
    if (!t.last_modified.empty()) c.last_modified = t.last_modified;
    c.auth = auth;
    c.freshness =
        freshness_of({c.cache_control, c.expires, t.freshness.date, t.freshness.age, c.last_modified}, request_time, response_time);
    c.stored_at = response_time;
    return std::tie(c.cache_control, c.expires, c.last_modified, c.auth) != old || fresh_for(c.freshness, c.stored_at, response_time) > 0;
}

// Who asked, as a digest ("" when no one signs in): the cache's key leaves credentials out, so a
// fresh page is used without a request only for the same credentials (else the server decides).
std::string auth_of(const HttpRequest& req, const HttpOptions& o) {
    std::optional<Credentials> cred = url_credentials(req.url);
    if (!cred) cred = netrc_lookup(o.netrc, url_host(req.url));
    std::string who = cred ? cred->user + '\n' + cred->password : "";
    for (const auto& [k, v] : req.headers)
        if (str::lower(k) == "authorization") who += '\n' + v;
    return who.empty() ? "" : sha256_hex("envfix-http-auth\n" + who);
}

}  // namespace

HttpOptions HttpOptions::from_environment() {
    HttpOptions o;
    if (auto v = env::get(EnvVar::SslCertFile))
        o.ca_bundle = *v;
    else if (auto v2 = env::get(EnvVar::RequestsCaBundle))
        o.ca_bundle = *v2;
    o.http_proxy = env::get_or(EnvVar::HttpProxy, "");
    o.https_proxy = env::get_or(EnvVar::HttpsProxy, "");
    o.all_proxy = env::get_or(EnvVar::AllProxy, "");
    o.no_proxy = env::get_or(EnvVar::NoProxy, "");
    o.netrc = load_netrc();
    o.cache_dir = fs::cache_dir() / "http";
    o.user_agent = std::string("envfix/") + ENVFIX_VERSION;
    if (auto v = env::get(EnvVar::EnvfixMaxDownload)) {
        if (auto n = str::parse_size(*v); n && *n > 0) o.max_download = *n;
    }
    return o;
}

HttpClient::HttpClient(HttpOptions options, Reporter& reporter)
    : opts_(std::move(options)),
      rep_(reporter),
      cache_(std::make_unique<HttpCache>(opts_.cache_dir)),
      unreachable_(std::make_unique<detail::UnreachableHosts>(
          opts_.use_cache && !opts_.cache_dir.empty() ? opts_.cache_dir / "unreachable-hosts-v1.json" : std::filesystem::path())) {}

std::optional<Error> HttpClient::remembered_unreachable(const std::string& url) const {
    if (opts_.refresh || url_scheme(url) == "file") return std::nullopt;
    auto r = unreachable_->remembered(url, now_unix());
    if (!r) return std::nullopt;
    return make_error(ExitCode::Network, "http.unreachable_remembered",
                      {{"url", redact_url(url)}, {"host", r->host}, {"reason", r->reason}, {"minutes", std::to_string(r->minutes)}});
}

// A transport failure after the retries: a host that did not answer at all is remembered.
Expected<HttpResponse> HttpClient::transport_failed(const HttpRequest& req, int rc, Error err) {
    if (detail::means_unreachable(static_cast<CURLcode>(rc))) unreachable_->remember(req.url, render(err.message, Lang::En), now_unix());
    return unexpected(std::move(err));
}

HttpClient::~HttpClient() = default;

Error http_status_error(long status, std::string_view url) {
    return make_error(ExitCode::HttpStatus, "http.status", {{"url", redact_url(url)}, {"status", std::to_string(status)}});
}

bool http2_available() {
    detail::ensure_curl_global();
    auto* info = curl_version_info(CURLVERSION_NOW);
    return info && (info->features & CURL_VERSION_HTTP2);
}

Expected<HttpResponse> HttpClient::fetch(const HttpRequest& req) {
    const bool use_cache = req.cache && opts_.use_cache && !opts_.cache_dir.empty();
    std::optional<CachedResponse> cached;
    if (use_cache) cached = cache_->load(req.url, variant_of(req));
    // Still fresh (http_freshness.hpp): answered without a request, as pip and uv do. Not a
    // file:// page (a folder's index is read again, it costs nothing), nor one stored for other
    // credentials.
    const std::string auth = use_cache ? auth_of(req, opts_) : "";
    if (cached && !opts_.offline && !opts_.refresh && url_scheme(req.url) != "file" && cached->auth == auth) {
        if (auto left = fresh_for(cached->freshness, cached->stored_at, now_unix()); left > 0) {
            rep_.debug(msg("http.fresh", {{"url", redact_url(req.url)}, {"seconds", std::to_string(left)}}));
            auto r = from_cached(*cached);
            r.fresh = true;
            return r;
        }
    }
    if (opts_.offline) {
        if (cached) {
            rep_.debug(msg("http.from_cache", {{"url", redact_url(req.url)}}));
            return from_cached(*cached);
        }
        return fail(ExitCode::NotCached, "http.not_cached", {{"url", redact_url(req.url)}});
    }
    if (auto* missing = detail::curl_load_error())
        return fail(ExitCode::LibraryMissing, "http.no_libcurl", {{"url", redact_url(req.url)}, {"reason", *missing}});
    if (auto dead = remembered_unreachable(req.url)) return unexpected(std::move(*dead));
    for (int attempt = 0;; ++attempt) {
        if (interrupt_requested()) return fail(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(req.url)}});
        detail::CurlEasy e;
        Transfer t;
        t.limit = req.max_bytes;
        if (!req.accept.empty()) e.add_header("Accept: " + req.accept);
        for (const auto& [k, v] : req.headers) e.add_header(k + ": " + v);
        if (cached && !cached->etag.empty()) e.add_header("If-None-Match: " + cached->etag);
        if (cached && !cached->last_modified.empty()) e.add_header("If-Modified-Since: " + cached->last_modified);
        detail::configure(e, opts_, req.url, false);
        curl_easy_setopt(e.h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(e.h, CURLOPT_WRITEDATA, &t);
        curl_easy_setopt(e.h, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(e.h, CURLOPT_HEADERDATA, &t);
        const int64_t request_time = now_unix();
        CURLcode rc = curl_easy_perform(e.h);
        const int64_t response_time = now_unix();
        if (rc == CURLE_WRITE_ERROR && t.too_large)
            return fail(ExitCode::BadIndexPage, "http.too_large",
                        {{"url", redact_url(req.url)}, {"limit", str::human_bytes(req.max_bytes)}});
        if (rc == CURLE_WRITE_ERROR && interrupt_requested())
            return fail(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(req.url)}});
        if (rc != CURLE_OK) {
            auto err = detail::transport_error(rc, req.url, e.errbuf, opts_);
            if (detail::retryable(rc) && attempt < opts_.retries) {
                auto delay = detail::backoff_delay(opts_, attempt);
                // A host that does not answer is said while envfix waits for it.
                const bool silent_host = detail::means_unreachable(rc);
                auto note = msg(silent_host ? "http.waiting" : "http.retry", {{"url", redact_url(req.url)},
                                                                              {"host", detail::host_key(req.url)},
                                                                              {"reason", render(err.message, Lang::En)},
                                                                              {"seconds", seconds_text(delay)},
                                                                              {"attempt", std::to_string(attempt + 2)},
                                                                              {"attempts", std::to_string(opts_.retries + 1)}});
                silent_host ? rep_.info(note) : rep_.debug(note);
                if (!detail::sleep_unless_interrupted(delay))
                    return fail(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(req.url)}});
                continue;
            }
            return transport_failed(req, rc, std::move(err));
        }
        unreachable_->forget(req.url);
        long status = 0;
        curl_easy_getinfo(e.h, CURLINFO_RESPONSE_CODE, &status);
        if (detail::retryable_status(status) && attempt < opts_.retries) {
            rep_.debug(msg("http.retry_status", {{"url", redact_url(req.url)},
                                                 {"status", std::to_string(status)},
                                                 {"attempt", std::to_string(attempt + 2)},
                                                 {"attempts", std::to_string(opts_.retries + 1)}}));
            if (!detail::sleep_unless_interrupted(detail::backoff_delay(opts_, attempt)))
                return fail(ExitCode::Interrupted, "http.interrupted", {{"url", redact_url(req.url)}});
            continue;
        }
        char* eff = nullptr;
        curl_easy_getinfo(e.h, CURLINFO_EFFECTIVE_URL, &eff);
        long version = 0;
        curl_easy_getinfo(e.h, CURLINFO_HTTP_VERSION, &version);
        if (status == 304 && cached) {
            // A 304 naming another strong validator than the stored copy's does not describe it
            // (RFC 9111 §4.3.4); nor is an entry another process or thread stored since this one
            // was read overwritten (a newer page, which a fresh copy of the old one would hide).
            const int64_t read_stored_at = cached->stored_at;
            if (use_cache && (t.etag.empty() || t.etag == cached->etag) && freshen(*cached, t, auth, request_time, response_time)) {
                auto now = cache_->load(req.url, variant_of(req));
                if (now && now->stored_at == read_stored_at && now->etag == cached->etag && now->body.size() == cached->body.size())
                    if (auto st = cache_->store(req.url, variant_of(req), *cached); !st)
                        rep_.debug(msg("http.cache_write_failed",
                                       {{"url", redact_url(req.url)}, {"reason", render(st.error().message, Lang::En)}}));
            }
            auto r = from_cached(*cached);
            r.revalidated = true;
            r.attempts = attempt + 1;
            r.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : 1;
            rep_.debug(msg("http.not_modified", {{"url", redact_url(req.url)}}));
            return r;
        }
        HttpResponse r;
        r.status = status;
        r.url = strip_credentials(eff ? std::string(eff) : req.url);
        r.content_type = t.content_type;
        r.etag = t.etag;
        r.last_modified = t.last_modified;
        r.body = std::move(t.body);
        r.attempts = attempt + 1;
        r.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : 1;
        // file:// answers have no status; treat them as 200.
        if (r.status == 0 && url_scheme(r.url) == "file") r.status = 200;
        if (use_cache && r.status == 200) {
            auto& fh = t.freshness;
            fh.last_modified = r.last_modified;
            CachedResponse c{.url = r.url,
                             .content_type = r.content_type,
                             .etag = r.etag,
                             .last_modified = r.last_modified,
                             .stored_at = response_time,
                             .body = r.body,
                             .cache_control = fh.cache_control,
                             .expires = fh.expires,
                             .freshness = freshness_of(fh, request_time, response_time),
                             .auth = auth};
            if (auto st = cache_->store(req.url, variant_of(req), c); !st)
                rep_.debug(
                    msg("http.cache_write_failed", {{"url", redact_url(req.url)}, {"reason", render(st.error().message, Lang::En)}}));
        }
        return r;
    }
}

Expected<HttpResponse> HttpClient::get(const HttpRequest& req) {
    ENVFIX_TRY(auto r, fetch(req));
    if (r.status >= 400) return unexpected(http_status_error(r.status, r.url));
    return r;
}

}  // namespace envfix::network
