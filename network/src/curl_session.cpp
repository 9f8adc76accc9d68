#include "curl_session.hpp"

#include <algorithm>
#include <mutex>
#include <thread>

#include "envfix/common/interrupt.hpp"
#include "envfix/network/url.hpp"
#include "tls_store.hpp"

namespace envfix::network::detail {

void ensure_curl_global() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CurlEasy::CurlEasy() {
    ensure_curl_global();
    h = curl_easy_init();
}

CurlEasy::~CurlEasy() {
    if (headers) curl_slist_free_all(headers);
    if (h) curl_easy_cleanup(h);
}

namespace {
// Ctrl-C aborts a transfer even while it waits for the server (no body callback runs then).
int abort_on_interrupt(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) { return interrupt_requested() ? 1 : 0; }
}  // namespace

void CurlEasy::add_header(const std::string& line) { headers = curl_slist_append(headers, line.c_str()); }

std::string proxy_for(const HttpOptions& o, const std::string& url) {
    auto scheme = url_scheme(url);
    if (scheme == "https" && !o.https_proxy.empty()) return o.https_proxy;
    if (scheme == "http" && !o.http_proxy.empty()) return o.http_proxy;
    if (scheme == "http" || scheme == "https") return o.all_proxy;
    return "";
}

void configure(CurlEasy& e, const HttpOptions& o, const std::string& url, bool for_download) {
    CURL* h = e.h;
    curl_easy_setopt(h, CURLOPT_URL, strip_credentials(url).c_str());
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, e.errbuf);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, abort_on_interrupt);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https,file");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, static_cast<long>(o.max_redirects));
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (o.ca_bundle) {
        curl_easy_setopt(h, CURLOPT_CAINFO, o.ca_bundle->string().c_str());
        curl_easy_setopt(h, CURLOPT_PROXY_CAINFO, o.ca_bundle->string().c_str());
    } else {
        use_system_ca_store(h);
    }
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    // envfix chooses the proxy itself (one place reads the environment); "" keeps curl from
    // reading the variables on its own.
    curl_easy_setopt(h, CURLOPT_PROXY, proxy_for(o, url).c_str());
    curl_easy_setopt(h, CURLOPT_NOPROXY, o.no_proxy.c_str());
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o.connect_timeout.count()));
    // A stalled transfer (under 1 byte/s for `timeout`) is abandoned; a slow one is not.
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(o.timeout.count() / 1000)));
    if (!o.user_agent.empty()) curl_easy_setopt(h, CURLOPT_USERAGENT, o.user_agent.c_str());
    if (!for_download) curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    // Wheels: bigger reads, fewer write callbacks (curl's default is 16 KiB; it caps what it allows).
    else
        curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);
    std::optional<Credentials> cred = url_credentials(url);
    if (!cred) cred = netrc_lookup(o.netrc, url_host(url));
    if (cred && !(cred->user.empty() && cred->password.empty())) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
        curl_easy_setopt(h, CURLOPT_USERNAME, cred->user.c_str());
        curl_easy_setopt(h, CURLOPT_PASSWORD, cred->password.c_str());
    }
    if (e.headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, e.headers);
}

Error transport_error(CURLcode code, const std::string& url, const char* errbuf, const HttpOptions& o) {
    std::string u = redact_url(url);
    std::string reason = redact_text(errbuf && *errbuf ? std::string(errbuf) : std::string(curl_easy_strerror(code)));
    switch (code) {
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_SSL_CONNECT_ERROR: return make_error(ExitCode::Tls, "http.tls", {{"url", u}, {"reason", reason}});
        case CURLE_PARTIAL_FILE: return make_error(ExitCode::Network, "http.truncated", {{"url", u}, {"reason", reason}});
        case CURLE_OPERATION_TIMEDOUT:
            return make_error(ExitCode::Network, "http.timeout", {{"url", u}, {"seconds", std::to_string(o.timeout.count() / 1000)}});
        case CURLE_COULDNT_CONNECT: return make_error(ExitCode::Network, "http.connect", {{"url", u}, {"reason", reason}});
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY: return make_error(ExitCode::Network, "http.resolve", {{"url", u}, {"reason", reason}});
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM: return make_error(ExitCode::Network, "http.connection_lost", {{"url", u}, {"reason", reason}});
        case CURLE_TOO_MANY_REDIRECTS:
            return make_error(ExitCode::HttpStatus, "http.redirects", {{"url", u}, {"max", std::to_string(o.max_redirects)}});
        case CURLE_UNSUPPORTED_PROTOCOL:
        case CURLE_URL_MALFORMAT: return make_error(ExitCode::BadInput, "http.bad_url", {{"url", u}, {"reason", reason}});
        case CURLE_ABORTED_BY_CALLBACK: return make_error(ExitCode::Interrupted, "http.interrupted", {{"url", u}});
        default: return make_error(ExitCode::Network, "http.failed", {{"url", u}, {"reason", reason}});
    }
}

bool means_unreachable(CURLcode code) {
    return code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_CONNECT || code == CURLE_OPERATION_TIMEDOUT;
}

bool retryable(CURLcode code) {
    switch (code) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_COULDNT_RESOLVE_PROXY:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_PARTIAL_FILE:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM: return true;
        default: return false;
    }
}

bool retryable_status(long status) {
    return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

std::chrono::milliseconds backoff_delay(const HttpOptions& o, int attempt) {
    auto d = o.backoff * (1LL << std::min(attempt, 10));
    return std::min<std::chrono::milliseconds>(d, std::chrono::seconds(10));
}

bool sleep_unless_interrupted(std::chrono::milliseconds d) {
    auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
        if (interrupt_requested()) return false;
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(std::chrono::milliseconds(50), d));
    }
    return !interrupt_requested();
}

}  // namespace envfix::network::detail
