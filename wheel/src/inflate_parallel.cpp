// One deflate stream inflated on several threads (inflate_parallel.hpp).
#include "inflate_parallel.hpp"

#include "marked_decoder.hpp"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace envfix::wheel::pinflate {

namespace {

constexpr size_t kWindow = 32768;
constexpr size_t kPiece = 256u << 10;  // compressed bytes read at a time past a chunk's own
constexpr size_t kRoom = 128u << 10;  // output room given to zlib at a time
// A chunk's output held at most, in symbols (else it is redone in order, on the caller's thread,
// while the workers wait): 4 Mi, as a chunk of well-compressed code or tables gives 2-4 Mi (at
// 2 Mi a quarter of libLLVM's chunks at level 1 were redone, at 4 Mi one in 74). 8 Mi, with the
// largest buffers freed after use, doubled a switch's peak memory on the GPU machine (glibc keeps
// what is freed).
constexpr size_t kMaxChunkOut = 4u << 20;
constexpr size_t kExtra = 512u << 10;  // bytes read past a chunk for its last block
constexpr uint64_t kNoEnd = ~uint64_t{0};

// Output that grows without being zero-filled first.
class Buffer {
public:
    char* room(size_t n) {
        if (cap_ - size_ < n) {
            size_t cap = std::max(cap_ * 2, size_ + n);
            std::unique_ptr<char[]> p(new char[cap]);
            if (size_) std::memcpy(p.get(), p_.get(), size_);
            p_ = std::move(p);
            cap_ = cap;
        }
        return p_.get() + size_;
    }
    size_t free_room() const { return cap_ - size_; }
    void grew(size_t n) { size_ += n; }
    size_t size() const { return size_; }
    char* data() { return p_.get(); }
    std::string_view view() const { return {p_.get(), size_}; }
    void clear() { size_ = 0; }
    void release() {
        p_.reset();
        size_ = cap_ = 0;
    }

private:
    std::unique_ptr<char[]> p_;
    size_t size_ = 0, cap_ = 0;
};

struct Zlib {
    z_stream z{};
    bool ready = false;
    Zlib() { ready = inflateInit2(&z, -MAX_WBITS) == Z_OK; }
    ~Zlib() {
        if (ready) inflateEnd(&z);
    }
    Zlib(const Zlib&) = delete;
    Zlib& operator=(const Zlib&) = delete;
};

// The compressed bytes one zlib stream reads: a view of bytes already read where it starts,
// then pieces read on demand.
class Feeder {
public:
    Feeder(const ReadAt& read, uint64_t size, const Corrupt& corrupt) : read_(read), size_(size), corrupt_(corrupt) {}
    // Given bytes [at, at + have.size()) of the stream, already read.
    void have(uint64_t at, std::string_view bytes) {
        have_at_ = at;
        have_ = bytes;
    }
    // z's input from byte `at` on.
    Expected<void> seek(z_stream& z, uint64_t at) {
        next_ = at;
        z.avail_in = 0;
        ENVFIX_TRY(bool more, refill(z));
        if (!more) return unexpected(corrupt_("the data ends inside the stream"));
        return {};
    }
    // Input is given up to byte `limit` only (the stream's end by default).
    void limit(uint64_t at) { limit_ = at; }
    bool at_limit() const { return next_ >= std::min(limit_, size_) && next_ < size_; }
    // More input for z once it has used all it was given; false when the stream has no more
    // (or the limit is reached).
    Expected<bool> refill(z_stream& z) {
        if (next_ >= std::min(limit_, size_)) return false;
        if (next_ >= have_at_ && next_ < have_at_ + have_.size()) {
            auto v = have_.substr(static_cast<size_t>(next_ - have_at_));
            v = v.substr(0, static_cast<size_t>(std::min<uint64_t>(v.size(), std::min(limit_, size_) - next_)));
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(v.data()));
            z.avail_in = static_cast<uInt>(v.size());
            next_ += v.size();
            return true;
        }
        const size_t n = static_cast<size_t>(std::min<uint64_t>(kPiece, std::min(limit_, size_) - next_));
        piece_.resize(n);
        size_t got = 0;
        while (got < n) {
            ENVFIX_TRY(size_t r, read_(next_ + got, piece_.data() + got, n - got));
            if (r == 0) return unexpected(corrupt_("the data ends inside the stream"));
            got += r;
        }
        z.next_in = reinterpret_cast<Bytef*>(piece_.data());
        z.avail_in = static_cast<uInt>(n);
        next_ += n;
        return true;
    }
    // The bit z reads next (exact at a block's end, where zlib holds fewer than 8 bits).
    uint64_t bit(const z_stream& z) const { return (next_ - z.avail_in) * 8 - static_cast<uint64_t>(z.data_type & 63); }

private:
    const ReadAt& read_;
    uint64_t size_;
    const Corrupt& corrupt_;
    uint64_t have_at_ = 0;
    std::string_view have_;
    uint64_t next_ = 0;
    uint64_t limit_ = ~uint64_t{0};
    std::vector<char> piece_;
};

// z set to decode from bit `bit` with `window` as the 32 KiB before it (empty at the start).
Expected<void> start_at(Zlib& s, Feeder& f, uint64_t bit, std::string_view window, const Corrupt& corrupt) {
    if (!s.ready || inflateReset(&s.z) != Z_OK) return unexpected(corrupt("zlib could not start"));
    if (!window.empty() &&
        inflateSetDictionary(&s.z, reinterpret_cast<const Bytef*>(window.data()), static_cast<uInt>(window.size())) != Z_OK)
        return unexpected(corrupt("zlib refused the window"));
    ENVFIX_TRY_VOID(f.seek(s.z, bit / 8));
    if (const unsigned r = bit % 8) {
        const unsigned byte = *s.z.next_in;
        ++s.z.next_in;
        --s.z.avail_in;
        if (inflatePrime(&s.z, static_cast<int>(8 - r), static_cast<int>(byte >> r)) != Z_OK)
            return unexpected(corrupt("zlib refused the first bits"));
    }
    return {};
}

// Decodes into `out`: to the end of the next block (`to_block_end`), else all the input up to the
// feeder's limit without stopping at block ends (each stop costs zlib a copy of its window).
// True where the stream ended.
Expected<bool> decode_into(Zlib& s, Feeder& f, Buffer& out, const Corrupt& corrupt, bool to_block_end) {
    for (;;) {
        if (s.z.avail_in == 0) {
            ENVFIX_TRY(bool more, f.refill(s.z));
            if (!more) {
                if (!to_block_end && f.at_limit()) return false;
                return unexpected(corrupt("the data ends inside the stream"));
            }
        }
        if (out.free_room() < kRoom / 2) out.room(kRoom);
        s.z.next_out = reinterpret_cast<Bytef*>(out.room(1));
        s.z.avail_out = static_cast<uInt>(std::min<size_t>(out.free_room(), 1u << 30));
        const uInt before = s.z.avail_out;
        const int rc = inflate(&s.z, to_block_end ? Z_BLOCK : Z_NO_FLUSH);
        out.grew(before - s.z.avail_out);
        if (rc == Z_STREAM_END) return true;
        if (rc != Z_OK && rc != Z_BUF_ERROR) return unexpected(corrupt(s.z.msg ? s.z.msg : "invalid deflate data"));
        // A block ended; 64: it was the last (zlib says Z_STREAM_END only on the next call).
        if (to_block_end && (s.z.data_type & 128)) return (s.z.data_type & 64) != 0;
    }
}

uint64_t load64(std::string_view in, uint64_t byte) {
    uint64_t v = 0;
    if (byte >= in.size()) return 0;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(8, in.size() - byte));
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&v, in.data() + byte, n);
    } else {
        for (size_t i = n; i-- > 0;) v = v << 8 | static_cast<unsigned char>(in[static_cast<size_t>(byte) + i]);
    }
    return v;
}

uint32_t peek(std::string_view in, uint64_t bit, unsigned n) {  // n ≤ 32
    return static_cast<uint32_t>((load64(in, bit >> 3) >> (bit & 7)) & ((uint64_t{1} << n) - 1));
}

struct Chunk {
    uint64_t from = 0, to = 0;  // its compressed bytes (to: where the next chunk's begin)
    // What a worker made of it:
    bool done = false, ok = false, final = false;
    uint64_t start_bit = 0, end_bit = 0;
    // A stored block decodes the same from any bit of its zero header and padding: the output
    // before it may end anywhere from start_bit to here (zlib's stored blocks in CUDA libraries).
    uint64_t start_last = 0;
    std::vector<uint16_t> sym;  // its output: bytes, or bytes of the window before start_bit
    size_t nsym = 0;  // ... its first nsym
    // Once taken: the window before it, and its output as bytes, filled in by a worker.
    std::string window;
    std::vector<char> bytes;  // its first nsym
    bool resolved = false, resolve_ok = false;
};

class Run {
public:
    Run(uint64_t size, const ReadAt& read, const Emit& emit, const Corrupt& corrupt, const Options& o)
        : size_(size), read_(read), emit_(emit), corrupt_(corrupt), ahead_(o.ahead ? o.ahead : std::max(1u, o.threads) + 1) {
        const size_t step = std::max<size_t>(o.chunk, 64u << 10);
        // Taken over at a block boundary: the chunks from its byte on, the first starting there.
        p_ = from_bit_ = o.from_bit;
        window_.assign(o.window.substr(o.window.size() - std::min(o.window.size(), kWindow)));
        for (uint64_t at = o.from_bit / 8; at < size; at += step) chunks_.emplace_back().from = at;
        for (size_t k = 0; k < chunks_.size(); ++k) chunks_[k].to = k + 1 < chunks_.size() ? chunks_[k + 1].from : size;
        stats_.chunks = chunks_.size();
        threads_ = std::max(1u, o.threads);
        try {
            for (unsigned i = 0; i < std::max(1u, o.threads); ++i) workers_.emplace_back([this] { work(); });
        } catch (...) {
            stop();
            throw;
        }
    }
    ~Run() { stop(); }

    Expected<Stats> stitch();

private:
    void stop() {
        {
            std::lock_guard lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        for (auto& t : workers_)
            if (t.joinable()) t.join();
    }
    void work();
    void decode(Chunk& c, size_t k);
    MarkedStop try_from(Chunk& c, uint64_t bit, const uint8_t* in, size_t n, bool stream_start);
    Expected<void> put(std::string_view bytes);
    Expected<void> in_order_to(uint64_t target);
    void resolve_chunk(Chunk& c);
    Expected<void> emit_ready(bool wait_for_one, bool all);

    uint64_t size_;
    const ReadAt& read_;
    const Emit& emit_;
    const Corrupt& corrupt_;
    size_t ahead_;
    std::vector<Chunk> chunks_;
    std::vector<std::thread> workers_;
    std::mutex mu_;
    std::condition_variable cv_;
    size_t claimed_ = 0, taken_ = 0;
    bool stop_ = false;
    std::atomic<bool> failed_{false};
    Stats stats_;

    uint64_t from_bit_ = 0;  // where the output begins (Options::from_bit)
    // The caller's side: the output so far ends at bit p_ of the stream.
    uint64_t p_ = 0;
    uint64_t produced_ = 0;
    bool final_ = false;
    std::string window_;  // the last 32 KiB of the output
    Zlib seq_;  // decoding in order where no chunk is taken
    std::optional<Feeder> seq_feed_;
    bool seq_at_p_ = false;
    Buffer seq_out_;
    std::vector<std::vector<uint16_t>> spare_;  // taken chunks' buffers, for the next ones
    // Emitted chunks' byte buffers, for the next ones: each new one (1-4 MB, above the allocator's
    // mmap threshold) cost its pages' faults and, once freed, an munmap every thread's CPU hears of.
    std::vector<std::vector<char>> spare_bytes_;
    // One of a pool's buffers, or an empty one where the pool has none.
    template <class Buf>
    Buf take_spare(std::vector<Buf>& pool) {
        std::lock_guard lock(mu_);
        if (pool.empty()) return {};
        Buf b = std::move(pool.back());
        pool.pop_back();
        return b;
    }
    std::deque<size_t> resolve_queue_;  // taken chunks whose bytes a worker fills in
    std::deque<size_t> pending_;  // taken chunks not yet emitted, in order
    unsigned threads_ = 1;
};

void Run::work() {
    for (;;) {
        size_t k;
        {
            std::unique_lock lock(mu_);
            cv_.wait(lock, [&] { return stop_ || !resolve_queue_.empty() || (claimed_ < chunks_.size() && claimed_ < taken_ + ahead_); });
            if (stop_) return;
            // Filling in a taken chunk's bytes first: the output in order waits for it.
            if (!resolve_queue_.empty()) {
                k = resolve_queue_.front();
                resolve_queue_.pop_front();
                lock.unlock();
                resolve_chunk(chunks_[k]);
                continue;
            }
            k = claimed_++;
        }
        decode(chunks_[k], k);
        {
            std::lock_guard lock(mu_);
            chunks_[k].done = true;
        }
        cv_.notify_all();
    }
}

// The chunk's bytes, a block boundary found in them, decoded from there (chunk 0: from the
// stream's start, its window known to be empty). Any failure leaves it not ok: redone in order.
void Run::decode(Chunk& c, size_t k) {
    // The chunk's bytes and some of the next chunk's, where its last block ends (zlib's blocks are
    // under 100 KB), then 8 zero bytes the decoder may read past the end.
    const size_t own = static_cast<size_t>(c.to - c.from);
    const size_t n = own + static_cast<size_t>(std::min<uint64_t>(kExtra, size_ - c.to));
    // Buffers used again (each new one costs its pages' zeroing, a tenth of the decoding).
    thread_local std::vector<uint8_t> in;
    if (in.size() < n + 8) in.resize(n + 8);
    std::memset(in.data() + n, 0, 8);
    c.sym = take_spare(spare_);
    size_t got = 0;
    while (got < n) {
        auto r = read_(c.from + got, reinterpret_cast<char*>(in.data()) + got, n - got);
        if (!r || *r == 0) return;  // the caller's own reading says why
        got += *r;
    }
    if (k == 0) {  // at the stream's start, its window known to be empty, or at the boundary given
        const MarkedStop stop = try_from(c, from_bit_ % 8, in.data(), n, from_bit_ == 0);
        c.ok = stop == MarkedStop::PastTarget || stop == MarkedStop::Final;
        return;
    }
    const std::string_view view(reinterpret_cast<const char*>(in.data()), n);
    // Only a stored or dynamic block that is not the last: its first three bits are 000 or 100.
    for (uint64_t byte = 0; byte < own; ++byte) {
        if ((byte & 4095) == 0 && failed_.load(std::memory_order_relaxed)) return;
        const uint64_t w = load64(view, byte);
        for (unsigned r = 0; r < 8; ++r) {
            const uint64_t first = (w >> r) & 7;
            if ((first != 0 && first != 4) || !may_start_block(view, byte * 8 + r)) continue;
            const MarkedStop stop = try_from(c, byte * 8 + r, in.data(), n, false);
            if (stop == MarkedStop::PastTarget || stop == MarkedStop::Final) {
                c.ok = true;
                return;
            }
            // More output than a chunk holds (long runs): left to the decoding in order, which is
            // fast on such data; looking on would decode as much again from each next start.
            if (stop == MarkedStop::TooMuch) return;
        }
    }
}

// Decodes the chunk from bit `bit` of its bytes `in` to the end of the first block past them:
// how it stopped (the chunk is decoded only where a block ended past them, or the last one did).
MarkedStop Run::try_from(Chunk& c, uint64_t bit, const uint8_t* in, size_t n, bool stream_start) {
    const MarkedResult r = decode_marked(in, n, bit, (c.to - c.from) * 8, stream_start, c.sym, kMaxChunkOut);
    if (r.stop != MarkedStop::PastTarget && r.stop != MarkedStop::Final) return r.stop;
    c.nsym = r.size;
    c.final = r.stop == MarkedStop::Final;
    c.start_bit = c.from * 8 + bit;
    c.start_last = c.start_bit;
    // may_start_block took a stored block only with zero padding (chunk 0 starts at bit 0).
    if (bit != 0 && ((in[bit / 8] | in[bit / 8 + 1] << 8) >> (bit % 8) & 7) == 0) c.start_last = (c.start_bit + 3 + 7) / 8 * 8 - 3;
    c.end_bit = c.from * 8 + r.end_bit;
    return r.stop;
}

// A taken chunk's symbols as bytes, given the window before it (its last 32 KiB were filled in by
// the caller's thread already, for the next chunk's window; the rest is done here, beside).
void Run::resolve_chunk(Chunk& c) {
    std::vector<char> bytes = take_spare(spare_bytes_);
    // A buffer too small is made anew (its bytes need no copy); reused, it is not filled again.
    if (const size_t n = std::max<size_t>(c.nsym, 1); bytes.size() < n) {
        std::vector<char>().swap(bytes);
        bytes.resize(n);
    }
    const bool ok = resolve(c.sym.data(), c.nsym, reinterpret_cast<const uint8_t*>(c.window.data()), c.window.size(),
                            reinterpret_cast<uint8_t*>(bytes.data()));
    {
        std::lock_guard lock(mu_);
        c.bytes = std::move(bytes);
        c.resolve_ok = ok;
        c.resolved = true;
    }
    cv_.notify_all();
}

// Emits the taken chunks whose bytes are filled in, in order: waits for the first one where asked
// (`wait_for_one`), for all of them where `all`.
Expected<void> Run::emit_ready(bool wait_for_one, bool all) {
    while (!pending_.empty()) {
        Chunk& f = chunks_[pending_.front()];
        {
            std::unique_lock lock(mu_);
            if (!f.resolved) {
                if (!wait_for_one && !all) return {};
                cv_.wait(lock, [&] { return f.resolved; });
            }
        }
        wait_for_one = false;
        // A real boundary whose chunk names bytes before the stream's start: damaged.
        if (!f.resolve_ok) return unexpected(corrupt_("a distance too far back"));
        ENVFIX_TRY_VOID(emit_(std::string_view(f.bytes.data(), f.nsym)));
        produced_ += f.nsym;
        std::string().swap(f.window);
        {
            std::lock_guard lock(mu_);
            if (!f.sym.empty()) spare_.push_back(std::move(f.sym));
            f.sym = {};
            spare_bytes_.push_back(std::move(f.bytes));
            f.bytes = {};
        }
        pending_.pop_front();
    }
    return {};
}

Expected<void> Run::put(std::string_view bytes) {
    if (bytes.empty()) return {};
    ENVFIX_TRY_VOID(emit_(bytes));
    produced_ += bytes.size();
    if (bytes.size() >= kWindow) {
        window_.assign(bytes.substr(bytes.size() - kWindow));
    } else {
        window_.append(bytes);
        if (window_.size() > kWindow) window_.erase(0, window_.size() - kWindow);
    }
    return {};
}

// Decodes in order from p_ until a block ends at or past `target` (or the stream does).
Expected<void> Run::in_order_to(uint64_t target) {
    if (!seq_at_p_) {
        if (!seq_feed_) seq_feed_.emplace(read_, size_, corrupt_);
        ENVFIX_TRY_VOID(start_at(seq_, *seq_feed_, p_, window_, corrupt_));
        seq_at_p_ = true;
    }
    while (!final_ && p_ < target) {
        seq_out_.clear();
        ENVFIX_TRY(bool fin, decode_into(seq_, *seq_feed_, seq_out_, corrupt_, true));
        ENVFIX_TRY_VOID(put(seq_out_.view()));
        p_ = seq_feed_->bit(seq_.z);
        final_ = fin;
    }
    if (seq_out_.size() > (4u << 20)) seq_out_.release();
    return {};
}

Expected<Stats> Run::stitch() {
    auto fail = [&](Error e) -> Expected<Stats> {
        failed_ = true;
        stop();
        return unexpected(std::move(e));
    };
    for (size_t k = 0; k < chunks_.size() && !final_; ++k) {
        Chunk& c = chunks_[k];
        {
            std::unique_lock lock(mu_);
            cv_.wait(lock, [&] { return c.done; });
        }
        if (c.ok && p_ < c.start_bit) {
            // Decoded in order from where the output ends: what was taken before goes out first.
            if (auto r = emit_ready(false, true); !r) return fail(r.error());
            if (auto r = in_order_to(c.start_bit); !r) return fail(r.error());
        }
        bool take = c.ok && !final_ && p_ >= c.start_bit && p_ <= c.start_last;
        // The window after it, from its last 32 KiB and the window before it (false: it names
        // bytes before the stream's start, which the decoding in order reports as damage); the
        // rest of its bytes a worker fills in.
        std::string next;
        if (take) {
            const size_t n = c.nsym, tail = std::min<size_t>(n, kWindow);
            std::string last(tail, '\0');
            take = resolve(c.sym.data() + (n - tail), tail, reinterpret_cast<const uint8_t*>(window_.data()), window_.size(),
                           reinterpret_cast<uint8_t*>(last.data()));
            next = tail == kWindow ? std::move(last) : window_ + last;
            if (next.size() > kWindow) next.erase(0, next.size() - kWindow);
        }
        if (take) {
            c.window = std::move(window_);
            window_ = std::move(next);
            {
                std::lock_guard lock(mu_);
                resolve_queue_.push_back(k);
            }
            pending_.push_back(k);
            p_ = c.end_bit;
            final_ = c.final;
            seq_at_p_ = false;
            ++stats_.taken;
        } else {
            if (auto r = emit_ready(false, true); !r) return fail(r.error());
            if (!final_) {
                if (auto r = in_order_to(c.to * 8); !r) return fail(r.error());
                ++stats_.redone;
            }
            std::lock_guard lock(mu_);
            if (!c.sym.empty()) spare_.push_back(std::move(c.sym));
            c.sym = {};
        }
        {
            std::lock_guard lock(mu_);
            taken_ = k + 1;
        }
        cv_.notify_all();
        // Out in order as they are filled in; no more waiting than there are workers.
        if (auto r = emit_ready(pending_.size() > threads_, false); !r) return fail(r.error());
    }
    if (auto r = emit_ready(false, true); !r) return fail(r.error());
    if (!final_)
        if (auto r = in_order_to(kNoEnd); !r) return fail(r.error());
    failed_ = true;  // the workers' chunks past the end are not needed
    stop();
    if ((p_ + 7) / 8 != size_) return unexpected(corrupt_("data after the end of the deflate stream"));
    return stats_;
}

}  // namespace

bool may_start_block(std::string_view in, uint64_t bit) {
    const uint32_t h = peek(in, bit, 17);
    if (h & 1) return false;  // the last block: never where a chunk begins
    const uint32_t type = (h >> 1) & 3;
    if (type == 0) {
        const uint64_t aligned = (bit + 3 + 7) / 8 * 8;
        if (aligned > bit + 3 && peek(in, bit + 3, static_cast<unsigned>(aligned - (bit + 3))) != 0) return false;
        const uint32_t len = peek(in, aligned, 16), nlen = peek(in, aligned + 16, 16);
        return aligned / 8 + 4 <= in.size() && len == (~nlen & 0xffff);
    }
    return type == 2 && dynamic_header_ok(reinterpret_cast<const uint8_t*>(in.data()), in.size(), bit);
}

Expected<Stats> inflate(uint64_t size, const ReadAt& read, const Emit& emit, const Corrupt& corrupt, const Options& options) {
    if (size == 0 || options.from_bit >= size * 8) return unexpected(corrupt("the data ends inside the stream"));
    Run run(size, read, emit, corrupt, options);
    return run.stitch();
}

}  // namespace envfix::wheel::pinflate
