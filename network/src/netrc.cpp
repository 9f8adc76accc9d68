#include "envfix/network/netrc.hpp"

#include <cctype>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::network {

namespace {

struct Tokenizer {
    std::string_view s;
    size_t i = 0;

    void skip_space() {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    }
    std::optional<std::string> next() {
        skip_space();
        if (i >= s.size()) return std::nullopt;
        std::string tok;
        if (s[i] == '"') {
            ++i;
            while (i < s.size() && s[i] != '"') {
                if (s[i] == '\\' && i + 1 < s.size()) ++i;
                tok += s[i++];
            }
            if (i < s.size()) ++i;
            return tok;
        }
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) tok += s[i++];
        return tok;
    }
    // macdef bodies run to the next empty line.
    void skip_macro() {
        size_t end = s.find("\n\n", i);
        i = end == std::string_view::npos ? s.size() : end + 2;
    }
    // Comments start with '#' at a token boundary and run to the end of the line.
    bool at_comment() {
        skip_space();
        return i < s.size() && s[i] == '#';
    }
    void skip_line() {
        size_t end = s.find('\n', i);
        i = end == std::string_view::npos ? s.size() : end + 1;
    }
};

}  // namespace

std::vector<NetrcEntry> parse_netrc(std::string_view text) {
    std::vector<NetrcEntry> out;
    Tokenizer t{text};
    NetrcEntry* cur = nullptr;
    while (true) {
        if (t.at_comment()) {
            t.skip_line();
            continue;
        }
        auto tok = t.next();
        if (!tok) break;
        if (*tok == "machine") {
            auto name = t.next();
            if (!name) break;
            out.push_back({str::lower(*name), "", ""});
            cur = &out.back();
        } else if (*tok == "default") {
            out.push_back({"", "", ""});
            cur = &out.back();
        } else if (*tok == "login" || *tok == "password" || *tok == "account") {
            auto value = t.next();
            if (!value) break;
            if (!cur) continue;
            if (*tok == "login") cur->login = *value;
            if (*tok == "password") cur->password = *value;
        } else if (*tok == "macdef") {
            t.next();
            t.skip_macro();
            cur = nullptr;
        }
    }
    return out;
}

std::optional<Credentials> netrc_lookup(const std::vector<NetrcEntry>& entries, std::string_view host) {
    auto h = str::lower(host);
    const NetrcEntry* fallback = nullptr;
    for (const auto& e : entries) {
        if (e.machine == h) return Credentials{e.login, e.password};
        if (e.machine.empty() && !fallback) fallback = &e;
    }
    if (fallback) return Credentials{fallback->login, fallback->password};
    return std::nullopt;
}

std::optional<std::filesystem::path> netrc_path() {
    if (auto v = env::get(EnvVar::Netrc)) return std::filesystem::path(*v);
    auto home = fs::home_dir();
    if (!home) return std::nullopt;
    auto p = *home / ".netrc";
    std::error_code ec;
    if (platform::current_os() == platform::Os::Windows && !std::filesystem::exists(p, ec)) return *home / "_netrc";
    return p;
}

std::vector<NetrcEntry> load_netrc() {
    auto p = netrc_path();
    if (!p) return {};
    std::error_code ec;
    if (!std::filesystem::exists(*p, ec)) return {};
    auto text = fs::read_file(*p);
    if (!text) return {};
    return parse_netrc(*text);
}

}  // namespace envfix::network
