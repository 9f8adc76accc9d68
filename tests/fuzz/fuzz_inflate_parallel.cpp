// The parallel inflater (wheel/src/inflate_parallel.hpp) against zlib, byte for byte: it
// decodes bytes from the network, so whatever zlib makes of a stream, it makes the same or
// refuses what zlib refuses (docs/inflate-parallel.md, docs/fuzzing.md).
//
// Input: 4 bytes of settings, then data. Settings pick the workers (1-3), the chunk size (every
// size from the 64 KiB floor, so chunk boundaries fall everywhere) and one of two modes:
// - a real stream: the data, stretched to 200-600 KiB of library-like bytes seeded by it (noise,
//   near and far repeats, runs), deflated by zlib at a level and strategy the settings pick, with
//   full flushes (stored blocks, byte-aligned boundaries) every so many bytes;
//   some of them then damaged (a byte flipped) or cut short;
// - a stream of the data itself, as bytes off the wire: damaged, cut short or not deflate at all.
// Either way zlib's raw inflate of the whole stream is the reference: where it ends the stream
// exactly at its last byte, the parallel output must be its output; where it fails, so must the
// parallel inflater.
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "envfix/common/error.hpp"
#include "fuzz_check.hpp"
#include "inflate_parallel.hpp"

using namespace envfix;
using namespace envfix::wheel;

namespace {

std::string stretched(std::string_view seed, size_t size) {
    std::seed_seq seq(seed.begin(), seed.end());
    std::mt19937 rng(seq);
    std::string s;
    s.reserve(size);
    size_t at = 0;
    while (s.size() < size) {
        switch (rng() % 4) {
            case 0:
                for (int i = 0; i < 1500; ++i) s.push_back(static_cast<char>(rng()));
                break;
            case 1:
                if (s.size() > 64) {
                    const size_t back = 1 + rng() % std::min<size_t>(s.size(), 40000), len = 3 + rng() % 300;
                    for (size_t i = 0; i < len; ++i) s.push_back(s[s.size() - back]);
                }
                break;
            case 2:
                if (!seed.empty()) s.append(seed.substr(at % seed.size()));
                at += 7;
                break;
            default:
                s.append(1 + rng() % 2000, static_cast<char>(rng()));
        }
    }
    s.resize(size);
    return s;
}

std::string deflate_raw(const std::string& in, int level, int strategy, size_t flush_every) {
    z_stream z{};
    deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, strategy);
    std::string out(deflateBound(&z, in.size()) + in.size() / 64 + 1024, '\0');
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    size_t at = 0;
    while (at < in.size()) {
        const size_t n = flush_every ? std::min(flush_every, in.size() - at) : in.size() - at;
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + at));
        z.avail_in = static_cast<uInt>(n);
        at += n;
        deflate(&z, at == in.size() ? Z_FINISH : Z_FULL_FLUSH);
    }
    if (in.empty()) deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// zlib's verdict: the output where the stream ends exactly at its last byte, else nothing.
bool zlib_inflate(std::string_view in, std::string& out) {
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return false;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK && out.size() < (64u << 20)) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
        if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // cut short
    }
    const bool whole = rc == Z_STREAM_END && z.avail_in == 0;
    inflateEnd(&z);
    return whole;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 4) return 0;
    const uint8_t mode = data[0], a = data[1], b = data[2], c = data[3];
    const std::string_view rest(reinterpret_cast<const char*>(data) + 4, size - 4);
    std::string stream;
    if (mode & 1) {
        const std::string plain = stretched(rest, (200u << 10) + (size_t{c} << 11));
        static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED};
        const size_t flush_every = (mode & 2) ? (size_t{1} + b) << 10 : 0;
        stream = deflate_raw(plain, a % 10, strategies[(a / 10) % 5], flush_every);
        // Damaged on the way, past the first chunk as often as not: a byte flipped, or cut short.
        if ((mode & 0x60) == 0x20 && !stream.empty()) stream[(size_t{b} << 11 | c) % stream.size()] ^= static_cast<char>(1 + (a & 0x7f));
        if ((mode & 0x60) == 0x40) stream.resize(stream.size() * (size_t{128} + c) / 512);
    } else {
        stream.assign(rest);
    }
    std::string expected;
    const bool whole = zlib_inflate(stream, expected);

    wheel::pinflate::ReadAt read = [&](uint64_t off, char* into, size_t n) -> Expected<size_t> {
        if (off >= stream.size()) return size_t{0};
        n = std::min<size_t>(n, stream.size() - off);
        std::memcpy(into, stream.data() + off, n);
        return n;
    };
    std::string got;
    wheel::pinflate::Emit emit = [&](std::string_view s) -> Expected<void> {
        got.append(s);
        if (got.size() > (64u << 20)) return fail(ExitCode::BadWheel, "zip.data_mismatch", {{"what", "too much output"}});
        return {};
    };
    wheel::pinflate::Corrupt corrupt = [](std::string what) {
        return make_error(ExitCode::BadWheel, "zip.data_mismatch", {{"what", what}});
    };
    wheel::pinflate::Options o;
    o.threads = 1 + (mode >> 2) % 3;
    o.chunk = (size_t{64} << 10) + (size_t{b} << 9) + c;
    auto r = wheel::pinflate::inflate(stream.size(), read, emit, corrupt, o);
    if (whole && expected.size() <= (64u << 20)) {
        FUZZ_CHECK(r.has_value(), "zlib inflated the stream whole; the parallel inflater refused it");
        FUZZ_CHECK(got == expected, "the parallel output differs from zlib's");
    } else if (!whole) {
        FUZZ_CHECK(!r.has_value(), "zlib refused the stream; the parallel inflater gave output");
    }
    return 0;
}
