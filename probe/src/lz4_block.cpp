// LZ4 block format (lz4/doc/lz4_Block_format.md): token (literal length << 4 | match length - 4),
// optional 255-run length bytes, literals, 2-byte little-endian offset, optional match length
// bytes. Hand-written because only a prefix of each payload is needed and the format is small.
#include <algorithm>
#include <cstdint>

#include "decompress_head.hpp"

namespace envfix::probe {

namespace {
// Adds the 255-run extension of a length field; false when the input ends first.
bool extend_length(std::string_view src, size_t& i, size_t& len) {
    while (true) {
        if (i >= src.size()) return false;
        auto b = static_cast<unsigned char>(src[i++]);
        len += b;
        if (len > (size_t(1) << 31)) return false;  // a payload is far smaller; stop hostile runs
        if (b != 255) return true;
    }
}
}  // namespace

std::optional<std::string> lz4_block_head(std::string_view src, size_t want) {
    std::string out;
    out.reserve(want);
    size_t i = 0;
    while (out.size() < want) {
        if (i >= src.size()) return std::nullopt;
        const auto token = static_cast<unsigned char>(src[i++]);
        size_t lit = token >> 4;
        if (lit == 15 && !extend_length(src, i, lit)) return std::nullopt;
        if (lit > src.size() - i) return std::nullopt;
        out.append(src.substr(i, lit));
        i += lit;
        if (out.size() >= want) break;
        if (i == src.size()) return std::nullopt;  // last sequence: literals only, and too few
        if (src.size() - i < 2) return std::nullopt;
        const size_t offset = static_cast<unsigned char>(src[i]) | (static_cast<size_t>(static_cast<unsigned char>(src[i + 1])) << 8);
        i += 2;
        if (offset == 0 || offset > out.size()) return std::nullopt;
        size_t match = token & 15;
        if (match == 15 && !extend_length(src, i, match)) return std::nullopt;
        match += 4;
        // Copy byte by byte: a match may overlap the bytes it produces (offset < length).
        // Only the bytes still wanted are produced.
        const size_t from = out.size() - offset;
        const size_t n = std::min(match, want - out.size());
        for (size_t k = 0; k < n; ++k) out.push_back(out[from + k]);
    }
    out.resize(want);
    return out;
}

}  // namespace envfix::probe
