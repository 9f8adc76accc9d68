#pragma once
// The content-addressed wheel cache shared by every environment: fs::cache_dir()/wheels/.
// Layout (version 1, the "v1" folder):
//   wheels/v1/sha256/<first two hex>/<sha256>/<file name>   accepted wheels (hash checked)
//   wheels/v1/sha256/<..>/<sha256>/<file name>.part          a download in progress (resumable)
//   wheels/v1/incoming/<url digest>-<file name>             a wheel whose index gave no hash
// A wheel enters its final folder by rename only after its sha256 was checked, so a reader
// never sees a partial file and two envfix processes can fill the cache at once (the last
// rename wins; both wrote the same bytes). docs/snapshots.md#the-wheel-cache.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/network/downloader.hpp"
#include "envfix/network/http_client.hpp"

namespace envfix::installer {

std::filesystem::path wheel_cache_root();  // fs::cache_dir()/wheels

struct CachedWheel {
    std::filesystem::path file;
    std::string sha256;
    std::string filename;
    uint64_t size = 0;
};

// The cached file of a wheel with this hash and name, when present (one left beside an unsynced
// marker is checked against the hash first: network::settle_unsynced).
std::optional<std::filesystem::path> cached_wheel(const std::filesystem::path& root, const std::string& sha256,
                                                  const std::string& filename);
// Where an accepted wheel with this hash and name lives; empty for a bad hash or name. A file
// renamed there must have been checked against the hash.
std::filesystem::path wheel_cache_file(const std::filesystem::path& root, const std::string& sha256, const std::string& filename);
// Every accepted wheel, sorted by file name.
std::vector<CachedWheel> list_cached_wheels(const std::filesystem::path& root);

struct CleanResult {
    size_t files = 0;
    uint64_t bytes = 0;
};
// Removes every cached wheel and partial download (the whole versioned tree).
Expected<CleanResult> clean_wheel_cache(const std::filesystem::path& root);

struct WheelFetch {
    std::string url;               // with credentials where the index has them
    std::string filename;
    std::string sha256;            // "" when the index gives none (then computed, not checked)
    std::optional<uint64_t> size;
};

struct FetchedWheel {
    std::filesystem::path file;
    bool from_cache = false;
};

// Each wheel from the cache, else downloaded into it (in parallel, resumable, hash checked).
// offline: only the cache (NotCached 55, naming the wheel). Errors: the downloader's
// (HashMismatch 53, HttpStatus 51, Network 50, Interrupted 130 ...), for the first failed file;
// a failed or interrupted run leaves only resumable .part files.
// on_ready(file, sha256): a wheel with a known hash is in the cache, checked (at
// once for cached ones, on the downloader's threads for the others, while the rest download).
// on_split(part, sha256, progress): a wheel with a known hash is fetched in byte ranges into
// `part`, of which `progress` tells what is written (network::DownloadOptions::on_split).
using WheelReady = std::function<void(const std::filesystem::path&, const std::string&)>;
using WheelSplit = std::function<void(const std::filesystem::path&, const std::string&, std::shared_ptr<network::PartProgress>)>;
// flush: how the downloads reach the disk (network::DownloadFlush); Leave and flush_later hold
// only where every wheel's hash is known (a hash-less download is renamed after, away from its
// marker: flushed first, as Batch waited for). flush_later set: the downloads' flush is left
// running (network::DownloadOptions::flush_later): *flush_later holds it, or null.
Expected<std::vector<FetchedWheel>> fetch_wheels(const std::filesystem::path& root, const std::vector<WheelFetch>& wheels,
                                                 const network::HttpOptions& http, bool offline, int parallel, Reporter& reporter,
                                                 const WheelReady& on_ready = {}, const WheelSplit& on_split = {},
                                                 network::DownloadFlush flush = network::DownloadFlush::Batch,
                                                 std::unique_ptr<network::PendingFlush>* flush_later = nullptr);

}  // namespace envfix::installer
