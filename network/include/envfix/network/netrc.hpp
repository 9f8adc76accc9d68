#pragma once
// ~/.netrc credentials for index hosts (the file pip, uv and curl read). Parsed here rather
// than by curl so that envfix decides which host gets which credentials and none leaks into
// messages.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/network/url.hpp"

namespace envfix::network {

struct NetrcEntry {
    std::string machine;  // "" for the `default` entry
    std::string login;
    std::string password;
};

// Tokens: machine, default, login, password, account (ignored), macdef (skipped to the next
// blank line); double-quoted tokens may hold spaces. Never fails: unknown tokens are skipped.
std::vector<NetrcEntry> parse_netrc(std::string_view text);
// The entry for `host` (case-insensitive), else the default entry.
std::optional<Credentials> netrc_lookup(const std::vector<NetrcEntry>& entries, std::string_view host);

// The netrc file in use: NETRC, else ~/.netrc (~/_netrc on Windows when ~/.netrc is absent).
std::optional<std::filesystem::path> netrc_path();
// Parsed entries of netrc_path(); empty when there is no file or it cannot be read.
std::vector<NetrcEntry> load_netrc();

}  // namespace envfix::network
