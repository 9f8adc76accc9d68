// download_files() (downloader.hpp): the batch's transfers (download_transfers.cpp), then the
// files whose server ignored Range fetched whole, then what Ctrl-C left unfinished settled.
#include "envfix/network/downloader.hpp"

#include <system_error>

#include "curl_session.hpp"
#include "download_transfers.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network {

std::filesystem::path part_path(const std::filesystem::path& dest) {
    auto p = dest;
    p += ".part";
    return p;
}

uint64_t default_split_at() {
    if (auto v = env::get(EnvVar::EnvfixSplitDownloadsAt))
        if (auto n = str::to_int(*v); n && *n >= 0) return static_cast<uint64_t>(*n);
    return uint64_t{64} << 20;
}

std::vector<DownloadResult> download_files(const std::vector<DownloadItem>& items, const HttpOptions& http, Reporter& rep,
                                           const DownloadOptions& options) {
    std::vector<DownloadResult> results(items.size());
    if (items.empty()) return results;
    if (http.offline) {
        for (size_t i = 0; i < items.size(); ++i)
            results[i].error = make_error(ExitCode::NotCached, "http.not_cached", {{"url", redact_url(items[i].url)}});
        return results;
    }
    if (auto* missing = detail::curl_load_error()) {
        for (size_t i = 0; i < items.size(); ++i)
            results[i].error =
                make_error(ExitCode::LibraryMissing, "http.no_libcurl", {{"url", redact_url(items[i].url)}, {"reason", *missing}});
        return results;
    }
    detail::ensure_curl_global();
    std::error_code ec;
    for (const auto& it : items)
        if (it.dest.has_parent_path()) std::filesystem::create_directories(it.dest.parent_path(), ec);
    download::Transfers transfers(items, results, http, rep, options);
    transfers.run();
    // A server that ignored Range: those files whole now, one connection each.
    if (auto whole_of = transfers.fetched_without_ranges(); !whole_of.empty()) {
        std::vector<DownloadItem> whole;
        for (size_t i : whole_of) whole.push_back(items[i]);
        DownloadOptions o = options;
        o.split_at = 0;
        o.flush_later = nullptr;  // these few flushed before they are returned (a batch; Leave leaves them)
        o.on_ready = [&](size_t k) {
            if (options.on_ready) options.on_ready(whole_of[k]);
        };
        auto again = download_files(whole, http, rep, o);
        for (size_t k = 0; k < again.size(); ++k) results[whole_of[k]] = std::move(again[k]);
    }
    transfers.stop_unfinished();
    return results;
}

}  // namespace envfix::network
