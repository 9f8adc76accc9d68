// The content-addressed wheel cache (wheel_cache.hpp).
#include "envfix/installer/wheel_cache.hpp"

#include <algorithm>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/downloader.hpp"
#include "envfix/network/url.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

constexpr const char* kLayout = "v1";

// A file name taken from an index is used as one path segment only.
bool safe_filename(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\\') == std::string::npos && name.find(':') == std::string::npos;
}

stdfs::path object_dir(const stdfs::path& root, const std::string& sha256) {
    return root / kLayout / "sha256" / sha256.substr(0, 2) / sha256;
}

}  // namespace

stdfs::path wheel_cache_root() { return fs::cache_dir() / "wheels"; }

stdfs::path wheel_cache_file(const stdfs::path& root, const std::string& sha256, const std::string& filename) {
    auto hex = str::lower(sha256);
    if (!is_sha256_hex(hex) || !safe_filename(filename)) return {};
    return object_dir(root, hex) / filename;
}

std::optional<stdfs::path> cached_wheel(const stdfs::path& root, const std::string& sha256, const std::string& filename) {
    auto p = wheel_cache_file(root, sha256, filename);
    if (p.empty()) return std::nullopt;
    std::error_code ec;
    if (!stdfs::is_regular_file(p, ec)) return std::nullopt;
    // Renamed in by a download whose batch may not have reached its flush (a crash): trusted once
    // its bytes match its name again, else gone and fetched anew.
    if (stdfs::exists(network::unsynced_marker(p), ec) && !network::settle_unsynced(p, sha256)) return std::nullopt;
    return p;
}

std::vector<CachedWheel> list_cached_wheels(const stdfs::path& root) {
    std::vector<CachedWheel> out;
    std::error_code ec;
    for (stdfs::recursive_directory_iterator it(root / kLayout / "sha256", ec), end; !ec && it != end; it.increment(ec)) {
        if (it.depth() != 2 || !it->is_regular_file(ec)) continue;
        auto name = it->path().filename().string();
        if (name.ends_with(".part") || name.ends_with(".unsynced")) continue;
        CachedWheel w;
        w.file = it->path();
        w.filename = name;
        w.sha256 = it->path().parent_path().filename().string();
        w.size = it->file_size(ec);
        out.push_back(std::move(w));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.filename < b.filename; });
    return out;
}

Expected<CleanResult> clean_wheel_cache(const stdfs::path& root) {
    CleanResult r;
    std::error_code ec;
    auto tree = root / kLayout;
    for (stdfs::recursive_directory_iterator it(tree, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        r.files++;
        r.bytes += it->file_size(ec);
    }
    ec.clear();
    stdfs::remove_all(tree, ec);
    if (ec) return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", tree.string()}, {"reason", ec.message()}});
    return r;
}

Expected<std::vector<FetchedWheel>> fetch_wheels(const stdfs::path& root, const std::vector<WheelFetch>& wheels,
                                                 const network::HttpOptions& http, bool offline, int parallel, Reporter& reporter,
                                                 const WheelReady& on_ready, const WheelSplit& on_split, network::DownloadFlush flush,
                                                 std::unique_ptr<network::PendingFlush>* flush_later) {
    std::vector<FetchedWheel> out(wheels.size());
    std::vector<network::DownloadItem> items;
    std::vector<size_t> item_of;
    for (size_t i = 0; i < wheels.size(); ++i) {
        const auto& w = wheels[i];
        if (!safe_filename(w.filename))
            return fail(ExitCode::BadIndexPage, "cache.bad_filename", {{"url", network::redact_url(w.url)}, {"name", w.filename}});
        auto hex = str::lower(w.sha256);
        if (!hex.empty() && !is_sha256_hex(hex))
            return fail(ExitCode::BadIndexPage, "cache.bad_hash", {{"url", network::redact_url(w.url)}, {"hash", w.sha256}});
        if (!hex.empty()) {
            if (auto hit = cached_wheel(root, hex, w.filename)) {
                out[i] = {*hit, true};
                if (on_ready) on_ready(*hit, hex);
                continue;
            }
        }
        if (offline) return fail(ExitCode::NotCached, "cache.offline_missing", {{"name", w.filename}, {"path", root.string()}});
        network::DownloadItem d;
        d.url = w.url;
        d.sha256 = hex;
        d.size = w.size;
        d.label = w.filename;
        // Without a hash the download's own digest names its folder afterwards; until then it
        // is kept under its URL's digest, so an interrupted download resumes.
        d.dest = hex.empty()
                     ? root / kLayout / "incoming" / (sha256_hex(network::strip_credentials(w.url)).substr(0, 16) + "-" + w.filename)
                     : object_dir(root, hex) / w.filename;
        items.push_back(std::move(d));
        item_of.push_back(i);
    }
    if (items.empty()) return out;
    network::DownloadOptions opts;
    opts.parallel = parallel;
    if (on_ready)
        opts.on_ready = [&](size_t k) {
            if (!items[k].sha256.empty()) on_ready(items[k].dest, items[k].sha256);
        };
    if (on_split)
        opts.on_split = [&](size_t k, const stdfs::path& part, std::shared_ptr<network::PartProgress> progress) {
            if (!items[k].sha256.empty()) on_split(part, items[k].sha256, std::move(progress));
        };
    // A hash-less download is renamed below, away from its marker: flushed before that.
    if (std::all_of(items.begin(), items.end(), [](const auto& d) { return !d.sha256.empty(); })) {
        opts.flush = flush;
        opts.flush_later = flush_later;
    }
    auto results = network::download_files(items, http, reporter, opts);
    for (size_t k = 0; k < results.size(); ++k) {
        if (!results[k].ok()) return unexpected(*results[k].error);
    }
    for (size_t k = 0; k < results.size(); ++k) {
        stdfs::path file = results[k].path;
        if (items[k].sha256.empty()) {
            auto dest = object_dir(root, results[k].sha256) / wheels[item_of[k]].filename;
            std::error_code ec;
            stdfs::create_directories(dest.parent_path(), ec);
            stdfs::rename(file, dest, ec);
            if (ec)
                return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", dest.string()}, {"reason", ec.message()}});
            file = dest;
        }
        out[item_of[k]] = {file, false};
    }
    return out;
}

}  // namespace envfix::installer
