#pragma once
// A deflate decoder of its own that starts at any block boundary without knowing the 32 KiB
// before it: its output is 16-bit symbols, a byte (0-255) or "byte i of the window before the
// start" (256 + i), so one decoding replaces the two made-up-window zlib decodings (as rapidgzip
// does). Once the window is known, resolve() turns the symbols into bytes. Pure logic: memory
// in, memory out; every read and write is bounds-checked, since most places it is started at
// are not block boundaries at all.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace envfix::wheel::pinflate {

enum class MarkedStop {
    PastTarget,  // a block ended at or past the target bit
    Final,  // the last block ended
    Invalid,  // not deflate data from here (a false start, or damage)
    NeedInput,  // the input ended inside a block
    TooMuch,  // more output than allowed
};

struct MarkedResult {
    MarkedStop stop = MarkedStop::Invalid;
    uint64_t end_bit = 0;  // where decoding stopped (after the block that ended)
    size_t size = 0;  // symbols written to `out`
    bool markers = false;  // whether any output symbol came from the unknown window
};

// Decodes blocks from bit `bit` of `in[0, size)` until one ends at or past `target_bit` or the
// last one ends. `out` receives the symbols from its start: its size is room, grown when more is
// needed (never shrunk, so a buffer used again is not filled again), at most max_out symbols.
// `window_known_empty`: the stream starts at `bit` (no window to refer to). `in` must be readable
// for 8 bytes past `size` (padding).
MarkedResult decode_marked(const uint8_t* in, size_t size, uint64_t bit, uint64_t target_bit, bool window_known_empty,
                           std::vector<uint16_t>& out, size_t max_out);

// Whether a dynamic block's header at bit `bit` of `in[0, size)` (its first three bits not looked
// at) holds codes zlib accepts: HLIT and HDIST in range, a complete code-length code, literal and
// distance codes complete or of one code. Reads nothing past `size`.
bool dynamic_header_ok(const uint8_t* in, size_t size, uint64_t bit);

// The symbols as bytes, given the 32 KiB (or fewer, at the stream's start) before the start:
// `window` holds its last `window_size` bytes. False where a symbol names a byte before them.
bool resolve(const uint16_t* symbols, size_t n, const uint8_t* window, size_t window_size, uint8_t* out);

}  // namespace envfix::wheel::pinflate
