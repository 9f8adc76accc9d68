#pragma once
// URLs as indexes use them: credentials split off and redacted for every message, relative
// links resolved against the page (RFC 3986 section 5), fragments and percent-encoding.
#include <optional>
#include <string>
#include <string_view>

namespace envfix::network {

struct UrlParts {
    std::string scheme;  // lower case, "" when the URL has none
    std::string userinfo;  // raw "user:pass" (percent-encoded as written), "" when absent
    std::string host;  // lower case; IPv6 literals keep their brackets
    std::string port;  // "" when absent
    std::string path;  // as written ("" or starting with '/')
    std::string query;  // without '?' (has_query tells an empty query from none)
    std::string fragment;  // without '#'
    bool has_authority = false;
    bool has_query = false;
    bool has_fragment = false;
};

// Splits an absolute or relative reference; never fails (garbage lands in path).
UrlParts split_url(std::string_view url);
std::string join_url(const UrlParts& p);

// The URL with any "user:password@" replaced by "***@": every message, log and JSON
// document that names a URL goes through this.
std::string redact_url(std::string_view url);
// Also redacts URLs embedded in free text (an error string from a library).
std::string redact_text(std::string_view text);

struct Credentials {
    std::string user;
    std::string password;
};
// Credentials written in the URL (percent-decoded), and the URL without them.
std::optional<Credentials> url_credentials(std::string_view url);
std::string strip_credentials(std::string_view url);

// RFC 3986 reference resolution; `base` is the page's (final, after redirects) URL.
std::string resolve_url(std::string_view base, std::string_view reference);

std::string strip_fragment(std::string_view url);
std::string url_host(std::string_view url);  // lower case, without port
std::string url_scheme(std::string_view url);  // lower case
std::string percent_decode(std::string_view s);
// Encodes a path segment: unreserved characters stay, everything else (also '+') becomes %XX,
// the way the PyTorch index writes wheel file names.
std::string percent_encode_segment(std::string_view s);
// The last path segment, percent-decoded ("torch-2.7.0+cu128-....whl").
std::string url_filename(std::string_view url);
// "a" + "b" with exactly one '/' between them; keeps a trailing '/' on `b`.
std::string url_join_path(std::string_view root, std::string_view segment);
// Ensures one trailing '/' (index URLs are directories).
std::string with_trailing_slash(std::string_view url);

}  // namespace envfix::network
