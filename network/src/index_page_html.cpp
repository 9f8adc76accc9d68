// PEP 503 HTML project pages: a tolerant scanner for <a>, <base> and <meta> tags (index pages
// are machine-written, but mirrors rewrite them; no full HTML parser is needed for three tags).
#include <cctype>

#include "envfix/common/strings.hpp"
#include "envfix/network/index_page.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network {

namespace {

struct Tag {
    std::string name;  // lower case
    std::vector<std::pair<std::string, std::optional<std::string>>> attrs;  // raw values

    const std::optional<std::string>* attr(std::string_view n) const {
        for (const auto& [k, v] : attrs)
            if (k == n) return &v;
        return nullptr;
    }
};

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Parses the tag starting at s[i] == '<'; returns the position after '>' (or s.size()).
size_t parse_tag(std::string_view s, size_t i, Tag& tag) {
    ++i;
    size_t start = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == ':' || s[i] == '-')) ++i;
    tag.name = str::lower(s.substr(start, i - start));
    while (i < s.size()) {
        while (i < s.size() && (is_space(s[i]) || s[i] == '/')) ++i;
        if (i >= s.size()) break;
        if (s[i] == '>') return i + 1;
        size_t ns = i;
        while (i < s.size() && !is_space(s[i]) && s[i] != '=' && s[i] != '>' && s[i] != '/') ++i;
        std::string name = str::lower(s.substr(ns, i - ns));
        if (name.empty()) {
            ++i;
            continue;
        }
        while (i < s.size() && is_space(s[i])) ++i;
        std::optional<std::string> value;
        if (i < s.size() && s[i] == '=') {
            ++i;
            while (i < s.size() && is_space(s[i])) ++i;
            if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
                char q = s[i++];
                size_t vs = i;
                while (i < s.size() && s[i] != q) ++i;
                value = std::string(s.substr(vs, i - vs));
                if (i < s.size()) ++i;
            } else {
                size_t vs = i;
                while (i < s.size() && !is_space(s[i]) && s[i] != '>') ++i;
                value = std::string(s.substr(vs, i - vs));
            }
        }
        tag.attrs.emplace_back(std::move(name), std::move(value));
    }
    return s.size();
}

size_t skip_past(std::string_view s, size_t i, std::string_view end) {
    auto p = s.find(end, i);
    return p == std::string_view::npos ? s.size() : p + end.size();
}

// PEP 714: "true", or "<hashname>=<hex>"; "false" (or absent) means none.
void read_metadata_attr(const std::optional<std::string>& raw, IndexFile& f) {
    std::string v = raw ? html_unescape(*raw) : "true";
    if (str::iequals(str::trim(v), "false")) return;
    f.core_metadata = true;
    if (auto h = parse_hash_pair(v)) f.core_metadata_hashes.insert(*h);
}

}  // namespace

Expected<ProjectPage> parse_html_project_page(std::string_view body, std::string_view page_url) {
    ProjectPage page;
    page.url = redact_url(page_url);
    page.format = PageFormat::Html;
    page.api_version = "1.0";
    std::string base(page_url);
    bool marker = false;  // the page says it is an index page
    size_t other_links = 0;  // anchors that are not distribution files
    size_t i = 0;
    while (i < body.size()) {
        size_t lt = body.find('<', i);
        if (lt == std::string_view::npos) break;
        if (body.substr(lt, 4) == "<!--") {
            i = skip_past(body, lt + 4, "-->");
            continue;
        }
        if (lt + 1 >= body.size() || !std::isalpha(static_cast<unsigned char>(body[lt + 1]))) {
            i = lt + 1;
            continue;
        }
        Tag tag;
        i = parse_tag(body, lt, tag);
        if (tag.name == "script" || tag.name == "style") {
            i = skip_past(body, i, "</" + tag.name);
            continue;
        }
        if (tag.name == "base") {
            if (auto h = tag.attr("href"); h && *h) base = resolve_url(page_url, html_unescape(**h));
        } else if (tag.name == "meta") {
            auto n = tag.attr("name");
            auto c = tag.attr("content");
            if (n && *n && str::iequals(**n, "pypi:repository-version") && c && *c) {
                marker = true;
                page.api_version = std::string(str::trim(html_unescape(**c)));
                if (!page.api_version.starts_with("1.") && page.api_version != "1")
                    return fail(ExitCode::BadIndexPage, "index.api_version", {{"url", page.url}, {"version", page.api_version}});
            }
        } else if (tag.name == "title" || tag.name == "h1") {
            size_t end = body.find('<', i);
            auto text = str::lower(body.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
            if (text.find("links for") != std::string::npos) marker = true;
        } else if (tag.name == "a") {
            auto href = tag.attr("href");
            if (!href || !*href || (*href)->empty()) continue;
            std::string full = resolve_url(base, html_unescape(**href));
            auto parts = split_url(full);
            IndexFile f;
            if (parts.has_fragment) {
                if (auto h = parse_hash_pair(parts.fragment)) f.hashes.insert(*h);
            }
            f.url = strip_fragment(full);
            f.filename = url_filename(f.url);
            if (!is_distribution_filename(f.filename)) {
                ++other_links;
                continue;
            }
            if (auto rp = tag.attr("data-requires-python"); rp && *rp) {
                auto v = html_unescape(**rp);
                if (!str::trim(v).empty()) f.requires_python = std::string(str::trim(v));
            }
            if (auto y = tag.attr("data-yanked")) {
                f.yanked = true;
                if (*y) f.yanked_reason = html_unescape(**y);
            }
            // PEP 714 renamed data-dist-info-metadata to data-core-metadata; either may appear.
            if (auto m = tag.attr("data-core-metadata"))
                read_metadata_attr(*m, f);
            else if (auto m2 = tag.attr("data-dist-info-metadata"))
                read_metadata_attr(*m2, f);
            if (auto t = tag.attr("data-upload-time"); t && *t) f.upload_time = html_unescape(**t);
            page.files.push_back(std::move(f));
        }
    }
    if (page.files.empty() && !marker) {
        return fail(ExitCode::BadIndexPage, other_links ? "index.html_no_dist_links" : "index.html_not_index", {{"url", page.url}});
    }
    return page;
}

}  // namespace envfix::network
