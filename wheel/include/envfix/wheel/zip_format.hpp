#pragma once
// Little-endian field readers and shared rules of the ZIP reader (zip.hpp), shared with the
// installer's readers of entries.
#include <cstdint>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"

namespace envfix::wheel::zipfmt {

// Out-of-range reads give 0, which no signature or check accepts (written so that an offset
// near SIZE_MAX, read from a damaged archive, cannot wrap around into range).
inline uint16_t u16(std::string_view s, size_t p) {
    if (p > s.size() || s.size() - p < 2) return 0;
    return static_cast<uint16_t>(static_cast<unsigned char>(s[p]) | static_cast<unsigned char>(s[p + 1]) << 8);
}
inline uint32_t u32(std::string_view s, size_t p) {
    if (p > s.size() || s.size() - p < 4) return 0;
    return static_cast<uint32_t>(u16(s, p)) | static_cast<uint32_t>(u16(s, p + 2)) << 16;
}
inline uint64_t u64(std::string_view s, size_t p) {
    if (p > s.size() || s.size() - p < 8) return 0;
    return static_cast<uint64_t>(u32(s, p)) | static_cast<uint64_t>(u32(s, p + 4)) << 32;
}

// A local header: its signature, and its size before the name and the extra field.
constexpr uint32_t kLocalSig = 0x04034b50;
constexpr size_t kLocalSize = 30;

// Stored and deflate are read by envfix itself (ISA-L or zlib, libdeflate); bzip2 (12), LZMA (14), zstd (93) and
// xz (95), which Python's zipfile or uv also read, go through libarchive.
inline bool method_builtin(uint16_t m) { return m == 0 || m == 8; }
inline bool method_known(uint16_t m) { return method_builtin(m) || m == 12 || m == 14 || m == 93 || m == 95; }

Unexpected<Error> malformed(std::string_view source, std::string reason);

}  // namespace envfix::wheel::zipfmt
