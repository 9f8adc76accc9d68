#pragma once
// The one HTTP client (libcurl, private to the .cpp files): verified TLS, proxies and
// credentials chosen by envfix, retries with backoff, HTTP/2 where offered, bounded
// redirects, an on-disk cache used without a request while the server's freshness lasts and
// revalidated with ETag / Last-Modified after (http_freshness.hpp), and an offline mode that
// answers from that cache only. Every URL in a message is redacted (url.hpp).
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/network/netrc.hpp"

namespace envfix::network {

struct HttpOptions {
    std::optional<std::filesystem::path> ca_bundle;  // else the system CA store
    std::string http_proxy;  // "" = none
    std::string https_proxy;
    std::string all_proxy;
    std::string no_proxy;  // curl's syntax: "host1,.domain,10.0.0.0/8" or "*"
    std::vector<NetrcEntry> netrc;  // credentials by host (URL credentials win)
    std::chrono::milliseconds connect_timeout{15000};
    std::chrono::milliseconds timeout{30000};  // no byte received for this long: give up
    int retries = 3;  // further attempts after the first
    std::chrono::milliseconds backoff{500};  // doubled each attempt, at most 10 s
    int max_redirects = 10;
    bool offline = false;  // answer from the cache only
    bool refresh = false;  // ask again for every cached page, fresh or not
    bool use_cache = true;
    std::filesystem::path cache_dir;  // the HTTP cache's folder
    std::string user_agent;
    // A download's bytes at most where neither the index nor the server announced a size
    // (ENVFIX_MAX_DOWNLOAD): an endless answer stops there instead of filling the disk.
    uint64_t max_download = uint64_t{8} << 30;

    // Proxies (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY and their lower-case forms), the CA
    // bundle (SSL_CERT_FILE, then REQUESTS_CA_BUNDLE), netrc (NETRC or ~/.netrc), the cache
    // under fs::cache_dir()/http. The configuration (index_config.hpp) refines these.
    static HttpOptions from_environment();
};

struct HttpRequest {
    std::string url;  // may carry "user:password@"
    std::string accept;
    std::vector<std::pair<std::string, std::string>> headers;
    bool cache = true;  // read and write the HTTP cache (pages, metadata; not wheels)
    size_t max_bytes = size_t{512} << 20;  // a larger answer is refused ("http.too_large")
};

struct HttpResponse {
    long status = 0;
    std::string url;  // final URL after redirects, without credentials
    std::string content_type;
    std::string etag;
    std::string last_modified;
    std::string body;
    int http_version = 0;  // 1 or 2 (0 from the cache)
    bool from_cache = false;  // body came from the cache (offline, fresh, or 304)
    bool fresh = false;  // from the cache without a request: still fresh (http_freshness.hpp)
    bool revalidated = false;  // the server answered 304 Not Modified
    int attempts = 0;
};

class HttpCache;
namespace detail {
class UnreachableHosts;
}

class HttpClient {
public:
    explicit HttpClient(HttpOptions options, Reporter& reporter = null_reporter());
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Any HTTP status comes back as a response (5xx and 429 after the retries); errors are
    // transport failures: Network, Tls, NotCached (offline), Interrupted, BadInput (bad URL).
    Expected<HttpResponse> fetch(const HttpRequest& req);
    // fetch() that turns a status >= 400 into ExitCode::HttpStatus.
    Expected<HttpResponse> get(const HttpRequest& req);

    const HttpOptions& options() const { return opts_; }
    Reporter& reporter() const { return rep_; }

private:
    std::optional<Error> remembered_unreachable(const std::string& url) const;
    Expected<HttpResponse> transport_failed(const HttpRequest& req, int rc, Error err);

    HttpOptions opts_;
    Reporter& rep_;
    std::unique_ptr<HttpCache> cache_;
    std::unique_ptr<detail::UnreachableHosts> unreachable_;  // hosts that did not answer lately
};

// The error for an HTTP status >= 400 at `url` (key http.status, ExitCode::HttpStatus).
Error http_status_error(long status, std::string_view url);
// Is libcurl built with HTTP/2 (nghttp2)?
bool http2_available();

}  // namespace envfix::network
