#include "envfix/network/index_client.hpp"

#include <cctype>

#include "envfix/common/hash.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/url.hpp"
#include "envfix/standards/limits.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::network {

std::string project_url(std::string_view index_url, std::string_view project) {
    return with_trailing_slash(url_join_path(index_url, percent_encode_segment(standards::canonicalize_name(project))));
}

std::string_view channel_name(IndexChannel c) {
    switch (c) {
        case IndexChannel::Stable: return "stable";
        case IndexChannel::Nightly: return "nightly";
        case IndexChannel::Test: return "test";
    }
    return "stable";
}

std::optional<IndexChannel> parse_channel(std::string_view s) {
    for (IndexChannel c : {IndexChannel::Stable, IndexChannel::Nightly, IndexChannel::Test})
        if (str::iequals(s, channel_name(c))) return c;
    return std::nullopt;
}

std::string pytorch_index_url(std::string_view root, IndexChannel channel, std::string_view variant) {
    std::string base(root);
    if (channel == IndexChannel::Nightly) base = url_join_path(base, "nightly");
    if (channel == IndexChannel::Test) base = url_join_path(base, "test");
    return with_trailing_slash(url_join_path(base, variant));
}

const std::vector<KnownMirror>& known_pytorch_mirrors() {
    static const std::vector<KnownMirror> m = {
        {"pytorch", kDefaultPytorchRoot, "download.pytorch.org (the origin)"},
        {"sjtug", "https://mirror.sjtu.edu.cn/pytorch-wheels", "SJTUG, Shanghai Jiao Tong University"},
        {"nju", "https://mirrors.nju.edu.cn/pytorch/whl", "Nanjing University"},
    };
    return m;
}

std::string expand_pytorch_root(std::string_view name_or_url) {
    for (const auto& m : known_pytorch_mirrors())
        if (str::iequals(name_or_url, m.name)) return std::string(m.root);
    std::string r(name_or_url);
    while (r.size() > 1 && r.back() == '/') r.pop_back();
    return r;
}

namespace {

// Files on the index's own host get the index URL's credentials, as pip and uv do.
void carry_credentials(ProjectPage& page, std::string_view index_url) {
    auto idx = split_url(index_url);
    if (idx.userinfo.empty()) return;
    for (auto& f : page.files) {
        auto p = split_url(f.url);
        if (p.userinfo.empty() && p.host == idx.host && p.port == idx.port && p.scheme == idx.scheme) {
            p.userinfo = idx.userinfo;
            f.url = join_url(p);
        }
    }
}

}  // namespace

Expected<ProjectPage> IndexClient::project_page(std::string_view index_url, std::string_view project) {
    std::string url = project_url(index_url, project);
    HttpRequest req{url, std::string(kIndexAccept), {}, true};
    ENVFIX_TRY(auto resp, http_.fetch(req));
    if (resp.status == 404 || resp.status == 410)
        return fail(ExitCode::HttpStatus, "index.project_not_found",
                    {{"project", std::string(project)}, {"url", redact_url(url)}, {"status", std::to_string(resp.status)}});
    if (resp.status >= 400) return unexpected(http_status_error(resp.status, url));
    // Links resolve against the final URL (after redirects), with the credentials given.
    std::string base = resp.url;
    if (auto cred = split_url(url); !cred.userinfo.empty()) {
        auto b = split_url(base);
        if (b.host == cred.host && b.port == cred.port) {
            b.userinfo = cred.userinfo;
            base = join_url(b);
        }
    }
    ENVFIX_TRY(auto page, parse_project_page(resp.body, resp.content_type, base));
    page.url = redact_url(resp.url);
    page.from_cache = resp.from_cache;
    carry_credentials(page, url);
    http_.reporter().debug(msg(
        "index.page_read",
        {{"url", page.url}, {"files", std::to_string(page.files.size())}, {"format", page.format == PageFormat::Json ? "json" : "html"}}));
    return page;
}

Expected<ProjectPage> IndexClient::project_page_any(const std::vector<std::string>& index_urls, std::string_view project) {
    std::optional<Error> first;
    for (const auto& u : index_urls) {
        auto page = project_page(u, project);
        if (page) return page;
        if (page.error().code == ExitCode::Interrupted || page.error().code == ExitCode::NotCached) return page;
        http_.reporter().warn(msg("index.mirror_failed", {{"url", redact_url(u)}, {"reason", render(page.error().message)}}));
        if (!first) first = page.error();
    }
    if (!first) return fail(ExitCode::Usage, "index.no_index", {{"project", std::string(project)}});
    return unexpected(*first);
}

Expected<std::string> IndexClient::core_metadata(const IndexFile& file) {
    std::string url = file.url + ".metadata";
    if (!file.core_metadata) return fail(ExitCode::BadIndexPage, "index.no_metadata", {{"url", redact_url(file.url)}});
    // A metadata file is text of a few KiB: one of many MiB is no metadata (a bomb, a wrong URL).
    ENVFIX_TRY(auto resp, http_.get(HttpRequest{url, "", {}, true, standards::kMaxMetadataBytes}));
    for (const auto& [algo, expected] : file.core_metadata_hashes) {
        if (algo != "sha256") continue;  // the one digest envfix computes; others are not checked
        auto actual = sha256_hex(resp.body);
        if (actual != expected)
            return fail(ExitCode::HashMismatch, "index.metadata_hash",
                        {{"url", redact_url(url)}, {"expected", expected}, {"actual", actual}});
    }
    return std::move(resp.body);
}

}  // namespace envfix::network
