#include "cubin_header.hpp"

#include "decompress_head.hpp"
#include "envfix/common/bytes.hpp"

namespace envfix::probe {

namespace {
constexpr size_t kHeadBytes = 64;  // an ELF64 header
}

std::optional<CubinTarget> cubin_target(std::string_view h) {
    if (h.size() < 0x34 || h.substr(0, 4) != "\x7f" "ELF") return std::nullopt;
    const bool is64 = h[4] == 2;
    if (bytes::le_at<uint16_t>(h, 0x12) != kElfMachineCuda) return std::nullopt;
    CubinTarget t;
    t.abi = static_cast<unsigned char>(h[8]);
    const uint32_t flags = bytes::le_at<uint32_t>(h, is64 ? 0x30 : 0x24);
    if (t.abi >= 8) {
        t.sm = static_cast<int>((flags >> 8) & 0xFF);
        if (flags & 0x8) t.variant = 'a';
    } else {
        t.sm = static_cast<int>(flags & 0xFF);
        if (flags & 0x800) t.variant = 'a';
    }
    return t;
}

std::optional<CubinTarget> entry_cubin_target(const fatbin::Entry& e) {
    if (e.flags & fatbin::kFlagZstd) {
        auto head = zstd_frame_head(e.compressed_bytes(), kHeadBytes);
        return head ? cubin_target(*head) : std::nullopt;
    }
    if (e.flags & fatbin::kFlagLz4) {
        auto head = lz4_block_head(e.compressed_bytes(), kHeadBytes);
        return head ? cubin_target(*head) : std::nullopt;
    }
    if (e.flags & fatbin::kFlagCompressedOld) return std::nullopt;
    return cubin_target(e.payload.substr(0, kHeadBytes));
}

}  // namespace envfix::probe
