// Fetching many project pages at once over the index client (a few threads; the client caches).
#include "envfix/network/page_fetch.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "envfix/common/parallel_for.hpp"
#include "envfix/network/index_client.hpp"
#include "envfix/network/url.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::network::detail {

struct PageFetcher::Impl {
    Impl(const HttpOptions& o, Reporter& r, int p) : http(o, r), client(http), reporter(r), parallel(std::max(1, p)) {}
    HttpClient http;
    IndexClient client;
    Reporter& reporter;
    int parallel;
    std::mutex mu;
    std::map<std::string, PageResult> pages;

    static std::string key(const PageRequest& r) {
        std::string k;
        for (const auto& u : r.index_urls) k += u + "\n";
        return k + standards::canonicalize_name(r.project);
    }

    PageResult fetch(const PageRequest& r) {
        PageResult out;
        out.url = r.index_urls.empty() ? "" : redact_url(project_url(r.index_urls.front(), r.project));
        auto page = r.index_urls.size() == 1 ? client.project_page(r.index_urls.front(), r.project)
                                             : client.project_page_any(r.index_urls, r.project);
        if (page) {
            out.page = std::make_shared<const ProjectPage>(std::move(page).value());
        } else if (page.error().message.key == "index.project_not_found") {
            out.missing = true;
        } else {
            out.error = std::move(page).error();
        }
        return out;
    }
};

PageFetcher::PageFetcher(const HttpOptions& http, Reporter& reporter, int parallel)
    : impl_(std::make_unique<Impl>(http, reporter, parallel)) {}

PageFetcher::~PageFetcher() = default;

const HttpOptions& PageFetcher::http_options() const { return impl_->http.options(); }

Reporter& PageFetcher::reporter() const { return impl_->reporter; }

void PageFetcher::run_parallel(const std::vector<std::function<void()>>& jobs) const {
    // On the process's kept helper threads: a set made and joined per round of the resolution was
    // 14 threads in a warm install here, each made on the main thread.
    parallel_for(
        jobs.size(), [&](size_t i) { jobs[i](); }, 1, static_cast<size_t>(impl_->parallel));
}

void PageFetcher::prefetch(const std::vector<PageRequest>& requests) {
    std::vector<PageRequest> todo;
    {
        std::lock_guard lock(impl_->mu);
        for (const auto& r : requests) {
            auto k = Impl::key(r);
            if (impl_->pages.count(k)) continue;
            if (std::any_of(todo.begin(), todo.end(), [&](const PageRequest& t) { return Impl::key(t) == k; })) continue;
            todo.push_back(r);
        }
    }
    std::vector<std::function<void()>> jobs;
    for (const auto& r : todo)
        jobs.push_back([this, r] {
            auto res = impl_->fetch(r);
            std::lock_guard lock(impl_->mu);
            impl_->pages.emplace(Impl::key(r), std::move(res));
        });
    run_parallel(jobs);
}

PageResult PageFetcher::page(const PageRequest& request) {
    auto k = Impl::key(request);
    {
        std::lock_guard lock(impl_->mu);
        auto it = impl_->pages.find(k);
        if (it != impl_->pages.end()) return it->second;
    }
    auto res = impl_->fetch(request);
    std::lock_guard lock(impl_->mu);
    return impl_->pages.emplace(k, std::move(res)).first->second;
}

Expected<std::string> PageFetcher::core_metadata(const IndexFile& file) { return impl_->client.core_metadata(file); }

}  // namespace envfix::network::detail
