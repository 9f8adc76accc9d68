#pragma once
// One deflate stream inflated on several threads: a switch's largest library while its wheel
// downloads (unpack_early.cpp; docs/inflate-parallel.md: on the GPU machine 8 workers inflate
// libtorch_cpu.so at 720 MB/s, against ISA-L's 388 MB/s on one thread).
//
// The stream is cut into chunks of compressed bytes; a worker finds where a block starts in its
// chunk (by the header's own rules, then by decoding from there) and decodes on with the decoder
// of marked_decoder.hpp, whose output names the bytes of the window it does not know yet (as
// rapidgzip does). The caller's thread takes the chunks in order: a chunk is taken only where the
// output before it ended at the block boundary it started from (so the boundary is a real one;
// for a stored block, anywhere in its zero header and padding); the caller fills in its last
// 32 KiB from the window before it (the next chunk's window), a worker the rest, and the chunks go
// out in order as they are filled in; anything else (no boundary found, a false one, more output than a chunk
// holds) is decoded again in order from where the taken output ends, by zlib, which alone starts
// at a bit offset with a given window (inflatePrime, inflateSetDictionary) and stops at block ends
// (Z_BLOCK). Whatever the chunks did, the output is the stream's as one decoder gives it; the zip
// entry's CRC-32 and the RECORD's SHA-256 check it as for any entry.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"

namespace envfix::wheel::pinflate {

// Up to n bytes of the compressed stream at `offset` (from its first byte); fewer only at its end.
// Called from several threads at once.
using ReadAt = std::function<Expected<size_t>(uint64_t offset, char* into, size_t n)>;
// The stream's output, in order, from the caller's thread.
using Emit = std::function<Expected<void>(std::string_view)>;
// The error for damaged deflate data, given what is wrong.
using Corrupt = std::function<Error(std::string what)>;

struct Options {
    unsigned threads = 2;  // workers decoding chunks ahead of the caller's thread
    size_t chunk = 512u << 10;  // compressed bytes per chunk (its output is held as 16-bit symbols)
    size_t ahead = 0;  // chunks decoded and not yet taken, at most (0: threads + 1)
    // Where the output begins: a block boundary `from_bit` bits into the stream, `window` the
    // stream's last 32 KiB of output before it (all of it where there was less). The stream taken
    // over from a decoder on one thread (stream_zip_entry_handing_over); 0: from its start.
    uint64_t from_bit = 0;
    std::string_view window;
};

struct Stats {
    size_t chunks = 0;  // the stream's chunks
    size_t taken = 0;  // decoded by a worker and taken
    size_t redone = 0;  // decoded again in order (no boundary found in it, or a false one)
};

// The stream of `size` compressed bytes inflated to `emit`. Errors: the reader's, emit's, or
// corrupt(...) for data that is not one whole deflate stream of exactly `size` bytes. Throws
// std::system_error where its workers cannot be started, before anything is emitted.
Expected<Stats> inflate(uint64_t size, const ReadAt& read, const Emit& emit, const Corrupt& corrupt, const Options& options);

// Whether a block that is not the last can start at bit `bit` of `in` by the rules of its header:
// a stored block (zero padding, LEN and NLEN that agree) or a dynamic one (HLIT and HDIST in
// range, a complete code-length code). Fixed-code blocks are not looked for. Exposed for tests.
bool may_start_block(std::string_view in, uint64_t bit);

}  // namespace envfix::wheel::pinflate
