#pragma once
// Whether a lexically normal path lies under a folder, by a string prefix that ends at a
// separator: the removal and move plans ask it for every file of a torch stack, where
// lexically_relative's walk over components cost most of their time.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <type_traits>

namespace envfix::installer {

// Both lexically normal, as native text. `or_equal`: the folder itself counts as under it.
inline bool text_under(std::basic_string_view<std::filesystem::path::value_type> s,
                       std::basic_string_view<std::filesystem::path::value_type> d, bool or_equal) {
    constexpr auto sep = std::filesystem::path::preferred_separator;
    while (d.size() > 1 && d.back() == sep) d.remove_suffix(1);
    if (d.empty() || s.size() < d.size() || s.substr(0, d.size()) != d) return false;
    if (s.size() == d.size()) return or_equal;
    return d.back() == sep || s[d.size()] == sep;
}
inline bool path_under(const std::filesystem::path& p, const std::filesystem::path& dir, bool or_equal) {
    return text_under(p.native(), dir.native(), or_equal);
}

// No "." or ".." part, no doubled separator, not ending in a separator: lexically_normal would
// return it unchanged (POSIX separators only; Windows paths are always normalised).
// Only a '/' followed by '/' or '.' (or a '.' first) can begin such a part: those are found 8
// bytes at a time and each checked. A test per character was 70 % of planning a warm install's
// moves (17 000 paths of about 100 characters); a find per part, a memchr call each, worse.
namespace detail {
inline uint64_t bytes_equal(uint64_t word, char c) {  // the high bit of each byte equal to c
    constexpr uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL;
    const uint64_t t = word ^ (0x0101010101010101ULL * static_cast<unsigned char>(c));
    return ~(((t & low7) + low7) | t | low7);
}
// A part begins at i: whether it is empty, "." or "..".
inline bool dots_part_at(std::string_view s, size_t i) {
    if (s[i] == '/') return true;
    if (s[i] != '.') return false;
    const size_t end = i + 1 < s.size() && s[i + 1] == '.' ? i + 2 : i + 1;
    return end == s.size() || s[end] == '/';
}
}  // namespace detail
inline bool plainly_normal(std::string_view s) {
    if (s.empty() || s.back() == '/') return false;
    if (s[0] == '.' && detail::dots_part_at(s, 0)) return false;
    const size_t n = s.size();
    size_t i = 0;
    for (; i + 9 <= n; i += 8) {
        uint64_t here, next;
        std::memcpy(&here, s.data() + i, 8);
        std::memcpy(&next, s.data() + i + 1, 8);
        if (!(detail::bytes_equal(here, '/') & (detail::bytes_equal(next, '/') | detail::bytes_equal(next, '.')))) continue;
        for (size_t k = i; k < i + 8; ++k)
            if (s[k] == '/' && detail::dots_part_at(s, k + 1)) return false;
    }
    for (; i + 1 < n; ++i)
        if (s[i] == '/' && detail::dots_part_at(s, i + 1)) return false;
    return true;
}

// Whether a native path string ends with an ASCII suffix (".py"): for char and wchar_t strings.
template <class Str>
bool ends_with_ascii(const Str& s, std::string_view suffix) {
    if (s.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i)
        if (s[s.size() - suffix.size() + i] != static_cast<typename Str::value_type>(suffix[i])) return false;
    return true;
}

// A path plainly normal (POSIX; false on Windows, whose paths are always normalised).
template <class Path = std::filesystem::path>
bool plainly_normal_path(const Path& p) {
    if constexpr (Path::preferred_separator == '/') return plainly_normal(p.native());
    else return false;
}

// A native path string itself when it is plainly normal, else its lexically normal form kept in
// `scratch`: no copy for the 17 000 paths of an install, which are all normal.
template <class Str = std::filesystem::path::string_type>
const Str& normal_text(const Str& s, Str& scratch) {
    if constexpr (std::filesystem::path::preferred_separator == '/') {
        if (plainly_normal(s)) return s;
    }
    scratch = std::filesystem::path(s).lexically_normal().native();
    return scratch;
}

// lexically_normal without its cost for the paths that are normal already (every path of an
// install: a plan joins normal folders and RECORD rows).
template <class Path = std::filesystem::path>
Path normal_path(const Path& p) {
    if constexpr (Path::preferred_separator == '/') {
        if (plainly_normal(p.native())) return p;
    }
    return p.lexically_normal();
}

// `dir` joined with a '/'-separated relative path, as native text: on POSIX one string, as every
// planned, staged and cached file asks for one (`operator/` splits and copies part by part).
// The same as `dir / rel` (no second '/' after a folder ending in one; an empty `dir` adds none).
// (The work in a template, so the branch of the other platform is never instantiated: Windows
// paths are wide.)
template <class Path>
typename Path::string_type join_generic_text_as(const Path& dir, const std::string& rel) {
    if constexpr (Path::preferred_separator == '/') {
        const auto& d = dir.native();
        if (d.empty()) return rel;
        std::string s;
        s.reserve(d.size() + 1 + rel.size());
        s += d;
        if (d.back() != '/') s += '/';
        s += rel;
        return s;
    } else {
        return (dir / Path(rel)).native();
    }
}
inline std::filesystem::path::string_type join_generic_text(const std::filesystem::path& dir, const std::string& rel) {
    return join_generic_text_as(dir, rel);
}
inline std::filesystem::path join_generic(const std::filesystem::path& dir, const std::string& rel) {
    return std::filesystem::path(join_generic_text(dir, rel));
}

// A native path string as '/'-separated text (POSIX: itself; a template, so Windows' wide branch
// is only instantiated there).
template <class Str>
std::string generic_of(const Str& native) {
    if constexpr (std::is_same_v<typename Str::value_type, char>) return native;
    else return std::filesystem::path(native).generic_string();
}

// `p` (native text) relative to `dir`, '/'-separated, when `p` lies strictly under it (both
// lexically normal), else "": lexically_relative's walk over components without its cost.
template <class Path = std::filesystem::path>
std::string relative_generic_text(const typename Path::string_type& p, const Path& dir) {
    if (!text_under(p, dir.native(), false)) return {};
    const auto& d = dir.native();
    auto rel = p.substr(d.size() + (d.back() == Path::preferred_separator ? 0 : 1));
    if constexpr (Path::preferred_separator == '/') return rel;
    else return Path(rel).generic_string();
}

}  // namespace envfix::installer
