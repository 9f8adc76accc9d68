#pragma once
// Bounds-checked little-endian reads from untrusted bytes (ELF, PE, fatbin headers, zip
// records). Every read says whether it fit, so a truncated or hostile file yields "no value",
// never a read past the end.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace envfix::bytes {

// True when [off, off + len) lies inside a buffer of `size` bytes (no overflow).
inline bool fits(uint64_t size, uint64_t off, uint64_t len) { return off <= size && len <= size - off; }

template <class T>
std::optional<T> read_le(std::string_view b, uint64_t off) {
    if (!fits(b.size(), off, sizeof(T))) return std::nullopt;
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(static_cast<unsigned char>(b[off + i])) << (8 * i));
    return v;
}
inline std::optional<uint16_t> u16(std::string_view b, uint64_t off) { return read_le<uint16_t>(b, off); }
inline std::optional<uint32_t> u32(std::string_view b, uint64_t off) { return read_le<uint32_t>(b, off); }
inline std::optional<uint64_t> u64(std::string_view b, uint64_t off) { return read_le<uint64_t>(b, off); }

// Unchecked reads for code that has already checked the range with fits().
template <class T>
T le_at(std::string_view b, uint64_t off) {
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(static_cast<unsigned char>(b[off + i])) << (8 * i));
    return v;
}

// Appends the low `n` bytes of `v` to `out`, little-endian: the writing side of the reads above.
inline void put_le(std::string& out, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// The sub-view [off, off + len), or nullopt when it does not fit.
inline std::optional<std::string_view> slice(std::string_view b, uint64_t off, uint64_t len) {
    if (!fits(b.size(), off, len)) return std::nullopt;
    return b.substr(static_cast<size_t>(off), static_cast<size_t>(len));
}

// NUL-terminated string starting at `off`, at most `max` bytes.
inline std::string_view cstr(std::string_view b, uint64_t off, size_t max = 256) {
    if (off >= b.size()) return {};
    auto rest = b.substr(static_cast<size_t>(off), max);
    auto nul = rest.find('\0');
    return nul == std::string_view::npos ? rest : rest.substr(0, nul);
}

}  // namespace envfix::bytes
