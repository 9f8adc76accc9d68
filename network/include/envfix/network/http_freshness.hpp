#pragma once
// How long a cached index page or metadata file may be used without asking the server again
// (RFC 9111 §4.2, as a private cache). Pure: header values and times in, seconds out.
//
// Explicit freshness (Cache-Control max-age, else Expires − Date) is the server's; PyPI and the
// PyTorch index's release channels send `max-age=600`. A response with neither but a
// Last-Modified gets a heuristic lifetime of 600 s, as uv gives it (RFC 9111 §4.2.2 allows a
// heuristic; PyPI's own max-age is the figure): a static mirror that sends no Cache-Control is
// not asked again within ten minutes. no-cache and no-store (the PyTorch nightly pages) are
// always asked again. `--refresh` asks again whatever the lifetime.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace envfix::network {

inline constexpr int64_t kHeuristicFreshSeconds = 600;

struct CacheControl {
    std::optional<int64_t> max_age;
    bool no_cache = false;
    bool no_store = false;
    bool must_revalidate = false;
    bool immutable = false;
};

// Directives of one or more Cache-Control values, comma-separated, names case-insensitive,
// values plain or quoted; unknown directives are ignored, a malformed max-age is absent
// (RFC 9111 §4.2.1: an invalid one is treated as stale, so it is taken as max-age=0).
CacheControl parse_cache_control(std::string_view value);

// An HTTP-date (IMF-fixdate, RFC 850 or asctime form) as Unix seconds; nullopt when malformed.
std::optional<int64_t> parse_http_date(std::string_view value);

// The headers that decide freshness, as the server sent them ("" when absent).
struct FreshnessHeaders {
    std::string cache_control;
    std::string expires;
    std::string date;
    std::string age;
    std::string last_modified;
};

struct Freshness {
    int64_t lifetime = 0;  // seconds the response is fresh for, counted from its initial age
    int64_t initial_age = 0;  // corrected initial age when it arrived (RFC 9111 §4.2.3)
    bool always_revalidate = false;  // no-cache / no-store: never fresh
};

// `request_time` and `response_time`: Unix seconds when the request went out and the answer
// came in. Only 200 answers are cached, so the heuristic applies to all that are.
Freshness freshness_of(const FreshnessHeaders& h, int64_t request_time, int64_t response_time);

// Seconds the response stored at `stored_at` (its response time) stays fresh at `now`;
// 0 or less: stale, ask again.
int64_t fresh_for(const Freshness& f, int64_t stored_at, int64_t now);

}  // namespace envfix::network
