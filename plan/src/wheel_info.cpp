#include "wheel_info.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <system_error>

#include "envfix/common/fs.hpp"
#include "envfix/network/downloader.hpp"
#include "envfix/network/http_cache.hpp"
#include "envfix/network/range_fetch.hpp"
#include "envfix/network/url.hpp"
#include "envfix/wheel/metadata_entry.hpp"
#include "envfix/wheel/zip.hpp"

namespace envfix::plan::detail {

namespace {

constexpr uint64_t kTailBytes = 64 * 1024;  // the end record, and all of a small wheel's directory
constexpr std::string_view kCacheVariant = "envfix-wheel-info-v1";
constexpr int kCacheFormat = 1;

std::string cache_key(const network::IndexFile& f) {
    auto it = f.hashes.find("sha256");
    return it == f.hashes.end() ? "" : "envfix-wheel:sha256:" + it->second;
}

// The local path of a file:// URL ("file:///C:/x" is "C:/x" on Windows).
std::filesystem::path local_path(const std::string& url) {
    std::string p = network::percent_decode(network::split_url(url).path);
    if (p.size() >= 3 && p[0] == '/' && p[2] == ':') p.erase(0, 1);
    return p;
}

std::string sha256_of(const network::IndexFile& f) {
    auto it = f.hashes.find("sha256");
    return it == f.hashes.end() ? "" : it->second;
}

// METADATA of a wheel held whole in memory (a local file, or a downloaded one).
Expected<std::string> metadata_in(std::string_view bytes, std::string_view project, std::string_view source) {
    ENVFIX_TRY(auto dir, wheel::read_zip_directory(bytes, source));  // the whole wheel: every check the install makes
    const wheel::ZipEntry* e = wheel::detail::find_metadata_entry(dir.entries, project);
    if (!e) return fail(ExitCode::BadWheel, "plan.wheel.no_metadata", {{"file", std::string(source)}});
    return wheel::detail::read_zip_entry(bytes.substr(static_cast<size_t>(e->local_header_offset)), *e, source);
}

}  // namespace

std::optional<WheelInfo> WheelInfoFetcher::cached(const network::IndexFile& f) const {
    const auto& o = pages_.http_options();
    std::string key = cache_key(f);
    if (key.empty() || !o.use_cache || o.cache_dir.empty()) return std::nullopt;
    auto entry = network::HttpCache(o.cache_dir).load(key, kCacheVariant);
    if (!entry) return std::nullopt;
    auto j = nlohmann::json::parse(entry->body, nullptr, false);
    if (!j.is_object() || j.value("version", 0) != kCacheFormat || !j.contains("metadata") || !j["metadata"].is_string())
        return std::nullopt;
    WheelInfo info;
    info.metadata = j["metadata"].get<std::string>();
    info.source = MetadataSource::Cache;
    if (j.contains("size") && j["size"].is_number_unsigned()) info.size = j["size"].get<uint64_t>();
    return info;
}

void WheelInfoFetcher::remember(const network::IndexFile& f, const WheelInfo& info) const {
    const auto& o = pages_.http_options();
    std::string key = cache_key(f);
    if (key.empty() || !o.use_cache || o.cache_dir.empty()) return;
    nlohmann::json j{{"version", kCacheFormat}, {"metadata", info.metadata}};
    if (info.size) j["size"] = *info.size;
    auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    // Keyed by the wheel's sha256, read without a request (cached() above): no freshness needed.
    network::CachedResponse c{
        .url = network::strip_credentials(f.url), .content_type = "application/json", .stored_at = now, .body = j.dump()};
    if (auto st = network::HttpCache(o.cache_dir).store(key, kCacheVariant, c); !st) pages_.reporter().debug(st.error().message);
}

Expected<WheelInfo> WheelInfoFetcher::from_whole_file(const network::IndexFile& f, std::string_view project, std::optional<uint64_t> size) {
    const std::string source = network::redact_url(f.url);
    if (network::url_scheme(f.url) == "file") {
        ENVFIX_TRY(auto map, fs::MappedFile::open(local_path(f.url)));
        ENVFIX_TRY(auto text, metadata_in(map.bytes(), project, source));
        return WheelInfo{std::move(text), MetadataSource::Wheel, map.size()};
    }
    // Into the cache folder, not /tmp: a torch wheel is near a gigabyte, and /tmp may be memory.
    auto dir = (pages_.http_options().cache_dir.empty() ? fs::cache_dir() : pages_.http_options().cache_dir.parent_path()) / "plan-wheels";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    network::DownloadItem item{f.url, sha256_of(f), size ? size : f.size, dir / f.filename, ""};
    auto results = network::download_files({item}, pages_.http_options(), pages_.reporter(), {1});
    auto& r = results.front();
    if (!r.ok()) return unexpected(*r.error);
    auto text = [&]() -> Expected<std::string> {
        ENVFIX_TRY(auto map, fs::MappedFile::open(r.path));
        return metadata_in(map.bytes(), project, source);
    }();
    // The hash was checked on the way in: the wheel cache can take it, so installing it does not
    // download it again.
    std::filesystem::path keep = text && keep_ && !item.sha256.empty() ? keep_(item.sha256, f.filename) : std::filesystem::path{};
    bool kept = false;
    if (!keep.empty()) {
        std::filesystem::create_directories(keep.parent_path(), ec);
        std::filesystem::rename(r.path, keep, ec);
        kept = !ec;
    }
    if (!kept) std::filesystem::remove(r.path, ec);
    if (!text) return unexpected(text.error());
    return WheelInfo{std::move(text).value(), MetadataSource::Wheel, r.size};
}

Expected<WheelInfo> WheelInfoFetcher::from_ranges(const network::IndexFile& f, std::string_view project) {
    const auto& o = pages_.http_options();
    const std::string source = network::redact_url(f.url);
    ENVFIX_TRY(auto end, network::detail::fetch_range(o, f.url, "-" + std::to_string(kTailBytes)));
    if (!end.partial || !end.total) {
        pages_.reporter().debug(msg("plan.debug.no_range", {{"url", source}}));
        return from_whole_file(f, project, end.total);
    }
    const uint64_t total = *end.total;
    std::string tail = std::move(end.body);
    if (tail.size() > total) return fail(ExitCode::BadWheel, "plan.wheel.not_zip", {{"file", source}});
    ENVFIX_TRY(auto central, wheel::read_zip_central(tail, total - tail.size(), source));
    // A big wheel's directory (torch: 2 MB for 20,000 files) starts before the first range; the
    // reader says where to start instead, further back each time (ZIP64 record, directory).
    for (int again = 0; central.need_from; ++again) {
        const uint64_t from = *central.need_from;
        if (again == 3 || from >= total - tail.size())
            return fail(ExitCode::BadWheel, "plan.wheel.zip_damaged", {{"file", source}, {"reason", "zip64 records out of place"}});
        ENVFIX_TRY(auto more, network::detail::fetch_range(o, f.url, std::to_string(from) + "-" + std::to_string(total - 1)));
        if (!more.partial) return from_whole_file(f, project, total);
        tail = std::move(more.body);
        if (tail.size() != total - from)
            return fail(ExitCode::BadWheel, "plan.wheel.zip_damaged", {{"file", source}, {"reason", "a range of another size"}});
        ENVFIX_TRY(central, wheel::read_zip_central(tail, from, source));
    }
    const auto& dir = central.dir;
    const wheel::ZipEntry* e = wheel::detail::find_metadata_entry(dir.entries, project);
    if (!e) return fail(ExitCode::BadWheel, "plan.wheel.no_metadata", {{"file", source}});
    const uint64_t tail_start = total - tail.size();
    const uint64_t span = std::min<uint64_t>(wheel::detail::entry_span(*e), total - e->local_header_offset);
    std::string local;
    if (e->local_header_offset >= tail_start) {
        local = tail.substr(static_cast<size_t>(e->local_header_offset - tail_start));
    } else {
        ENVFIX_TRY(auto part,
                   network::detail::fetch_range(
                       o, f.url, std::to_string(e->local_header_offset) + "-" + std::to_string(e->local_header_offset + span - 1)));
        if (!part.partial) return from_whole_file(f, project, total);
        local = std::move(part.body);
    }
    ENVFIX_TRY(auto text, wheel::detail::read_zip_entry(local, *e, source));
    return WheelInfo{std::move(text), MetadataSource::Range, total};
}

Expected<WheelInfo> WheelInfoFetcher::read_metadata(const network::IndexFile& f, std::string_view project) {
    if (auto c = cached(f)) return *c;
    if (f.core_metadata) {
        auto text = pages_.core_metadata(f);
        if (text) {
            WheelInfo info{std::move(text).value(), MetadataSource::Pep658, f.size};
            remember(f, info);
            return info;
        }
        // An advertised metadata file that is not there: read the wheel instead, as pip does.
        if (text.error().code != ExitCode::HttpStatus) return unexpected(text.error());
        pages_.reporter().debug(text.error().message);
    }
    Expected<WheelInfo> info = network::url_scheme(f.url) == "file" ? from_whole_file(f, project, f.size) : from_ranges(f, project);
    if (info) remember(f, *info);
    return info;
}

Expected<WheelInfo> WheelInfoFetcher::metadata(const network::IndexFile& f, std::string_view project) {
    {
        std::lock_guard lock(mu_);
        auto it = known_.find(f.url);
        if (it != known_.end()) return it->second;
    }
    ENVFIX_TRY(auto info, read_metadata(f, project));
    std::lock_guard lock(mu_);
    return known_.emplace(f.url, std::move(info)).first->second;
}

Expected<std::optional<uint64_t>> WheelInfoFetcher::size(const network::IndexFile& f) {
    if (f.size) return f.size;
    {
        std::lock_guard lock(mu_);
        auto it = known_.find(f.url);
        if (it != known_.end() && it->second.size) return it->second.size;
    }
    if (auto c = cached(f); c && c->size) return c->size;
    std::optional<uint64_t> n;
    if (network::url_scheme(f.url) == "file") {
        std::error_code ec;
        auto bytes = std::filesystem::file_size(local_path(f.url), ec);
        if (!ec) n = bytes;
    } else {
        ENVFIX_TRY(n, network::detail::fetch_size(pages_.http_options(), f.url));
    }
    // Metadata and size together in the cache: the next plan asks the server nothing about it.
    std::lock_guard lock(mu_);
    auto it = known_.find(f.url);
    if (it != known_.end() && n) {
        it->second.size = n;
        remember(f, it->second);
    }
    return n;
}

}  // namespace envfix::plan::detail
