#include "envfix/network/http_cache.hpp"

#include <nlohmann/json.hpp>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network {

std::string encode_cache_entry(const CachedResponse& r) {
    nlohmann::json h = {{"version", kHttpCacheVersion},
                        {"url", r.url},
                        {"content_type", r.content_type},
                        {"etag", r.etag},
                        {"last_modified", r.last_modified},
                        {"stored_at", r.stored_at},
                        {"cache_control", r.cache_control},
                        {"expires", r.expires},
                        {"lifetime", r.freshness.lifetime},
                        {"initial_age", r.freshness.initial_age},
                        {"always_revalidate", r.freshness.always_revalidate},
                        {"auth", r.auth},
                        {"size", r.body.size()},
                        {"sha256", sha256_hex(r.body)}};
    std::string out = h.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
    out += r.body;
    return out;
}

std::optional<CachedResponse> decode_cache_entry(std::string_view bytes) {
    auto nl = bytes.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;
    auto h = nlohmann::json::parse(bytes.substr(0, nl), nullptr, false);
    if (h.is_discarded() || !h.is_object()) return std::nullopt;
    try {
        if (h.at("version").get<int>() != kHttpCacheVersion) return std::nullopt;
        CachedResponse r;
        r.url = h.at("url").get<std::string>();
        r.content_type = h.at("content_type").get<std::string>();
        r.etag = h.at("etag").get<std::string>();
        r.last_modified = h.at("last_modified").get<std::string>();
        r.stored_at = h.at("stored_at").get<int64_t>();
        // Absent in entries stored before freshness was kept: stale, so asked again.
        r.cache_control = h.value("cache_control", std::string());
        r.expires = h.value("expires", std::string());
        r.freshness.lifetime = h.value("lifetime", int64_t{0});
        r.freshness.initial_age = h.value("initial_age", int64_t{0});
        r.freshness.always_revalidate = h.value("always_revalidate", false);
        r.auth = h.value("auth", std::string());
        r.body = std::string(bytes.substr(nl + 1));
        if (r.body.size() != h.at("size").get<uint64_t>()) return std::nullopt;
        if (sha256_hex(r.body) != h.at("sha256").get<std::string>()) return std::nullopt;
        return r;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::filesystem::path HttpCache::entry_path(std::string_view url, std::string_view variant) const {
    std::string key = strip_fragment(strip_credentials(url));
    key += '\n';
    key += variant;
    auto digest = sha256_hex(key);
    return dir_ / ("v" + std::to_string(kHttpCacheVersion)) / digest.substr(0, 2) / digest;
}

std::optional<CachedResponse> HttpCache::load(std::string_view url, std::string_view variant) const {
    auto p = entry_path(url, variant);
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) return std::nullopt;
    auto bytes = fs::read_file(p);
    if (!bytes) return std::nullopt;
    return decode_cache_entry(*bytes);
}

Expected<void> HttpCache::store(std::string_view url, std::string_view variant, const CachedResponse& r) const {
    auto p = entry_path(url, variant);
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    // Each entry carries its body's size and SHA-256 (decode_cache_entry): one cut short is a miss.
    return fs::write_file_atomic(p, encode_cache_entry(r), fs::Sync::Cache);
}

}  // namespace envfix::network
