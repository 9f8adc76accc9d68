#pragma once
// Character classes of the Python regular expressions the packaging standards are written in,
// on UTF-8 bytes. Private to the resolver.
#include <cstddef>
#include <string>
#include <string_view>

namespace envfix::standards::chars {

inline bool digit(char c) { return c >= '0' && c <= '9'; }
inline bool lower_alpha(char c) { return c >= 'a' && c <= 'z'; }
inline bool alpha(char c) { return lower_alpha(c) || (c >= 'A' && c <= 'Z'); }
inline bool alnum(char c) { return alpha(c) || digit(c); }
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
// PEP 440 separators between version parts.
inline bool separator(char c) { return c == '.' || c == '_' || c == '-'; }

// Python's \w: ASCII letters, digits and "_"; every non-ASCII byte counts as part of a word
// (letters are what appears in practice; Python decides per code point).
inline bool word(char c) { return alnum(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }

// Length in bytes of the Python whitespace character (str.isspace(), re's \s) at s[i], 0 if none.
size_t space_at(std::string_view s, size_t i);
size_t skip_space(std::string_view s, size_t i);  // first index at or after i that is not space
std::string_view strip_space(std::string_view s);  // Python's str.strip()
std::string lower(std::string_view s);  // ASCII lower-case
bool iequals_at(std::string_view s, size_t i, std::string_view lower_word);

}  // namespace envfix::standards::chars
