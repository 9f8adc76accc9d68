#pragma once
// Project pages of a package index as plain records: PEP 503 HTML and PEP 691 JSON, with the
// fields of PEP 592 (yanked), PEP 658/714 (core metadata), PEP 700 (versions, size, upload
// time). Pure: the parsers take the body and the page's final URL and return values.
// Turning file names into versions and tags is the packaging standards' job (wheel_name).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::network {

struct IndexFile {
    std::string filename;  // percent-decoded last path segment
    std::string url;  // absolute, fragment removed
    std::map<std::string, std::string> hashes;  // "sha256" -> lower-case hex
    std::optional<std::string> requires_python;  // HTML-unescaped specifier text
    bool yanked = false;
    std::string yanked_reason;  // "" when none was given
    bool core_metadata = false;  // PEP 658: <url>.metadata exists
    std::map<std::string, std::string> core_metadata_hashes;
    std::optional<uint64_t> size;  // PEP 700 (JSON only)
    std::optional<std::string> upload_time;  // PEP 700 ISO 8601, or HTML data-upload-time
};

enum class PageFormat { Html, Json };

struct ProjectPage {
    std::string url;  // final URL the page came from (credentials redacted)
    PageFormat format = PageFormat::Html;
    std::string api_version;  // "1.0" when the page says nothing
    std::string name;  // JSON `name`; "" for HTML
    std::vector<std::string> versions;  // PEP 700 (JSON only)
    std::vector<IndexFile> files;
    bool from_cache = false;  // set by the client
};

inline constexpr std::string_view kIndexAccept =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01";

// Errors: ExitCode::BadIndexPage naming the URL (redacted) and the cause.
Expected<ProjectPage> parse_html_project_page(std::string_view body, std::string_view page_url);
Expected<ProjectPage> parse_json_project_page(std::string_view body, std::string_view page_url);
// Chooses by Content-Type (PEP 691 JSON, HTML); anything else is not an index page.
Expected<ProjectPage> parse_project_page(std::string_view body, std::string_view content_type, std::string_view page_url);

// "&amp;" "&lt;" "&gt;" "&quot;" "&#39;" "&#NN;" "&#xHH;" and the common named entities.
std::string html_unescape(std::string_view s);
// Is this a file name an index serves (wheel, sdist, legacy formats)?
bool is_distribution_filename(std::string_view filename);
// "sha256=abc" (a fragment or a PEP 658 attribute value) -> {"sha256","abc"}.
std::optional<std::pair<std::string, std::string>> parse_hash_pair(std::string_view s);

}  // namespace envfix::network
