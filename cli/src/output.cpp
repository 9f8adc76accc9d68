#include "output.hpp"

#include <cstdio>
#include <iostream>

#include "terminal_reporter.hpp"

namespace envfix::cli {

size_t display_width(std::string_view s) {
    size_t width = 0;
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        uint32_t cp = c;
        size_t len = 1;
        if (c >= 0xF0 && i + 3 < s.size()) { cp = ((c & 7u) << 18) | ((s[i + 1] & 63u) << 12) | ((s[i + 2] & 63u) << 6) | (s[i + 3] & 63u); len = 4; }
        else if (c >= 0xE0 && i + 2 < s.size()) { cp = ((c & 15u) << 12) | ((s[i + 1] & 63u) << 6) | (s[i + 2] & 63u); len = 3; }
        else if (c >= 0xC0 && i + 1 < s.size()) { cp = ((c & 31u) << 6) | (s[i + 1] & 63u); len = 2; }
        i += len;
        if (c == 0x1B) {  // skip ANSI escape sequences
            while (i < s.size() && !((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z'))) ++i;
            ++i;
            continue;
        }
        bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
                    (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                    (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
        width += wide ? 2 : 1;
    }
    return width;
}

std::string Table::str() const {
    std::vector<size_t> widths(headers_.size(), 0);
    for (size_t c = 0; c < headers_.size(); ++c) widths[c] = display_width(headers_[c]);
    for (const auto& r : rows_)
        for (size_t c = 0; c < r.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], display_width(r[c]));
    auto line = [&](const std::vector<std::string>& cells) {
        std::string out;
        for (size_t c = 0; c < widths.size(); ++c) {
            std::string cell = c < cells.size() ? cells[c] : "";
            out += cell;
            if (c + 1 < widths.size()) out += std::string(widths[c] - display_width(cell) + 2, ' ');
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        return out + "\n";
    };
    std::string out = line(headers_);
    std::vector<std::string> rule;
    for (size_t w : widths) rule.push_back(std::string(w, '-'));
    out += line(rule);
    for (const auto& r : rows_) out += line(r);
    return out;
}

void print(const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
}
void print(const Message& m) { print(render(m)); }
// Text from drivers and files is not always UTF-8; a bad byte must not turn output into a crash.
void print_json(const Json& j) { print(j.dump(2, ' ', false, Json::error_handler_t::replace)); }
std::string t(const Message& m) { return render(m); }

Json error_json(const Error& e) {
    return Json{{"exit_code", static_cast<int>(e.code)},
                {"name", std::string(exit_code_name(e.code))},
                {"key", e.message.key},
                {"message", render(e.message)}};
}

Json warnings_json(const Context& ctx) {
    Json out = Json::array();
    if (ctx.reporter_impl)
        for (const auto& w : ctx.reporter_impl->warnings()) out.push_back({{"key", w.key}, {"message", render(w)}});
    return out;
}

}  // namespace envfix::cli
