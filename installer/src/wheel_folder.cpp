// Wheel folders for air-gapped machines: paths, URLs and PEP 503 pages (docs/provisioning.md).
#include "envfix/installer/wheel_folder.hpp"

#include <cstdio>

namespace envfix::installer {

namespace {

std::string escape_html(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// RFC 3986 unreserved characters stay; everything else (the "+" of local versions) is %XX.
std::string escape_url_part(std::string_view s) {
    std::string out;
    for (unsigned char c : s) {
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        }
    }
    return out;
}

std::string page(std::string_view title, const std::string& links) {
    return "<!DOCTYPE html>\n<html>\n<head><meta name=\"pypi:repository-version\" content=\"1.0\"><title>" + escape_html(title) +
           "</title></head>\n<body>\n" + links + "</body>\n</html>\n";
}

std::string file_link(const std::string& href, const FolderWheel& w) {
    return "<a href=\"" + escape_html(href) + "#sha256=" + w.sha256 + "\">" + escape_html(w.filename) + "</a><br/>\n";
}

}  // namespace

std::filesystem::path wheel_folder_path(WheelLayout layout, const FolderWheel& w) {
    if (layout == WheelLayout::Flat) return w.filename;
    return std::filesystem::path(w.canonical_name) / w.filename;
}

std::optional<std::filesystem::path> find_in_wheel_folder(const std::filesystem::path& folder, const FolderWheel& w) {
    std::error_code ec;
    for (auto layout : {WheelLayout::Flat, WheelLayout::Pep503}) {
        auto p = folder / wheel_folder_path(layout, w);
        if (std::filesystem::is_regular_file(p, ec)) return p;
    }
    return std::nullopt;
}

std::string wheel_folder_url(std::string_view base, WheelLayout layout, const FolderWheel& w) {
    std::string url(base);
    if (!url.ends_with("/")) url += "/";
    if (layout == WheelLayout::Pep503) url += escape_url_part(w.canonical_name) + "/";
    return url + escape_url_part(w.filename);
}

std::string root_page(const std::vector<std::string>& canonical_names) {
    std::string links;
    for (const auto& n : canonical_names) links += "<a href=\"" + escape_url_part(n) + "/\">" + escape_html(n) + "</a><br/>\n";
    return page("Simple index", links);
}

std::string project_page(std::string_view canonical_name, const std::vector<FolderWheel>& files) {
    std::string links;
    for (const auto& f : files) links += file_link(escape_url_part(f.filename), f);
    return page(std::string("Links for ") + std::string(canonical_name), links);
}

std::string flat_page(const std::vector<FolderWheel>& files) {
    std::string links;
    for (const auto& f : files) links += file_link(escape_url_part(f.filename), f);
    return page("Wheels", links);
}

}  // namespace envfix::installer
