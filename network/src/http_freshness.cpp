#include "envfix/network/http_freshness.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <charconv>

#include "envfix/common/strings.hpp"

namespace envfix::network {

namespace {

std::optional<int64_t> delta_seconds(std::string_view v) {
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    if (v.empty() || v.front() == '-') return std::nullopt;
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (end != v.data() + v.size()) return std::nullopt;
    // RFC 9111 §1.2.2: a value too large is taken as 2^31.
    if (ec == std::errc::result_out_of_range) return int64_t{1} << 31;
    if (ec != std::errc() || n < 0) return std::nullopt;
    return std::min<int64_t>(n, int64_t{1} << 31);
}

}  // namespace

CacheControl parse_cache_control(std::string_view value) {
    CacheControl cc;
    size_t at = 0;
    while (at <= value.size()) {
        size_t comma = value.find(',', at);
        if (comma == std::string_view::npos) comma = value.size();
        auto item = str::trim(value.substr(at, comma - at));
        at = comma + 1;
        if (item.empty()) continue;
        auto eq = item.find('=');
        auto name = str::lower(str::trim(item.substr(0, eq)));
        auto arg = eq == std::string_view::npos ? std::string_view() : str::trim(item.substr(eq + 1));
        // §4.2.1: of directives repeated (an origin's and a CDN's lines joined), the first.
        if (name == "max-age") {
            if (!cc.max_age) cc.max_age = delta_seconds(arg).value_or(0);
        } else if (name == "no-cache")
            cc.no_cache = true;
        else if (name == "no-store")
            cc.no_store = true;
        else if (name == "must-revalidate")
            cc.must_revalidate = true;
        else if (name == "immutable")
            cc.immutable = true;
    }
    return cc;
}

std::optional<int64_t> parse_http_date(std::string_view value) {
    auto v = std::string(str::trim(value));
    if (v.empty()) return std::nullopt;
    // libcurl's parser reads all three forms RFC 9110 §5.6.7 asks a recipient to accept.
    time_t t = curl_getdate(v.c_str(), nullptr);
    if (t == -1) return std::nullopt;
    return static_cast<int64_t>(t);
}

Freshness freshness_of(const FreshnessHeaders& h, int64_t request_time, int64_t response_time) {
    Freshness f;
    const auto cc = parse_cache_control(h.cache_control);
    if (cc.no_cache || cc.no_store) {
        f.always_revalidate = true;
        return f;
    }
    // RFC 9111 §4.2.3: the age it had when it arrived.
    const auto date = parse_http_date(h.date);
    const int64_t apparent = date ? std::max<int64_t>(0, response_time - *date) : 0;
    const int64_t delay = std::max<int64_t>(0, response_time - request_time);
    const int64_t corrected = delta_seconds(h.age).value_or(0) + delay;
    f.initial_age = std::max(apparent, corrected);
    // §4.2.1: max-age, else Expires − Date, else (§4.2.2) the heuristic.
    if (cc.max_age) {
        f.lifetime = *cc.max_age;
    } else if (!str::trim(h.expires).empty()) {
        auto expires = parse_http_date(h.expires);  // an invalid Expires is already expired
        f.lifetime = expires ? std::max<int64_t>(0, *expires - date.value_or(response_time)) : 0;
    } else if (!str::trim(h.last_modified).empty()) {
        f.lifetime = kHeuristicFreshSeconds;
    }
    return f;
}

int64_t fresh_for(const Freshness& f, int64_t stored_at, int64_t now) {
    if (f.always_revalidate) return 0;
    // A clock set back since it was stored: how long has passed is unknown, so ask again.
    if (now < stored_at) return 0;
    return f.lifetime - (f.initial_age + (now - stored_at));
}

}  // namespace envfix::network
