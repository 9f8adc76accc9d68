#pragma once
// Private to the HTTP client and the downloader: libcurl handles set up one way (TLS,
// proxies, credentials, redirects, timeouts) and curl errors mapped to envfix errors.
#include <curl/curl.h>

#include <chrono>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/network/http_client.hpp"

namespace envfix::network::detail {

void ensure_curl_global();
// Where libcurl could not be loaded (POSIX loads it on first use: curl_lazy_posix.cpp), why;
// else nullptr. Asked before a transfer starts.
const std::string* curl_load_error();

struct CurlEasy {
    CURL* h = nullptr;
    curl_slist* headers = nullptr;
    char errbuf[CURL_ERROR_SIZE] = {};
    CurlEasy();
    ~CurlEasy();
    CurlEasy(const CurlEasy&) = delete;
    CurlEasy& operator=(const CurlEasy&) = delete;
    void add_header(const std::string& line);
};

// Sets every option envfix wants on a handle for `url` (credentials are taken out of the URL
// and passed apart, so they never reach curl's messages). `for_download`: no content
// decoding, no body limit.
void configure(CurlEasy& e, const HttpOptions& o, const std::string& url, bool for_download);

// The proxy curl should use for `url` ("" = direct), from the options.
std::string proxy_for(const HttpOptions& o, const std::string& url);

// Maps a failed transfer to an error naming the (redacted) URL.
Error transport_error(CURLcode code, const std::string& url, const char* errbuf, const HttpOptions& o);
bool retryable(CURLcode code);
// The host did not answer at all (no such name, connection refused, no answer in time).
bool means_unreachable(CURLcode code);
bool retryable_status(long status);
std::chrono::milliseconds backoff_delay(const HttpOptions& o, int attempt);
// Sleeps in small steps; false when Ctrl-C arrived meanwhile.
bool sleep_unless_interrupted(std::chrono::milliseconds d);

}  // namespace envfix::network::detail
