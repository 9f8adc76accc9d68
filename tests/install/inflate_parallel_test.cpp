// One deflate stream inflated on several threads (wheel/src/inflate_parallel.hpp, used for a
// switch's largest libraries; docs/inflate-parallel.md): the output is the stream's, byte for byte, whatever zlib level,
// data and chunk size made the chunks start; damaged or short data is refused as one decoder
// refuses it. And a stream on one thread taken over by workers at a block boundary
// (stream_zip_entry_handing_over).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <random>
#include <string>
#include <vector>

#include "envfix/common/exit_codes.hpp"
#include "envfix/common/message.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/wheel/zip_read.hpp"
#include "inflate_parallel.hpp"
#include "marked_decoder.hpp"
#include "unpack_early.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::installer;
using namespace envfix::wheel;

namespace {

std::string deflated(const std::string& data, int level, int strategy = Z_DEFAULT_STRATEGY, size_t flush_every = 0) {
    return test::deflate_raw(data, {.level = level, .strategy = strategy, .flush_every = flush_every});
}

// Bytes shaped like a shared library's: runs of code-like bytes with repeats near and far, some
// text, some noise (which deflate leaves as literals or stores).
std::string library_like(size_t size, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s;
    s.reserve(size);
    while (s.size() < size) {
        switch (rng() % 4) {
        case 0:  // noise
            for (int i = 0; i < 2000; ++i) s.push_back(static_cast<char>(rng()));
            break;
        case 1:  // a repeat from up to 40 KiB back (some past the window)
            if (s.size() > 100) {
                size_t back = 1 + rng() % std::min<size_t>(s.size(), 40000), len = 3 + rng() % 300;
                for (size_t i = 0; i < len; ++i) s.push_back(s[s.size() - back]);
            }
            break;
        case 2:  // text
            s += "torch::autograd::generated::";
            s += std::to_string(rng());
            break;
        default:  // low-entropy bytes (4 bits each)
            for (int i = 0; i < 3000; ++i) s.push_back(static_cast<char>("\x00\x48\x89\xe5\x0f\x1f\x44\x8b\x24\xc3\xff\x01\x10\x90\x74\x31"[rng() % 16]));
        }
    }
    s.resize(size);
    return s;
}

struct Got {
    std::string out;
    wheel::pinflate::Stats stats;
    std::optional<Error> error;
};

Got run(const std::string& compressed, unsigned threads, size_t chunk, uint64_t size = ~uint64_t{0}, uint64_t from_bit = 0,
        std::string_view window = {}) {
    Got g;
    if (size == ~uint64_t{0}) size = compressed.size();
    wheel::pinflate::ReadAt read = [&](uint64_t off, char* into, size_t n) -> Expected<size_t> {
        if (off >= compressed.size()) return size_t{0};
        n = std::min<size_t>(n, compressed.size() - off);
        std::memcpy(into, compressed.data() + off, n);
        return n;
    };
    wheel::pinflate::Emit emit = [&](std::string_view s) -> Expected<void> {
        g.out.append(s);
        return {};
    };
    wheel::pinflate::Corrupt corrupt = [](std::string what) {
        return make_error(ExitCode::BadWheel, "zip.data_mismatch", {{"what", what}});
    };
    auto r =
        wheel::pinflate::inflate(size, read, emit, corrupt, {.threads = threads, .chunk = chunk, .from_bit = from_bit, .window = window});
    if (r) g.stats = *r;
    else g.error = r.error();
    return g;
}

}  // namespace

TEST(InflateParallel, GivesTheStreamsBytesWhateverTheLevelAndChunks) {
    const std::string data = library_like(6u << 20, 1);
    for (int level : {1, 6, 9}) {
        const std::string c = deflated(data, level);
        for (size_t chunk : {size_t{64} << 10, size_t{300} << 10, size_t{1} << 20})
            for (unsigned threads : {1u, 3u}) {
                auto g = run(c, threads, chunk);
                ASSERT_FALSE(g.error) << level << "/" << chunk << ": " << render(g.error->message, Lang::En);
                ASSERT_EQ(g.out.size(), data.size()) << level << "/" << chunk;
                ASSERT_TRUE(g.out == data) << level << "/" << chunk;
                EXPECT_EQ(g.stats.taken + g.stats.redone, g.stats.chunks);
                // Most chunks are taken: boundaries are found and the window is filled in.
                EXPECT_GE(g.stats.taken * 10, g.stats.chunks * 8) << level << "/" << chunk << ": " << g.stats.taken << " of " << g.stats.chunks;
            }
    }
}

TEST(InflateParallel, StoredBlocksFlushesAndLongRunsAreTheSame) {
    std::mt19937 rng(7);
    std::string noise(3u << 20, '\0');
    for (auto& ch : noise) ch = static_cast<char>(rng());
    std::string zeros(4u << 20, '\0');  // copies of copies of the window's last byte, for megabytes
    std::string mixed = library_like(2u << 20, 2) + zeros + noise.substr(0, 1u << 20) + library_like(1u << 20, 3);
    struct Case {
        const char* what;
        std::string data;
        int level, strategy;
        size_t flush;
    } cases[] = {
        {"noise, stored", noise, 0, Z_DEFAULT_STRATEGY, 0},
        {"noise, level 1", noise, 1, Z_DEFAULT_STRATEGY, 0},
        {"zeros", zeros, 6, Z_DEFAULT_STRATEGY, 0},
        {"mixed", mixed, 6, Z_DEFAULT_STRATEGY, 0},
        {"mixed, full flushes", mixed, 6, Z_DEFAULT_STRATEGY, 100000},
        {"mixed, fixed codes", mixed, 6, Z_FIXED, 0},
        {"mixed, huffman only", mixed, 6, Z_HUFFMAN_ONLY, 0},
        {"mixed, rle", mixed, 6, Z_RLE, 0},
    };
    for (const auto& k : cases) {
        const std::string c = deflated(k.data, k.level, k.strategy, k.flush);
        auto g = run(c, 3, 128u << 10);
        ASSERT_FALSE(g.error) << k.what << ": " << render(g.error->message, Lang::En);
        ASSERT_TRUE(g.out == k.data) << k.what;
    }
}

TEST(InflateParallel, ChunksOfWellCompressedDataAreTakenNotDecodedAgain) {
    // A 10 KB unit repeated with 40 bytes changed each time: each 64 KiB chunk gives some 3 Mi
    // symbols (checked below: between the old cap and the new one). Chunks were held to 2 Mi before, and all of these were decoded again in
    // order on the caller's thread while the workers waited (in libLLVM at level 1, a quarter).
    std::mt19937 rng(5);
    std::string unit(10000, '\0');
    for (auto& ch : unit) ch = static_cast<char>(rng());
    std::string data;
    while (data.size() < (24u << 20)) {
        data += unit;
        for (int k = 0; k < 40; ++k) data[data.size() - 1 - rng() % unit.size()] = static_cast<char>(rng());
    }
    const std::string c = deflated(data, 6);
    const double per_chunk = double(64u << 10) * double(data.size()) / double(c.size());
    ASSERT_GT(per_chunk, double(2u << 20) * 1.1);
    ASSERT_LT(per_chunk, double(4u << 20) * 0.85);
    auto g = run(c, 3, 64u << 10);
    ASSERT_FALSE(g.error) << render(g.error->message, Lang::En);
    ASSERT_TRUE(g.out == data);
    EXPECT_LE(g.stats.redone, 1u) << g.stats.chunks << " chunks";
}

TEST(InflateParallel, SmallStreamsAndOneChunk) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{70000}}) {
        const std::string data = library_like(n, 4);
        auto g = run(deflated(data, 6), 2, 64u << 10);
        ASSERT_FALSE(g.error) << n;
        EXPECT_TRUE(g.out == data) << n;
    }
}

TEST(InflateParallel, DamagedShortOrLongDataIsRefused) {
    const std::string data = library_like(3u << 20, 5);
    const std::string c = deflated(data, 6);
    // Short: the stream has no end.
    auto shorter = run(c.substr(0, c.size() - 1000), 3, 128u << 10);
    ASSERT_TRUE(shorter.error);
    EXPECT_EQ(shorter.error->code, ExitCode::BadWheel);
    // Bytes after the stream's end.
    auto longer = run(c + std::string(100, 'x'), 3, 128u << 10);
    ASSERT_TRUE(longer.error);
    EXPECT_EQ(longer.error->code, ExitCode::BadWheel);
    // Flipped bits in the middle: refused, or (where deflate cannot tell) different bytes, which
    // the entry's CRC-32 then refuses; never a crash or a hang.
    for (size_t at : {c.size() / 3, c.size() / 2, c.size() - 5000}) {
        std::string bad = c;
        bad[at] = static_cast<char>(bad[at] ^ 0x5a);
        auto g = run(bad, 3, 128u << 10);
        EXPECT_TRUE(g.error || g.out != data) << at;
    }
    // A reader's error is the caller's error.
    wheel::pinflate::ReadAt failing = [&](uint64_t off, char* into, size_t n) -> Expected<size_t> {
        if (off > c.size() / 2) return unexpected(make_error(ExitCode::Interrupted, "install.interrupted"));
        n = std::min<size_t>(n, c.size() - off);
        std::memcpy(into, c.data() + off, n);
        return n;
    };
    std::string out;
    auto r = wheel::pinflate::inflate(
        c.size(), failing,
        [&](std::string_view s) -> Expected<void> {
            out.append(s);
            return {};
        },
        [](std::string w) {
            return make_error(ExitCode::BadWheel, "zip.data_mismatch", {{"what", w}});
        },
        {.threads = 3, .chunk = 128u << 10});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::Interrupted);
}

TEST(InflateParallel, BlockHeadersAreFoundWhereZlibStartsThem) {
    // Every block boundary of a real stream (zlib's Z_BLOCK stops) passes the header test.
    const std::string data = library_like(2u << 20, 6);
    const std::string c = deflated(data, 6);
    z_stream z{};
    ASSERT_EQ(inflateInit2(&z, -MAX_WBITS), Z_OK);
    std::string out(data.size() + 1024, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(c.data()));
    z.avail_in = static_cast<uInt>(c.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    int boundaries = 0, refused = 0;
    for (;;) {
        int rc = inflate(&z, Z_BLOCK);
        if (rc == Z_STREAM_END) break;
        ASSERT_EQ(rc, Z_OK);
        if ((z.data_type & 128) && !(z.data_type & 64)) {  // a block ended, not the last
            const uint64_t bit = (c.size() - z.avail_in) * 8 - (z.data_type & 7);
            ++boundaries;
            if (!wheel::pinflate::may_start_block(c, bit)) ++refused;
        }
    }
    inflateEnd(&z);
    EXPECT_GT(boundaries, 5);
    EXPECT_LE(refused, 1);  // the last block's (a chunk never starts there)
}

namespace {

// Every block boundary of a raw deflate stream (zlib's Z_BLOCK stops) and the output before it.
struct Boundary {
    uint64_t bit = 0;  // where a block that is not the first begins
    size_t out = 0;    // the output before it
};

std::vector<Boundary> boundaries(const std::string& c) {
    std::vector<Boundary> all;
    z_stream z{};
    inflateInit2(&z, -MAX_WBITS);
    std::string out(1u << 16, '\0');
    size_t total = 0;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(c.data()));
    z.avail_in = static_cast<uInt>(c.size());
    for (;;) {
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        const int rc = inflate(&z, Z_BLOCK);
        total += out.size() - z.avail_out;
        if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR)) break;
        if ((z.data_type & 128) && !(z.data_type & 64) && z.total_in > 0)
            all.push_back({(c.size() - z.avail_in) * 8 - (z.data_type & 63), total});
    }
    inflateEnd(&z);
    return all;
}

// The same, in bits.
std::vector<uint64_t> block_ends(const std::string& c) {
    std::vector<uint64_t> ends;
    for (const auto& b : boundaries(c)) ends.push_back(b.bit);
    return ends;
}

std::vector<uint8_t> padded(const std::string& c) {
    std::vector<uint8_t> in(c.begin(), c.end());
    in.resize(c.size() + 8, 0);
    return in;
}

}  // namespace

TEST(MarkedDecoder, DecodesWholeStreamsAsZlibDoes) {
    // From the start, with the window known to be empty: the stream's bytes, whatever the blocks
    // (stored at level 0, fixed codes, Huffman only, RLE, dynamic).
    const std::string data = library_like(1u << 20, 7);
    const std::pair<int, int> kinds[] = {{0, Z_DEFAULT_STRATEGY}, {1, Z_FIXED}, {6, Z_HUFFMAN_ONLY}, {6, Z_RLE}, {6, Z_DEFAULT_STRATEGY}, {9, Z_DEFAULT_STRATEGY}};
    for (auto [level, strategy] : kinds) {
        const std::string c = deflated(data, level, strategy);
        const auto in = padded(c);
        std::vector<uint16_t> sym;
        auto r = wheel::pinflate::decode_marked(in.data(), c.size(), 0, ~uint64_t{0}, true, sym, 8u << 20);
        ASSERT_EQ(r.stop, wheel::pinflate::MarkedStop::Final) << level << "/" << strategy;
        EXPECT_EQ(r.end_bit / 8 + (r.end_bit % 8 != 0), c.size());
        EXPECT_FALSE(r.markers);
        ASSERT_EQ(r.size, data.size());
        std::string bytes(r.size, '\0');
        ASSERT_TRUE(wheel::pinflate::resolve(sym.data(), r.size, nullptr, 0, reinterpret_cast<uint8_t*>(bytes.data())));
        EXPECT_TRUE(bytes == data) << level << "/" << strategy;
    }
}

TEST(MarkedDecoder, FromABlockBoundaryTheWindowIsFilledInAfterwards) {
    // Started at a real block boundary without its window: the symbols name window bytes, which
    // the 32 KiB before the boundary then fill in; each block ends where zlib's does.
    const std::string data = library_like(2u << 20, 8);
    const std::string c = deflated(data, 6);
    const auto ends = block_ends(c);
    ASSERT_GT(ends.size(), 4u);
    const auto in = padded(c);
    // The output before each boundary, from zlib.
    for (size_t k : {size_t{1}, ends.size() / 2, ends.size() - 2}) {
        std::vector<uint16_t> before;
        auto head = wheel::pinflate::decode_marked(in.data(), c.size(), 0, ends[k], true, before, 16u << 20);
        ASSERT_EQ(head.stop, wheel::pinflate::MarkedStop::PastTarget);
        ASSERT_EQ(head.end_bit, ends[k]);
        std::vector<uint16_t> sym;
        auto r = wheel::pinflate::decode_marked(in.data(), c.size(), ends[k], ends[k + 1], false, sym, 16u << 20);
        ASSERT_EQ(r.stop, wheel::pinflate::MarkedStop::PastTarget) << k;
        EXPECT_EQ(r.end_bit, ends[k + 1]) << k;
        EXPECT_TRUE(r.markers) << k;  // library-like data reaches back into the window
        const size_t window = std::min<size_t>(head.size, 32768);
        std::string win(window, '\0'), got(r.size, '\0');
        ASSERT_TRUE(
            wheel::pinflate::resolve(before.data() + head.size - window, window, nullptr, 0, reinterpret_cast<uint8_t*>(win.data())));
        ASSERT_TRUE(wheel::pinflate::resolve(sym.data(), r.size, reinterpret_cast<const uint8_t*>(win.data()), window,
                                             reinterpret_cast<uint8_t*>(got.data())));
        EXPECT_TRUE(got == data.substr(head.size, r.size)) << k;
    }
    // A symbol naming a byte before the stream's start cannot be resolved.
    const uint16_t early[] = {'a', 256};
    uint8_t out[2];
    EXPECT_FALSE(wheel::pinflate::resolve(early, 2, reinterpret_cast<const uint8_t*>("x"), 1, out));
    // With the whole window, every window byte resolves; a symbol past it does not.
    const std::string full(32768, 'w');
    const uint16_t last[] = {'a', 256, 256 + 32767};
    uint8_t three[3];
    ASSERT_TRUE(wheel::pinflate::resolve(last, 3, reinterpret_cast<const uint8_t*>(full.data()), full.size(), three));
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(three), 3), "aww");
    const uint16_t past[] = {'a', 256 + 32768};
    EXPECT_FALSE(wheel::pinflate::resolve(past, 2, reinterpret_cast<const uint8_t*>(full.data()), full.size(), three));
    // With part of it (the stream's first 32 KiB), only the bytes there.
    const uint16_t near[] = {256 + 32767, 'b'};
    ASSERT_TRUE(wheel::pinflate::resolve(near, 2, reinterpret_cast<const uint8_t*>("xyz"), 3, three));
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(three), 2), "zb");
}

TEST(MarkedDecoder, ArbitraryStartsInDataOrNoiseNeverReachOutsideTheirBuffers) {
    // Most places a worker tries are not block boundaries: decoding from them stops (invalid, out
    // of input, too much) without reading or writing past its buffers.
    std::mt19937 rng(11);
    std::string noise(64u << 10, '\0');
    for (auto& ch : noise) ch = static_cast<char>(rng());
    const std::string c = deflated(library_like(256u << 10, 9), 6);
    for (const std::string* src : std::initializer_list<const std::string*>{&noise, &c}) {
        const auto in = padded(*src);
        std::vector<uint16_t> sym;
        for (int i = 0; i < 3000; ++i) {
            const uint64_t bit = rng() % (src->size() * 8);
            auto r = wheel::pinflate::decode_marked(in.data(), src->size(), bit, bit + 4096, false, sym, 1u << 16);
            EXPECT_LE(r.size, size_t{1} << 16);
            EXPECT_LE(r.end_bit, src->size() * 8 + 64);
        }
    }
}

TEST(InflateParallel, StoredBlocksAreTakenWhereverTheirZeroHeaderBegins) {
    // Incompressible data is stored: a stored block decodes the same from any bit of its zero
    // header and padding, so the first such bit found is as good as the boundary (CUDA libraries
    // hold many; before this, a third of their chunks were decoded again in order).
    std::mt19937 rng(5);
    std::string data = library_like(4u << 20, 3);
    for (size_t i = 0; i < data.size(); ++i)
        if ((i >> 16) % 2 == 0) data[i] = static_cast<char>(rng());  // every other 64 KiB: noise, stored
    const std::string c = deflated(data, 6);
    auto g = run(c, 3, 64u << 10);
    ASSERT_FALSE(g.error);
    ASSERT_TRUE(g.out == data);
    EXPECT_GE(g.stats.taken * 10, g.stats.chunks * 9) << g.stats.taken << " of " << g.stats.chunks;
}

TEST(InflateHelpers, AStreamTakesWhatItCanUseTheNextWhatIsLeft) {
    using envfix::installer::InflateHelpers;
    constexpr uint64_t MiB = 1u << 20;
    InflateHelpers pool(8);
    EXPECT_EQ(pool.take(132 * MiB), 8u);  // libtorch_cpu.so: all of them
    EXPECT_EQ(pool.take(309 * MiB), 0u);  // another stream beside it: none left
    pool.give_back(8);
    EXPECT_EQ(pool.take(13 * MiB), 6u);   // one worker per 2 MiB of compressed bytes
    EXPECT_EQ(pool.take(100 * MiB), 0u);  // 2 left: fewer than 4 would be slower than one thread
    pool.give_back(6);
    EXPECT_EQ(pool.take(7 * MiB), 0u);    // 3 would be as slow
    InflateHelpers two(2, 2);             // fewer lent on purpose: taken as they are
    EXPECT_EQ(two.take(5 * MiB), 2u);
    EXPECT_EQ(two.take(5 * MiB), 0u);
}

TEST(InflateHelpers, WorkersFreedGoToTheStreamWithTheMostLeftBehindItsDownload) {
    // Streams on one thread ask as they go: libtorch_cuda.so with 200 MiB left, a smaller library
    // with 30 MiB; while libtorch_cpu.so holds the workers neither gets any, then the larger does.
    using envfix::installer::InflateHelpers;
    constexpr uint64_t MiB = 1u << 20;
    InflateHelpers pool(8);
    int cuda = 0, linalg = 0, third = 0;
    ASSERT_EQ(pool.take(132 * MiB), 8u);
    EXPECT_EQ(pool.take_late(&cuda, 200 * MiB), 0u);
    EXPECT_EQ(pool.take_late(&linalg, 30 * MiB), 0u);
    pool.give_back(8);
    EXPECT_EQ(pool.take_late(&linalg, 29 * MiB), 0u);  // the other has more left
    EXPECT_EQ(pool.take_late(&cuda, 190 * MiB), 8u);
    EXPECT_EQ(pool.take_late(&linalg, 28 * MiB), 0u);  // none left
    pool.give_back(8);
    EXPECT_EQ(pool.take_late(&linalg, 27 * MiB), 8u);  // the one given some is forgotten
    pool.give_back(8);
    // A stream that keeps up with its download, or ended, no longer counts.
    ASSERT_EQ(pool.take(132 * MiB), 8u);
    EXPECT_EQ(pool.take_late(&cuda, 150 * MiB), 0u);
    EXPECT_EQ(pool.take_late(&third, 100 * MiB), 0u);
    pool.give_back(8);
    EXPECT_EQ(pool.take_late(&cuda, std::nullopt), 0u);
    EXPECT_EQ(pool.take_late(&third, 90 * MiB), 8u);
    pool.give_back(8);
    // The rules of take(): too little left for the least worth lending.
    EXPECT_EQ(pool.take_late(&linalg, 7 * MiB), 0u);
    // ENVFIX_INFLATE_HANDOVER=0: never.
    InflateHelpers never(8, 4, 1, false);
    EXPECT_FALSE(never.late());
    EXPECT_EQ(never.take_late(&cuda, 200 * MiB), 0u);
    EXPECT_EQ(never.take(132 * MiB), 8u);
    using envfix::installer::inflate_handover;
    ::unsetenv("ENVFIX_INFLATE_HANDOVER");
    EXPECT_TRUE(inflate_handover());
    ::setenv("ENVFIX_INFLATE_HANDOVER", "0", 1);
    EXPECT_FALSE(inflate_handover());
    ::unsetenv("ENVFIX_INFLATE_HANDOVER");
}

// ENVFIX_INFLATE_STREAMS: the costliest streams share the workers, each at most its share (but
// never fewer than the least worth lending), so the first to start leaves some for the next.
TEST(InflateHelpers, SharedByTheCostliestStreamsEachTakesAtMostItsShare) {
    using envfix::installer::InflateHelpers;
    constexpr uint64_t MiB = 1u << 20;
    InflateHelpers two_streams(8, 4, 2);
    EXPECT_EQ(two_streams.streams(), 2u);
    EXPECT_EQ(two_streams.take(300 * MiB), 4u);  // libtorch_cpu.so: half, not all 8
    EXPECT_EQ(two_streams.take(300 * MiB), 4u);  // libtorch_cuda.so: the other half
    EXPECT_EQ(two_streams.take(300 * MiB), 0u);
    InflateHelpers three(8, 4, 3);  // 8 / 3 is below the least: each takes 4, the third none
    EXPECT_EQ(three.take(300 * MiB), 4u);
    EXPECT_EQ(three.take(300 * MiB), 4u);
    EXPECT_EQ(three.take(300 * MiB), 0u);
    InflateHelpers one(8);  // the default: the first takes what it can use
    EXPECT_EQ(one.take(300 * MiB), 8u);
    using envfix::installer::inflate_streams;
    ::unsetenv("ENVFIX_INFLATE_STREAMS");
    EXPECT_EQ(inflate_streams(), 1u);
    ::setenv("ENVFIX_INFLATE_STREAMS", "2", 1);
    EXPECT_EQ(inflate_streams(), 2u);
    ::setenv("ENVFIX_INFLATE_STREAMS", "9", 1);
    EXPECT_EQ(inflate_streams(), 4u);
    ::setenv("ENVFIX_INFLATE_STREAMS", "zero", 1);
    EXPECT_EQ(inflate_streams(), 1u);
    ::unsetenv("ENVFIX_INFLATE_STREAMS");
}

TEST(InflateHelpers, LentWhereFewWheelsDownloadNotInAColdInstall) {
    using envfix::installer::inflate_helpers_for;
    ::unsetenv("ENVFIX_INFLATE_HELPERS");
    const unsigned half = std::thread::hardware_concurrency() / 2;
    EXPECT_EQ(inflate_helpers_for(3), half >= 4 ? std::min(half, 8u) : 0u);  // a switch: torch, torchvision, torchaudio
    EXPECT_EQ(inflate_helpers_for(33), 0u);                                    // the cold install of the stack
    ::setenv("ENVFIX_INFLATE_HELPERS", "5", 1);
    EXPECT_EQ(inflate_helpers_for(33), 5u);
    ::setenv("ENVFIX_INFLATE_HELPERS", "0", 1);
    EXPECT_EQ(inflate_helpers_for(3), 0u);
    ::unsetenv("ENVFIX_INFLATE_HELPERS");
}

namespace {

// A deflate entry of `c` at offset 0 of the archive `c`, and what reads it.
wheel::ZipEntry entry_of(const std::string& data, const std::string& c) {
    wheel::ZipEntry e;
    e.name = "torch/lib/libtorch_cuda.so";
    e.method = 8;
    e.crc32 = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    e.compressed_size = c.size();
    e.size = data.size();
    return e;
}

struct HandedOver {
    std::string out;
    unsigned by = 0;
    size_t asked = 0;   // times the lender was asked
    size_t unused = 0;  // times it was told its workers were not used
    std::optional<Error> error;
};

// The entry streamed; the lender gives `workers` when asked for the `at`-th time (from 1; 0: never).
HandedOver hand_over(const std::string& data, const std::string& c, size_t at, unsigned workers, size_t in_size = 128u << 10,
                     size_t out_size = 128u << 10) {
    HandedOver h;
    const wheel::ZipEntry e = entry_of(data, c);
    const wheel::ZipReadAt read = [&](uint64_t off, char* into, size_t n) -> Expected<size_t> {
        if (off >= c.size()) return size_t{0};
        n = std::min<size_t>(n, c.size() - off);
        std::memcpy(into, c.data() + off, n);
        return n;
    };
    const wheel::ZipLendWorkers lend{[&](uint64_t decoded) -> unsigned {
                                         EXPECT_LT(decoded, c.size());
                                         return ++h.asked == at ? workers : 0;
                                     },
                                     [&] { ++h.unused; }};
    std::vector<char> in(in_size), out(out_size);
    auto r = wheel::stream_zip_entry_handing_over(e, "torch.whl", read, in, out, lend, [&](std::string_view s) -> Expected<void> {
        h.out.append(s);
        return {};
    });
    if (r) h.by = *r;
    else h.error = r.error();
    return h;
}

}  // namespace

TEST(InflateParallel, FromABlockBoundaryWithTheWindowBeforeIt) {
    // Taken over from a decoder on one thread: the rest of the stream, from any block boundary,
    // given the 32 KiB before it (fewer at the stream's start).
    std::mt19937 rng(3);
    std::string noise(1u << 20, '\0');
    for (auto& ch : noise) ch = static_cast<char>(rng());
    const std::string mixed = library_like(1u << 20, 4) + noise + library_like(1u << 20, 5);
    struct Case {
        const char* what;
        std::string c;
    } cases[] = {{"level 1", deflated(mixed, 1)}, {"level 6", deflated(mixed, 6)}, {"fixed codes", deflated(mixed, 6, Z_FIXED)}};
    for (const auto& k : cases) {
        const auto all = boundaries(k.c);
        ASSERT_GT(all.size(), 6u) << k.what;
        for (size_t i : {size_t{0}, size_t{1}, all.size() / 3, all.size() / 2, all.size() - 2, all.size() - 1}) {
            const auto& b = all[i];
            const size_t w = std::min<size_t>(b.out, 32768);
            auto g = run(k.c, 3, 64u << 10, ~uint64_t{0}, b.bit, std::string_view(mixed).substr(b.out - w, w));
            ASSERT_FALSE(g.error) << k.what << " at " << b.bit << ": " << render(g.error->message, Lang::En);
            ASSERT_TRUE(g.out == mixed.substr(b.out)) << k.what << " at " << b.bit;
        }
    }
    // Past the stream's end: refused.
    const std::string c = deflated(mixed, 6);
    EXPECT_TRUE(run(c, 2, 64u << 10, ~uint64_t{0}, c.size() * 8, "").error);
}

TEST(StreamHandover, TheOutputIsTheEntrysWhereverTheWorkersJoin) {
    // The stream on one thread until workers are lent, then to its next block boundary and on by
    // them; with data where blocks are stored, coded with fixed codes or with long runs too.
    std::mt19937 rng(9);
    std::string noise(1u << 20, '\0');
    for (auto& ch : noise) ch = static_cast<char>(rng());
    const std::string lib = library_like(4u << 20, 6);
    const std::string mixed = library_like(1u << 20, 7) + std::string(1u << 20, '\0') + noise + library_like(1u << 20, 8);
    struct Case {
        const char* what;
        std::string data, c;
    } cases[] = {
        {"library, level 6", lib, deflated(lib, 6)},
        {"library, level 1", lib, deflated(lib, 1)},
        {"library, level 9", lib, deflated(lib, 9)},
        {"mixed, level 6", mixed, deflated(mixed, 6)},
        {"mixed, full flushes", mixed, deflated(mixed, 6, Z_DEFAULT_STRATEGY, 100000)},
        {"mixed, fixed codes", mixed, deflated(mixed, 6, Z_FIXED)},
        {"mixed, rle", mixed, deflated(mixed, 6, Z_RLE)},
        {"noise, stored", noise, deflated(noise, 0)},
    };
    for (const auto& k : cases) {
        const auto alone = hand_over(k.data, k.c, 0, 0);
        ASSERT_FALSE(alone.error) << k.what << ": " << render(alone.error->message, Lang::En);
        ASSERT_TRUE(alone.out == k.data) << k.what;
        EXPECT_EQ(alone.by, 0u);
        ASSERT_GE(alone.asked, 6u) << k.what;
        for (size_t at : {size_t{1}, size_t{2}, alone.asked / 3, alone.asked / 2, alone.asked - 3, alone.asked}) {
            const auto h = hand_over(k.data, k.c, at, 3);
            ASSERT_FALSE(h.error) << k.what << " at " << at << ": " << render(h.error->message, Lang::En);
            ASSERT_EQ(h.out.size(), k.data.size()) << k.what << " at " << at;
            ASSERT_TRUE(h.out == k.data) << k.what << " at " << at;
            // Taken over (late, the stream may end before another block begins).
            if (at <= alone.asked / 2) {
                EXPECT_EQ(h.by, 3u) << k.what << " at " << at;
            }
            EXPECT_EQ(h.asked, at) << k.what;  // not asked again once lent
            EXPECT_EQ(h.unused, 0u) << k.what;
        }
    }
    // Smaller pieces of input and output (a lender is asked only after 32 KiB of output at once,
    // which is the window then): the same.
    const auto small = hand_over(lib, deflated(lib, 6), 10, 2, 32768, 40000);
    ASSERT_FALSE(small.error) << render(small.error->message, Lang::En);
    EXPECT_TRUE(small.out == lib);
    EXPECT_EQ(small.by, 2u);
}

namespace {

// One block of fixed codes holding every byte as a literal (and the last one): a stream with no
// block boundary after its first bits.
std::string one_fixed_block(const std::string& data) {
    std::string c;
    uint64_t bits = 0;
    unsigned n = 0;
    auto put = [&](uint32_t v, unsigned count) {  // LSB first
        bits |= uint64_t{v} << n;
        n += count;
        while (n >= 8) {
            c.push_back(static_cast<char>(bits & 0xff));
            bits >>= 8;
            n -= 8;
        }
    };
    auto put_code = [&](uint32_t code, unsigned len) {  // Huffman codes go MSB first
        uint32_t r = 0;
        for (unsigned i = 0; i < len; ++i) r |= ((code >> i) & 1) << (len - 1 - i);
        put(r, len);
    };
    put(1, 1);  // BFINAL
    put(1, 2);  // fixed codes
    for (unsigned char b : data) {
        if (b < 144) put_code(0x30 + b, 8);
        else put_code(0x190 + (b - 144), 9);
    }
    put_code(0, 7);  // end of block
    if (n) put(0, 8 - n);
    return c;
}

}  // namespace

TEST(StreamHandover, WithNoBoundaryWithinAMebibyteTheWorkersGoBackUnused) {
    // One huge block: nothing to hand over at. After 1 MiB probed the stream goes on alone at full
    // speed and the lender hears its workers are unused; at the last ask, the stream ends first.
    const std::string data = library_like(3u << 20, 12);
    const std::string c = one_fixed_block(data);
    ASSERT_GT(c.size(), 3u << 20);
    const auto alone = hand_over(data, c, 0, 0);
    ASSERT_FALSE(alone.error) << render(alone.error->message, Lang::En);
    ASSERT_TRUE(alone.out == data);
    const auto early = hand_over(data, c, 2, 3);
    ASSERT_FALSE(early.error) << render(early.error->message, Lang::En);
    EXPECT_TRUE(early.out == data);
    EXPECT_EQ(early.by, 0u);
    EXPECT_EQ(early.unused, 1u);
    EXPECT_EQ(early.asked, 2u);  // not asked again
    const auto late = hand_over(data, c, alone.asked, 3);
    ASSERT_FALSE(late.error);
    EXPECT_TRUE(late.out == data);
    EXPECT_EQ(late.by, 0u);
    EXPECT_EQ(late.unused, 0u);
}

TEST(StreamHandover, DamageBeforeOrAfterTheHandoverIsRefused) {
    const std::string lib = library_like(4u << 20, 10);
    const std::string c = deflated(lib, 6);
    for (size_t where : {c.size() / 4, c.size() * 3 / 4, c.size() - 2}) {
        std::string bad = c;
        bad[where] = static_cast<char>(bad[where] ^ 0x5a);
        for (size_t at : {size_t{0}, size_t{3}}) {
            const auto h = hand_over(lib, bad, at, 3);
            ASSERT_TRUE(h.error) << where << "/" << at;
            EXPECT_EQ(h.error->code, ExitCode::BadWheel);
        }
    }
    // Cut short, or followed by bytes that are not the stream's.
    for (const std::string& odd : {c.substr(0, c.size() - 100), c + "extra"}) {
        for (size_t at : {size_t{0}, size_t{3}}) {
            const auto h = hand_over(lib, odd, at, 3);
            ASSERT_TRUE(h.error) << odd.size() << "/" << at;
            EXPECT_EQ(h.error->code, ExitCode::BadWheel);
        }
    }
}
