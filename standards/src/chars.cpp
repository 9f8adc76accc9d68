#include "chars.hpp"

namespace envfix::standards::chars {

size_t space_at(std::string_view s, size_t i) {
    if (i >= s.size()) return 0;
    auto b = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    unsigned c = b(0);
    if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return 1;
    if (c == 0xc2 && (b(1) == 0x85 || b(1) == 0xa0)) return 2;  // U+0085, U+00A0
    if (c == 0xe1 && b(1) == 0x9a && b(2) == 0x80) return 3;  // U+1680
    if (c == 0xe2 && b(1) == 0x80 && ((b(2) >= 0x80 && b(2) <= 0x8a) || b(2) == 0xa8 || b(2) == 0xa9 || b(2) == 0xaf))
        return 3;  // U+2000-200A, 2028, 2029, 202F
    if (c == 0xe2 && b(1) == 0x81 && b(2) == 0x9f) return 3;  // U+205F
    if (c == 0xe3 && b(1) == 0x80 && b(2) == 0x80) return 3;  // U+3000
    return 0;
}

size_t skip_space(std::string_view s, size_t i) {
    while (size_t n = space_at(s, i)) i += n;
    return i;
}

std::string_view strip_space(std::string_view s) {
    size_t b = skip_space(s, 0);
    size_t e = s.size();
    // Scan forward so multi-byte spaces are recognised; remember where trailing space starts.
    size_t i = b, last_non_space_end = b;
    while (i < s.size()) {
        if (size_t n = space_at(s, i)) {
            i += n;
        } else {
            ++i;
            last_non_space_end = i;
        }
    }
    e = last_non_space_end;
    return s.substr(b, e - b);
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = lower(c);
    return out;
}

bool iequals_at(std::string_view s, size_t i, std::string_view lower_word) {
    if (i + lower_word.size() > s.size()) return false;
    for (size_t k = 0; k < lower_word.size(); ++k)
        if (lower(s[i + k]) != lower_word[k]) return false;
    return true;
}

}  // namespace envfix::standards::chars
