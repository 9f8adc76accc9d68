#pragma once
// The first bytes of a compressed fatbin payload, enough to read a cubin's ELF header.
// Pure: bytes in, bytes out; nullopt when the input is malformed or ends first.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace envfix::probe {

// LZ4 raw block (lz4 block format, no frame): decodes sequences until `want` bytes exist.
std::optional<std::string> lz4_block_head(std::string_view src, size_t want);

// Zstandard frame (libzstd streaming decoder, stopped after `want` bytes).
std::optional<std::string> zstd_frame_head(std::string_view src, size_t want);

}  // namespace envfix::probe
