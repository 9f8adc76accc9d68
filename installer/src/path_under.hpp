#pragma once
// Whether a lexically normal path lies under a folder, by a string prefix that ends at a
// separator: the removal and move plans ask it for every file of a torch stack, where
// lexically_relative's walk over components cost most of their time.
#include <filesystem>
#include <string_view>

namespace envfix::installer {

// Both lexically normal. `or_equal`: the folder itself counts as under it.
inline bool path_under(const std::filesystem::path& p, const std::filesystem::path& dir, bool or_equal) {
    constexpr auto sep = std::filesystem::path::preferred_separator;
    std::basic_string_view<std::filesystem::path::value_type> s = p.native(), d = dir.native();
    while (d.size() > 1 && d.back() == sep) d.remove_suffix(1);
    if (d.empty() || s.size() < d.size() || s.substr(0, d.size()) != d) return false;
    if (s.size() == d.size()) return or_equal;
    return d.back() == sep || s[d.size()] == sep;
}

}  // namespace envfix::installer
