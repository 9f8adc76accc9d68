// A deflate decoder that writes 16-bit symbols (marked_decoder.hpp). RFC 1951; the table layout
// follows zlib's and libdeflate's idea (a primary table by the next bits, reversed codes), with
// codes longer than the primary table decoded bit by bit as zlib's contrib/puff does: they are the
// rare symbols, so the slow path costs little.
#include "marked_decoder.hpp"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace envfix::wheel::pinflate {

namespace {

constexpr uint32_t kWindow = 32768;

constexpr uint16_t kLenBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                   31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistBase[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

unsigned reverse(unsigned code, unsigned len) {
    unsigned r = 0;
    for (unsigned i = 0; i < len; ++i, code >>= 1) r = r << 1 | (code & 1);
    return r;
}

// Canonical Huffman code: entries of the primary table are symbol << 4 | length, 0 for codes
// longer than B bits (or none), which the slow path decodes.
template <unsigned B, unsigned N>
struct Huffman {
    static constexpr unsigned kMask = (1u << B) - 1;
    uint16_t e[1u << B];
    uint16_t count[16];
    uint16_t symbol[N];

    // False for codes zlib refuses: over-subscribed, or incomplete other than a single code.
    bool build(const uint8_t* lengths, unsigned n) {
        std::memset(count, 0, sizeof count);
        for (unsigned i = 0; i < n; ++i) ++count[lengths[i]];
        count[0] = 0;
        int left = 1;
        unsigned max = 0;
        for (unsigned len = 1; len <= 15; ++len) {
            left <<= 1;
            left -= count[len];
            if (left < 0) return false;
            if (count[len]) max = len;
        }
        if (left > 0 && max > 1) return false;
        uint16_t offs[16] = {};
        for (unsigned len = 1; len < 15; ++len) offs[len + 1] = static_cast<uint16_t>(offs[len] + count[len]);
        for (unsigned i = 0; i < n; ++i)
            if (lengths[i]) symbol[offs[lengths[i]]++] = static_cast<uint16_t>(i);
        std::memset(e, 0, sizeof e);
        unsigned code = 0, index = 0;
        for (unsigned len = 1; len <= 15; ++len, code <<= 1) {
            for (unsigned k = 0; k < count[len]; ++k, ++code, ++index) {
                if (len > B) continue;
                const auto entry = static_cast<uint16_t>(symbol[index] << 4 | len);
                for (unsigned r = reverse(code, len); r < (1u << B); r += 1u << len) e[r] = entry;
            }
        }
        return true;
    }

    // The symbol whose code the low bits of `bits` hold, bit by bit; -1 where none.
    int slow(uint64_t bits, unsigned& used) const {
        int code = 0, first = 0, index = 0;
        for (unsigned len = 1; len <= 15; ++len) {
            code |= static_cast<int>(bits & 1);
            bits >>= 1;
            const int c = count[len];
            if (code - c < first) {
                used = len;
                return symbol[index + (code - first)];
            }
            index += c;
            first += c;
            first <<= 1;
            code <<= 1;
        }
        return -1;
    }
};

using LitCode = Huffman<11, 288>;
using DistCode = Huffman<10, 32>;
using LenCode = Huffman<7, 19>;

struct Fixed {
    LitCode lit;
    DistCode dist;
    Fixed() {
        uint8_t l[288];
        for (unsigned i = 0; i < 288; ++i) l[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
        lit.build(l, 288);
        uint8_t d[32];
        std::memset(d, 5, sizeof d);
        dist.build(d, 32);
    }
};

const Fixed& fixed() {
    static const Fixed f;
    return f;
}

class Decoder {
public:
    Decoder(const uint8_t* in, size_t size, std::vector<uint16_t>& out, size_t max_out)
        : in_(in), size_(size), out_(out), max_out_(max_out) {}

    MarkedResult run(uint64_t bit, uint64_t target_bit, bool known_empty) {
        MarkedResult r;
        if (!start(bit)) return stop(r, MarkedStop::NeedInput);
        window_ = known_empty ? 0 : kWindow;
        n_ = 0;
        base_ = 0;
        for (;;) {
            refill();
            if (over()) return stop(r, MarkedStop::NeedInput);
            const bool last = buf_ & 1;
            const unsigned type = (buf_ >> 1) & 3;
            take(3);
            MarkedStop s;
            if (type == 0) {
                s = stored();
            } else if (type == 1) {
                s = codes(fixed().lit, fixed().dist);
            } else if (type == 2) {
                s = dynamic();
            } else {
                s = MarkedStop::Invalid;
            }
            if (s != MarkedStop::PastTarget) return stop(r, s);  // PastTarget: the block ended
            if (over()) return stop(r, MarkedStop::NeedInput);
            if (last) return stop(r, MarkedStop::Final);
            if (pos() >= target_bit) return stop(r, MarkedStop::PastTarget);
        }
    }

    // Whether a dynamic block's header at `bit` (its first three bits not looked at) holds codes
    // zlib accepts.
    bool dynamic_header_ok(uint64_t bit) {
        if (!start(bit)) return false;
        refill();
        take(3);
        LitCode lit;
        DistCode dist;
        return dynamic_codes(lit, dist) == MarkedStop::PastTarget;
    }

private:
    bool start(uint64_t bit) {
        if (bit >= uint64_t{size_} * 8) return false;
        ip_ = static_cast<size_t>(bit / 8);
        buf_ = in_[ip_] >> (bit % 8);
        cnt_ = 8 - static_cast<unsigned>(bit % 8);
        ++ip_;
        return true;
    }
    MarkedResult& stop(MarkedResult& r, MarkedStop s) {
        r.size = n_;
        r.stop = s;
        r.end_bit = pos();
        r.markers = markers_;
        return r;
    }
    uint64_t pos() const { return uint64_t{ip_} * 8 - cnt_; }
    bool over() const { return pos() > uint64_t{size_} * 8; }
    // At least 56 bits in the buffer; bytes past the input read as zeros (over() tells).
    void refill() {
        if (ip_ + 8 <= size_) {
            uint64_t w;
            std::memcpy(&w, in_ + ip_, 8);  // little-endian hosts (x86-64, arm64)
            buf_ |= w << cnt_;
            ip_ += (63 - cnt_) >> 3;
            cnt_ |= 56;
            return;
        }
        while (cnt_ <= 56) {
            const uint64_t b = ip_ < size_ ? in_[ip_] : 0;
            buf_ |= b << cnt_;
            ++ip_;
            cnt_ += 8;
        }
    }
    void take(unsigned n) {
        buf_ >>= n;
        cnt_ -= n;
    }
    uint32_t bits(unsigned n) {
        const auto v = static_cast<uint32_t>(buf_ & ((uint64_t{1} << n) - 1));
        take(n);
        return v;
    }
    bool room(size_t more) {
        if (n_ + more + 16 <= out_.size()) return true;
        if (n_ + more > max_out_) return false;
        out_.resize(std::min(std::max(out_.size() * 2, n_ + more + (64u << 10)), max_out_ + 16 + 258));
        return true;
    }

    MarkedStop stored() {
        take(cnt_ & 7);  // to the byte boundary
        const size_t q = static_cast<size_t>(pos() / 8);
        if (q + 4 > size_) return MarkedStop::NeedInput;
        const unsigned len = in_[q] | in_[q + 1] << 8, nlen = in_[q + 2] | in_[q + 3] << 8;
        if (len != (~nlen & 0xffffu)) return MarkedStop::Invalid;
        if (q + 4 + len > size_) return MarkedStop::NeedInput;
        if (!room(len)) return MarkedStop::TooMuch;
        uint16_t* o = out_.data() + n_;
        for (unsigned i = 0; i < len; ++i) o[i] = in_[q + 4 + i];
        n_ += len;
        ip_ = q + 4 + len;
        buf_ = 0;
        cnt_ = 0;
        return MarkedStop::PastTarget;
    }

    MarkedStop dynamic() {
        LitCode lit;  // built per block: about the cost of a few hundred symbols
        DistCode dist;
        if (const MarkedStop s = dynamic_codes(lit, dist); s != MarkedStop::PastTarget) return s;
        return codes(lit, dist);
    }

    // A dynamic block's codes, read from its header after the first three bits: PastTarget where
    // they were read and zlib would take them.
    MarkedStop dynamic_codes(LitCode& lit, DistCode& dist) {
        refill();
        const unsigned hlit = bits(5) + 257, hdist = bits(5) + 1, hclen = bits(4) + 4;
        if (hlit > 286 || hdist > 30) return MarkedStop::Invalid;
        static constexpr uint8_t kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
        uint8_t lengths[320] = {};
        for (unsigned i = 0; i < hclen; ++i) {
            if (cnt_ < 3) refill();
            lengths[kOrder[i]] = static_cast<uint8_t>(bits(3));
        }
        LenCode cl;
        if (!cl.build(lengths, 19)) return MarkedStop::Invalid;
        // A complete code-length code (zlib requires it).
        {
            int left = 1;
            for (unsigned len = 1; len <= 15; ++len) left = (left << 1) - cl.count[len];
            if (left != 0) return MarkedStop::Invalid;
        }
        std::memset(lengths, 0, sizeof lengths);
        const unsigned n = hlit + hdist;
        for (unsigned i = 0; i < n;) {
            if (cnt_ < 16) refill();
            if (over()) return MarkedStop::NeedInput;
            const unsigned e = cl.e[buf_ & 127];
            if (!e) return MarkedStop::Invalid;
            take(e & 15);
            const unsigned sym = e >> 4;
            if (sym < 16) {
                lengths[i++] = static_cast<uint8_t>(sym);
                continue;
            }
            uint8_t len = 0;
            unsigned rep;
            if (sym == 16) {
                if (i == 0) return MarkedStop::Invalid;
                len = lengths[i - 1];
                rep = 3 + bits(2);
            } else if (sym == 17) {
                rep = 3 + bits(3);
            } else {
                rep = 11 + bits(7);
            }
            if (i + rep > n) return MarkedStop::Invalid;
            while (rep--) lengths[i++] = len;
        }
        if (over()) return MarkedStop::NeedInput;
        if (lengths[256] == 0) return MarkedStop::Invalid;
        if (!lit.build(lengths, hlit) || !dist.build(lengths + hlit, hdist)) return MarkedStop::Invalid;
        return MarkedStop::PastTarget;
    }

    // The next symbol of `code` (its primary table, else bit by bit); false where none.
    template <class Code>
    bool next_symbol(const Code& code, unsigned& sym) {
        const unsigned e = code.e[buf_ & Code::kMask];
        unsigned used;
        if (e) {
            sym = e >> 4;
            used = e & 15;
        } else {
            const int s = code.slow(buf_, used);
            if (s < 0) return false;
            sym = static_cast<unsigned>(s);
        }
        take(used);
        return true;
    }

    MarkedStop codes(const LitCode& lit, const DistCode& dist) {
        for (;;) {
            if (cnt_ < 48) {
                refill();
                if (ip_ > size_ && over()) return MarkedStop::NeedInput;
            }
            unsigned sym;
            if (!next_symbol(lit, sym)) return MarkedStop::Invalid;
            if (sym < 256) {
                if (n_ + 16 >= out_.size() && !room(1)) return MarkedStop::TooMuch;
                out_.data()[n_++] = static_cast<uint16_t>(sym);
                continue;
            }
            if (sym == 256) return MarkedStop::PastTarget;
            sym -= 257;
            if (sym >= 29) return MarkedStop::Invalid;
            const unsigned len = kLenBase[sym] + bits(kLenExtra[sym]);
            unsigned dsym;
            if (!next_symbol(dist, dsym) || dsym >= 30) return MarkedStop::Invalid;
            const size_t d = kDistBase[dsym] + bits(kDistExtra[dsym]);
            const size_t have = n_ - base_;
            if (d > have + window_) return MarkedStop::Invalid;
            if (!room(len)) return MarkedStop::TooMuch;
            uint16_t* dst = out_.data() + n_;
            if (d <= have) {
                const uint16_t* src = dst - d;
                if (d >= 8) {
                    for (unsigned i = 0; i < len; i += 8) std::memcpy(dst + i, src + i, 16);  // 16 slots of slack past len
                } else if (d == 1) {
                    const uint16_t v = src[0];
                    for (unsigned i = 0; i < len; ++i) dst[i] = v;
                } else {
                    for (unsigned i = 0; i < len; ++i) dst[i] = src[i];
                }
            } else {
                markers_ = true;
                const uint16_t* own = out_.data() + base_;
                for (unsigned i = 0; i < len; ++i) {
                    const int64_t q = static_cast<int64_t>(have + i) - static_cast<int64_t>(d);
                    dst[i] = q >= 0 ? own[q] : static_cast<uint16_t>(256 + kWindow + q);
                }
            }
            n_ += len;
        }
    }

    const uint8_t* in_;
    size_t size_;
    std::vector<uint16_t>& out_;
    size_t max_out_;
    size_t ip_ = 0;
    uint64_t buf_ = 0;
    unsigned cnt_ = 0;
    size_t n_ = 0, base_ = 0;
    size_t window_ = 0;
    bool markers_ = false;
};

}  // namespace

MarkedResult decode_marked(const uint8_t* in, size_t size, uint64_t bit, uint64_t target_bit, bool window_known_empty,
                           std::vector<uint16_t>& out, size_t max_out) {
    Decoder d(in, size, out, max_out);
    return d.run(bit, target_bit, window_known_empty);
}

bool dynamic_header_ok(const uint8_t* in, size_t size, uint64_t bit) {
    std::vector<uint16_t> none;
    Decoder d(in, size, none, 0);
    return d.dynamic_header_ok(bit);
}

bool resolve(const uint16_t* symbols, size_t n, const uint8_t* window, size_t window_size, uint8_t* out) {
    const size_t missing = kWindow - window_size;  // window bytes before the stream's start
    // Every symbol's byte by one lookup, without a branch: a byte stands for itself, 256 + i for
    // byte i of the window (zero where it is missing, which the least window symbol seen then
    // tells). In code a quarter of the groups of 16 hold a window byte (libLLVM at level 1: 29%);
    // the lookup resolves its chunks at 2.45 GB/s here against 1.26 with a branch per symbol.
    uint8_t bytes[256 + kWindow];
    for (unsigned i = 0; i < 256; ++i) bytes[i] = static_cast<uint8_t>(i);
    std::memset(bytes + 256, 0, missing);
    if (window_size) std::memcpy(bytes + 256 + missing, window, window_size);
    constexpr unsigned kLast = 256 + kWindow - 1;
    constexpr unsigned kNoneSeen = ~0u;
    unsigned over = 0, first = kNoneSeen;  // any symbol past the table; the least window symbol
    auto some = [&](size_t from, size_t to) {
        for (size_t j = from; j < to; ++j) {
            const unsigned s = symbols[j];
            out[j] = bytes[std::min(s, kLast)];
            over |= s > kLast;
            if (missing) first = std::min(first, s >= 256 ? s : kNoneSeen);
        }
    };
    size_t i = 0;
#if defined(__SSE2__)
    // Sixteen at a time where all are bytes (nearly all, past a chunk's first blocks, in data).
    const __m128i zero = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(symbols + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(symbols + i + 8));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_srli_epi16(_mm_or_si128(a, b), 8), zero)) == 0xffff) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_packus_epi16(a, b));
            continue;
        }
        some(i, i + 16);
    }
#endif
    some(i, n);
    return !over && (first == kNoneSeen || first - 256 >= missing);
}

}  // namespace envfix::wheel::pinflate
