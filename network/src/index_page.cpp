// Shared pieces of the page parsers and the choice between them.
#include <cctype>

#include "envfix/common/strings.hpp"
#include "envfix/network/index_page.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network {

namespace {

void append_utf8(std::string& out, unsigned long cp) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0) cp = 0xFFFD;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace

std::string html_unescape(std::string_view s) {
    static const std::pair<std::string_view, std::string_view> named[] = {{"amp", "&"},   {"lt", "<"},   {"gt", ">"},
                                                                          {"quot", "\""}, {"apos", "'"}, {"nbsp", "\xC2\xA0"}};
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '&') {
            out += s[i];
            continue;
        }
        size_t semi = s.find(';', i);
        if (semi == std::string_view::npos || semi - i > 12) {
            out += s[i];
            continue;
        }
        std::string_view ent = s.substr(i + 1, semi - i - 1);
        if (ent.size() > 1 && ent[0] == '#') {
            bool hex = ent[1] == 'x' || ent[1] == 'X';
            std::string_view digits = ent.substr(hex ? 2 : 1);
            unsigned long cp = 0;
            bool ok = !digits.empty();
            for (char c : digits) {
                int v = std::isdigit(static_cast<unsigned char>(c))           ? c - '0'
                        : hex && std::isxdigit(static_cast<unsigned char>(c)) ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                                                                              : -1;
                if (v < 0) {
                    ok = false;
                    break;
                }
                cp = cp * (hex ? 16 : 10) + static_cast<unsigned long>(v);
                if (cp > 0x10FFFF) cp = 0x110000;
            }
            if (ok) {
                append_utf8(out, cp);
                i = semi;
                continue;
            }
        } else {
            bool found = false;
            for (auto [name, value] : named) {
                if (ent == name) {
                    out += value;
                    found = true;
                    break;
                }
            }
            if (found) {
                i = semi;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

bool is_distribution_filename(std::string_view f) {
    static const std::string_view exts[] = {".whl", ".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz", ".tar", ".egg", ".exe", ".msi"};
    auto lower = str::lower(f);
    for (auto e : exts)
        if (lower.size() > e.size() && lower.ends_with(e)) return true;
    return false;
}

std::optional<std::pair<std::string, std::string>> parse_hash_pair(std::string_view s) {
    auto eq = s.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 >= s.size()) return std::nullopt;
    auto name = str::lower(str::trim(s.substr(0, eq)));
    auto value = str::lower(str::trim(s.substr(eq + 1)));
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return std::nullopt;
    for (char c : value)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    if (value.empty()) return std::nullopt;
    return std::pair{name, value};
}

Expected<ProjectPage> parse_project_page(std::string_view body, std::string_view content_type, std::string_view page_url) {
    auto ct = str::lower(str::trim(content_type.substr(0, content_type.find(';'))));
    if (ct == "application/vnd.pypi.simple.v1+json") return parse_json_project_page(body, page_url);
    if (ct == "text/html" || ct == "application/vnd.pypi.simple.v1+html" || ct == "application/xhtml+xml")
        return parse_html_project_page(body, page_url);
    // A page served without any type (file servers, some static mirrors) is read when it looks
    // like HTML; a declared other type is refused, as pip refuses it.
    if (ct.empty()) {
        auto head = str::lower(body.substr(0, 512));
        if (head.find("<html") != std::string::npos || head.find("<!doctype html") != std::string::npos ||
            head.find("<a ") != std::string::npos)
            return parse_html_project_page(body, page_url);
    }
    return fail(ExitCode::BadIndexPage, "index.content_type",
                {{"url", redact_url(page_url)}, {"content_type", ct.empty() ? std::string("no content type") : ct}});
}

}  // namespace envfix::network
