#pragma once
// For the planner (plan/): parts of a file over HTTP (Range), and a file's size (HEAD), with the
// one HTTP client's settings (TLS, proxies, credentials, retries). Not cached here: the planner
// keeps what it reads out of a wheel itself.
#include <cstdint>
#include <optional>
#include <string>

#include "envfix/common/error.hpp"
#include "envfix/network/http_client.hpp"

namespace envfix::network::detail {

struct RangeResult {
    bool partial = false;  // 206: `body` is the range asked for
    std::string body;
    std::optional<uint64_t> total;  // the file's size (Content-Range, else Content-Length of a 200)
};

// GET url with "Range: bytes=<range>" ("-65536", "1000-2047"). A server that ignores Range
// answers 200: the transfer is stopped at once and `partial` is false (callers then fetch the
// whole file another way). Errors: HttpStatus for >= 400, and the transport errors of fetch().
Expected<RangeResult> fetch_range(const HttpOptions& http, const std::string& url, const std::string& range);

// HEAD url: Content-Length, nullopt when the server does not say.
Expected<std::optional<uint64_t>> fetch_size(const HttpOptions& http, const std::string& url);

}  // namespace envfix::network::detail
