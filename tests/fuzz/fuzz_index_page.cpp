// libFuzzer target for the index-page parsers (PEP 503 HTML, PEP 691 JSON) and the URL and
// entity helpers they lean on. The first byte picks the parser; the rest is the page body.
// Build and run: docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "envfix/common/message.hpp"
#include "envfix/network/index_page.hpp"
#include "envfix/network/url.hpp"

using namespace envfix;
using namespace envfix::network;
using namespace envfix::matrix;

namespace {
constexpr std::string_view kUrls[] = {"https://user:pw@download.example/whl/cu128/torch/", "https://i/simple/x/",
                                      "file:///srv/index/torch/index.html", "http://[::1]:8080/a/b/c/"};

void check(const Expected<ProjectPage>& page) {
    if (!page) {
        (void)render(page.error().message, Lang::En);
        (void)render(page.error().message, Lang::Zh);
        return;
    }
    // The page's own URL is for messages: its credentials must be gone.
    if (page->url.find(":pw@") != std::string::npos) __builtin_trap();
    for (const auto& f : page->files) {
        (void)redact_url(f.url);
        (void)url_filename(f.url);
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    uint8_t mode = data[0];
    std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
    std::string_view url = kUrls[(mode >> 2) % 4];
    switch (mode & 3) {
        case 0: check(parse_html_project_page(body, url)); break;
        case 1: check(parse_json_project_page(body, url)); break;
        case 2: check(parse_project_page(body, "", url)); break;
        default: {
            (void)html_unescape(body);
            (void)redact_text(body);
            (void)resolve_url(url, body);
            (void)parse_hash_pair(body);
            break;
        }
    }
    return 0;
}
