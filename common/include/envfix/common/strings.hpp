#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envfix::str {

std::string_view trim(std::string_view s);
std::string lower(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
std::vector<std::string> split_copy(std::string_view s, char sep);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
bool iequals(std::string_view a, std::string_view b);
std::optional<long long> to_int(std::string_view s);
std::string replace_all(std::string s, std::string_view from, std::string_view to);
// "1.5 GiB", "12.0 MiB", "512 B"
std::string human_bytes(uint64_t n);
// "1048576", "512K", "64M", "8G" (powers of 1024, case-insensitive): bytes; nullopt otherwise.
std::optional<uint64_t> parse_size(std::string_view s);

}  // namespace envfix::str
