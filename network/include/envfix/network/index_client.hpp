#pragma once
// The package-index client: project pages (PEP 503 HTML / PEP 691 JSON, negotiated), PEP 658
// metadata files checked against their hash, and the PyTorch index layout with its mirrors.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/network/http_client.hpp"
#include "envfix/network/index_page.hpp"

namespace envfix::network {

// "<index>/<normalized-name>/"
std::string project_url(std::string_view index_url, std::string_view project);

// PyTorch index layout: <root>/<variant>/ for stable, <root>/nightly/<variant>/, and
// <root>/test/<variant>/ for release candidates; mirrors keep that layout under their root.
enum class IndexChannel { Stable, Nightly, Test };
std::string_view channel_name(IndexChannel c);  // "stable", "nightly", "test"
std::optional<IndexChannel> parse_channel(std::string_view s);
std::string pytorch_index_url(std::string_view root, IndexChannel channel, std::string_view variant);

inline constexpr std::string_view kDefaultPytorchRoot = "https://download.pytorch.org/whl";
inline constexpr std::string_view kDefaultIndexUrl = "https://pypi.org/simple";

// Mirrors of the PyTorch index users in China rely on, by short name (torch-matrix.md §E).
struct KnownMirror {
    std::string_view name;
    std::string_view root;
    std::string_view note;
};
const std::vector<KnownMirror>& known_pytorch_mirrors();
// A short name ("sjtug", "nju", "pytorch") becomes its root; a URL stays as it is.
std::string expand_pytorch_root(std::string_view name_or_url);

class IndexClient {
public:
    explicit IndexClient(HttpClient& http) : http_(http) {}

    // The page of `project` on the index at `index_url`. A 404 is ExitCode::HttpStatus with
    // "no project ... on ..."; links on the index's host keep the index URL's credentials.
    Expected<ProjectPage> project_page(std::string_view index_url, std::string_view project);
    // The first index in `index_urls` that answers (mirrors in order); the first error when
    // none does.
    Expected<ProjectPage> project_page_any(const std::vector<std::string>& index_urls, std::string_view project);
    // PEP 658: "<file url>.metadata", checked against the page's metadata hash (HashMismatch).
    // BadIndexPage when the page offers no metadata file for `file`.
    Expected<std::string> core_metadata(const IndexFile& file);

private:
    HttpClient& http_;
};

}  // namespace envfix::network
