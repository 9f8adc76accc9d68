#pragma once
// The on-disk HTTP cache: one file per (URL without credentials, Accept) under
// <cache>/http/v1/<aa>/<sha256>. Each file is a JSON header line (version, URL, validators,
// freshness, the body's size and sha256) and the body, written with fs::write_file_atomic, so
// concurrent envfix processes only ever see whole entries; a damaged entry reads as a miss.
// The freshness keys came later within version 1: an entry without them is stale (asked again
// once, then stored with them), and earlier envfix builds ignore them.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"
#include "envfix/network/http_freshness.hpp"

namespace envfix::network {

inline constexpr int kHttpCacheVersion = 1;

struct CachedResponse {
    std::string url;  // final URL (credentials removed)
    std::string content_type;
    std::string etag;
    std::string last_modified;
    int64_t stored_at = 0;  // Unix seconds: when the answer (or its last 304) came in
    std::string body;
    std::string cache_control;  // as sent, kept for a 304 that repeats none
    std::string expires;
    Freshness freshness;  // none: stale at once, asked again on every use
    std::string auth;  // digest of the credentials it was fetched with ("" for none)
};

std::string encode_cache_entry(const CachedResponse& r);
std::optional<CachedResponse> decode_cache_entry(std::string_view bytes);

class HttpCache {
public:
    explicit HttpCache(std::filesystem::path dir) : dir_(std::move(dir)) {}
    std::filesystem::path entry_path(std::string_view url, std::string_view variant) const;
    std::optional<CachedResponse> load(std::string_view url, std::string_view variant) const;
    Expected<void> store(std::string_view url, std::string_view variant, const CachedResponse& r) const;
    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
};

}  // namespace envfix::network
