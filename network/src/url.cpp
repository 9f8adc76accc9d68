#include "envfix/network/url.hpp"

#include <cctype>
#include <vector>

namespace envfix::network {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool is_scheme_char(char c, bool first) {
    if (std::isalpha(static_cast<unsigned char>(c))) return true;
    return !first && (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.');
}

// RFC 3986 5.2.4.
std::string remove_dot_segments(std::string_view in) {
    std::vector<std::string> out;
    bool absolute = !in.empty() && in.front() == '/';
    size_t i = absolute ? 1 : 0;
    bool trailing = false;
    while (i <= in.size()) {
        size_t j = in.find('/', i);
        if (j == std::string_view::npos) j = in.size();
        std::string_view seg = in.substr(i, j - i);
        bool last = j == in.size();
        if (seg == ".") {
            trailing = true;
        } else if (seg == "..") {
            if (!out.empty()) out.pop_back();
            trailing = true;
        } else {
            out.emplace_back(seg);
            trailing = false;
        }
        if (last) break;
        i = j + 1;
    }
    std::string r = absolute ? "/" : "";
    for (size_t k = 0; k < out.size(); ++k) {
        if (k) r += '/';
        r += out[k];
    }
    if (trailing && (r.empty() || r.back() != '/')) r += '/';
    return r;
}

std::string merge_paths(const UrlParts& base, std::string_view ref_path) {
    if (base.has_authority && base.path.empty()) return "/" + std::string(ref_path);
    auto slash = base.path.rfind('/');
    if (slash == std::string::npos) return std::string(ref_path);
    return base.path.substr(0, slash + 1) + std::string(ref_path);
}

int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

UrlParts split_url(std::string_view url) {
    UrlParts p;
    std::string_view rest = url;
    // scheme
    size_t colon = rest.find(':');
    if (colon != std::string_view::npos && colon > 0) {
        bool ok = true;
        for (size_t i = 0; i < colon; ++i) ok = ok && is_scheme_char(rest[i], i == 0);
        if (ok) {
            p.scheme = lower(rest.substr(0, colon));
            rest.remove_prefix(colon + 1);
        }
    }
    if (auto h = rest.find('#'); h != std::string_view::npos) {
        p.has_fragment = true;
        p.fragment = std::string(rest.substr(h + 1));
        rest = rest.substr(0, h);
    }
    if (auto q = rest.find('?'); q != std::string_view::npos) {
        p.has_query = true;
        p.query = std::string(rest.substr(q + 1));
        rest = rest.substr(0, q);
    }
    if (rest.starts_with("//")) {
        p.has_authority = true;
        rest.remove_prefix(2);
        size_t end = rest.find('/');
        std::string_view auth = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
        if (auto at = auth.rfind('@'); at != std::string_view::npos) {
            p.userinfo = std::string(auth.substr(0, at));
            auth.remove_prefix(at + 1);
        }
        size_t port_colon = std::string_view::npos;
        if (auth.starts_with("[")) {
            auto close = auth.find(']');
            if (close != std::string_view::npos && close + 1 < auth.size() && auth[close + 1] == ':') port_colon = close + 1;
        } else {
            port_colon = auth.rfind(':');
        }
        if (port_colon != std::string_view::npos) {
            p.port = std::string(auth.substr(port_colon + 1));
            auth = auth.substr(0, port_colon);
        }
        p.host = lower(auth);
    }
    p.path = std::string(rest);
    return p;
}

std::string join_url(const UrlParts& p) {
    std::string s;
    if (!p.scheme.empty()) s += p.scheme + ":";
    if (p.has_authority) {
        s += "//";
        if (!p.userinfo.empty()) s += p.userinfo + "@";
        s += p.host;
        if (!p.port.empty()) s += ":" + p.port;
    }
    s += p.path;
    if (p.has_query) s += "?" + p.query;
    if (p.has_fragment) s += "#" + p.fragment;
    return s;
}

std::string redact_url(std::string_view url) {
    auto p = split_url(url);
    if (p.userinfo.empty()) return std::string(url);
    p.userinfo = "***";
    return join_url(p);
}

std::string redact_text(std::string_view text) {
    // Any "scheme://userinfo@" in the text loses its userinfo.
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        size_t sep = text.find("://", i);
        if (sep == std::string_view::npos) break;
        size_t auth_begin = sep + 3;
        size_t auth_end = auth_begin;
        while (auth_end < text.size() && text[auth_end] != '/' && text[auth_end] != ' ' && text[auth_end] != '\'' &&
               text[auth_end] != '"' && text[auth_end] != '\n' && text[auth_end] != '?' && text[auth_end] != '#')
            ++auth_end;
        auto at = text.substr(auth_begin, auth_end - auth_begin).rfind('@');
        out.append(text.substr(i, auth_begin - i));
        if (at != std::string_view::npos) {
            out += "***";
            out.append(text.substr(auth_begin + at, auth_end - auth_begin - at));
        } else {
            out.append(text.substr(auth_begin, auth_end - auth_begin));
        }
        i = auth_end;
    }
    out.append(text.substr(std::min(i, text.size())));
    return out;
}

std::optional<Credentials> url_credentials(std::string_view url) {
    auto p = split_url(url);
    if (p.userinfo.empty()) return std::nullopt;
    Credentials c;
    auto colon = p.userinfo.find(':');
    c.user = percent_decode(p.userinfo.substr(0, colon));
    if (colon != std::string::npos) c.password = percent_decode(p.userinfo.substr(colon + 1));
    return c;
}

std::string strip_credentials(std::string_view url) {
    auto p = split_url(url);
    if (p.userinfo.empty()) return std::string(url);
    p.userinfo.clear();
    return join_url(p);
}

std::string resolve_url(std::string_view base_url, std::string_view reference) {
    auto r = split_url(reference);
    auto b = split_url(base_url);
    UrlParts t;
    if (!r.scheme.empty()) {
        t = r;
        t.path = remove_dot_segments(r.path);
    } else {
        if (r.has_authority) {
            t = r;
            t.path = remove_dot_segments(r.path);
        } else {
            if (r.path.empty()) {
                t.path = b.path;
                t.has_query = r.has_query || b.has_query;
                t.query = r.has_query ? r.query : b.query;
            } else {
                t.path = r.path.front() == '/' ? remove_dot_segments(r.path) : remove_dot_segments(merge_paths(b, r.path));
                t.has_query = r.has_query;
                t.query = r.query;
            }
            t.has_authority = b.has_authority;
            t.userinfo = b.userinfo;
            t.host = b.host;
            t.port = b.port;
        }
        t.scheme = b.scheme;
    }
    t.has_fragment = r.has_fragment;
    t.fragment = r.fragment;
    return join_url(t);
}

std::string strip_fragment(std::string_view url) {
    auto h = url.find('#');
    return std::string(url.substr(0, h));
}

std::string url_host(std::string_view url) { return split_url(url).host; }
std::string url_scheme(std::string_view url) { return split_url(url).scheme; }

std::string percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out += static_cast<char>(hi * 16 + lo);
                i += 2;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

std::string percent_encode_segment(std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string url_filename(std::string_view url) {
    auto p = split_url(url);
    auto slash = p.path.rfind('/');
    return percent_decode(slash == std::string::npos ? p.path : p.path.substr(slash + 1));
}

std::string url_join_path(std::string_view root, std::string_view segment) {
    std::string r(root);
    while (!r.empty() && r.back() == '/') r.pop_back();
    while (!segment.empty() && segment.front() == '/') segment.remove_prefix(1);
    return r + "/" + std::string(segment);
}

std::string with_trailing_slash(std::string_view url) {
    std::string r(url);
    if (r.empty() || r.back() != '/') r += '/';
    return r;
}

}  // namespace envfix::network
