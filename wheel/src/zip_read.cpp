// Reading entry data: stored and deflate from memory or from the file with ISA-L's inflate (zlib
// where the build has no ISA-L; thread-safe, one entry at a time), other methods through
// libarchive in one pass. Sizes and CRC-32 are checked either way.
#include <archive.h>
#include <archive_entry.h>
#include <libdeflate.h>
#include <zlib.h>
#if defined(ENVFIX_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif

#include <algorithm>
#include <atomic>
#include <memory>
#include <system_error>

#include "envfix/common/strings.hpp"
#include "envfix/standards/limits.hpp"
#include "envfix/wheel/zip_format.hpp"
#include "envfix/wheel/zip_read.hpp"
#include "inflate_parallel.hpp"

namespace envfix::wheel {

namespace {

std::atomic<zipfmt::StreamInflater> g_stream_inflater{zipfmt::StreamInflater::Default};

constexpr size_t kChunk = 1u << 18;

Unexpected<Error> data_mismatch(std::string_view source, const ZipEntry& e, std::string what) {
    return fail(ExitCode::BadWheel, "zip.data_mismatch", {{"file", std::string(source)}, {"entry", e.name}, {"what", std::move(what)}});
}

// Counts bytes and CRC-32 on the way to the caller's sink; refuses more bytes than declared at
// once, so a lying size cannot fill the disk.
class CheckedSink {
public:
    CheckedSink(const ZipEntry& e, std::string_view source, const ZipSink& sink) : e_(e), source_(source), sink_(sink) {}
    Expected<void> operator()(std::string_view chunk) {
        if (chunk.size() > e_.size - done_) return data_mismatch(source_, e_, "more data than its declared size");
        done_ += chunk.size();
        crc_ = libdeflate_crc32(crc_, chunk.data(), chunk.size());  // several times zlib's crc32 (PCLMUL)
        return sink_(chunk);
    }
    uint64_t done() const { return done_; }
    Expected<void> finish() const {
        if (done_ != e_.size) return data_mismatch(source_, e_, "less data than its declared size (truncated?)");
        if (crc_ != e_.crc32) return data_mismatch(source_, e_, "CRC-32");
        return {};
    }

private:
    const ZipEntry& e_;
    std::string_view source_;
    const ZipSink& sink_;
    uint64_t done_ = 0;
    uint32_t crc_ = 0;
};

// The compressed data in pieces: each call gives the next one (empty once all was given).
using NextInput = std::function<Expected<std::string_view>()>;

// Where workers may take a stream over (stream_zip_entry_handing_over): whom to ask, and the
// entry's compressed bytes for them.
struct Handover {
    const ZipLendWorkers& workers;
    const ZipReadAt& read;
};

#if defined(ENVFIX_HAVE_ISAL)
Expected<unsigned> inflate_pieces_isal(const ZipEntry& e, std::string_view source, const NextInput& next, std::span<char> buf,
                                       CheckedSink& out, const Handover* handover = nullptr);
#endif
Expected<void> inflate_pieces_zlib(const ZipEntry& e, std::string_view source, const NextInput& next, std::span<char> buf,
                                   CheckedSink& out);
Expected<std::string_view> read_exactly(const ZipReadAt& read, const ZipEntry& e, std::string_view source, uint64_t offset, char* into,
                                        size_t n);
Expected<void> inflate_parallel(const ZipEntry& e, std::string_view source, const ZipReadAt& read, CheckedSink& out,
                                const pinflate::Options& options);

// Stored and deflate data, piece by piece, to `out` through `buf`.
Expected<void> decode_pieces(const ZipEntry& e, std::string_view source, const NextInput& next, std::span<char> buf, CheckedSink& out) {
    if (e.method == 0) {
        for (;;) {
            ENVFIX_TRY(auto piece, next());
            if (piece.empty()) return {};
            for (size_t p = 0; p < piece.size(); p += kChunk) ENVFIX_TRY_VOID(out(piece.substr(p, kChunk)));
        }
    }
#if defined(ENVFIX_HAVE_ISAL)
    if (g_stream_inflater.load(std::memory_order_relaxed) == zipfmt::StreamInflater::Default) {
        ENVFIX_TRY_VOID(inflate_pieces_isal(e, source, next, buf, out));
        return {};
    }
#endif
    return inflate_pieces_zlib(e, source, next, buf, out);
}

// ISA-L streams deflate about 1.5 times as fast as zlib (970 against 640 MB/s on one of torch's
// large libraries; docs/dependencies.md), in about 87 KB of state; the
// large libraries that a torch install streams are what its unpacking waits for.
//
// With a handover, the stream goes on on this thread until `lend` gives workers, then on (its
// input a few bytes at a time) to where ISA-L stops inside the next block header for want of
// input: there its state holds the bits read before that header (read_in) and the header's bytes
// read so far (tmp_in_buffer), so the boundary's bit is exact; the parallel inflater goes on from
// it with the output's last 32 KiB. Workers that cannot start leave the stream to ISA-L, where it
// stopped. Returns how many workers took it over (0: none).
#if defined(ENVFIX_HAVE_ISAL)
Expected<unsigned> inflate_pieces_isal(const ZipEntry& e, std::string_view source, const NextInput& next, std::span<char> buf,
                                       CheckedSink& out, const Handover* handover) {
    constexpr size_t kWindow = 32768;
    // Input given at a time while looking for a boundary: under the size of a dynamic block's
    // header (about 60-120 bytes), so that ISA-L runs out inside one.
    constexpr uint32_t kProbe = 32;
    // Compressed bytes probed at most before the workers go back unused: zlib's dynamic blocks
    // take about 12 KB of probing, its fixed-code ones 130-170 KB; a stream of one huge block
    // (ISA-L's level 0) has no boundary to find.
    constexpr uint64_t kMaxProbe = 1u << 20;
    auto st = std::make_unique<inflate_state>();
    isal_inflate_init(st.get());
    st->crc_flag = ISAL_DEFLATE;  // raw deflate, as zip stores it; the CRC-32 is checked by CheckedSink
    const auto buf_size = static_cast<uint32_t>(std::min<size_t>(buf.size(), 1u << 30));
    bool input_left = true;
    uint64_t fed = 0;  // compressed bytes given so far
    unsigned lent = 0;  // workers given, a boundary looked for
    uint64_t lent_at = 0;  // where they were given (compressed bytes decoded)
    bool asking = handover != nullptr;
    std::string tail;  // while looking: the output's last 32 KiB (and up to as much again)
    while (st->block_state != ISAL_BLOCK_FINISH) {
        if (st->avail_in == 0 && input_left) {
            ENVFIX_TRY(auto piece, next());
            input_left = !piece.empty();
            fed += piece.size();
            st->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(piece.data()));
            st->avail_in = static_cast<uint32_t>(piece.size());
        }
        uint32_t held = 0;  // input kept back from ISA-L this call
        if (lent) {
            // Inside a stored block: exactly the rest of its bytes (its header is too short for the
            // probes to end inside it often).
            uint32_t probe = kProbe;
            if (st->block_state == ISAL_BLOCK_TYPE0 && st->type0_block_len > st->read_in_length / 8)
                probe = static_cast<uint32_t>(st->type0_block_len - st->read_in_length / 8);
            if (st->avail_in > probe) {
                held = st->avail_in - probe;
                st->avail_in = probe;
            }
        }
        st->next_out = reinterpret_cast<uint8_t*>(buf.data());
        st->avail_out = buf_size;
        const int rc = isal_inflate(st.get());
        st->avail_in += held;
        if (rc < 0) return data_mismatch(source, e, "deflate data is corrupt (ISA-L error " + std::to_string(rc) + ")");
        const size_t produced = buf_size - st->avail_out;
        const std::string_view got(buf.data(), produced);
        if (produced > 0) ENVFIX_TRY_VOID(out(got));
        if (produced == 0 && st->avail_in == 0 && !input_left && st->block_state != ISAL_BLOCK_FINISH)
            return data_mismatch(source, e, "compressed data ends early (truncated?)");
        bool asked_now = false;
        if (!lent && asking && produced >= kWindow) {
            const uint64_t at = fed - st->avail_in;
            if (at < e.compressed_size && (lent = handover->workers.lend(at))) {
                tail.assign(got.substr(produced - kWindow));
                lent_at = at;
                asked_now = true;
            }
        }
        if (!lent) continue;
        if (!asked_now) {
            tail.append(got);
            if (tail.size() > 2 * kWindow) tail.erase(0, tail.size() - kWindow);
        }
        const bool between = st->block_state == ISAL_BLOCK_HDR || st->block_state == ISAL_BLOCK_NEW_HDR;
        const bool flushed = st->tmp_out_valid == st->tmp_out_processed && st->copy_overflow_length == 0 && st->write_overflow_len == 0;
        const uint64_t unread = uint64_t{st->avail_in} + static_cast<uint64_t>(std::max<int16_t>(st->tmp_in_size, 0));
        if (between && flushed && st->read_in_length >= 0 && unread <= fed && (fed - unread) * 8 >= uint64_t(st->read_in_length)) {
            const uint64_t bit = (fed - unread) * 8 - static_cast<uint64_t>(st->read_in_length);
            const std::string_view window = std::string_view(tail).substr(tail.size() - std::min(tail.size(), kWindow));
            const uint64_t before = out.done();
            try {
                ENVFIX_TRY_VOID(inflate_parallel(e, source, handover->read, out, {.threads = lent, .from_bit = bit, .window = window}));
                return lent;
            } catch (const std::system_error&) {
                if (out.done() != before) throw;  // not the workers' start: what failed after output
                // No thread for its workers, before any output: ISA-L goes on where it stopped.
            }
        } else if (fed - st->avail_in - lent_at <= kMaxProbe) {
            continue;
        }
        // Workers that could not start, or no boundary within kMaxProbe (one huge block): the
        // stream goes on alone at full speed, the workers back to the caller.
        lent = 0;
        asking = false;
        std::string().swap(tail);
        if (handover->workers.unused) handover->workers.unused();
    }
    // ISA-L reads ahead into a bit buffer: whole bytes left there were not part of the stream.
    if (st->avail_in != 0 || st->read_in_length >= 8) return data_mismatch(source, e, "bytes after the end of its deflate data");
    ENVFIX_TRY(auto rest, next());
    if (input_left && !rest.empty()) return data_mismatch(source, e, "bytes after the end of its deflate data");
    return 0u;
}
#endif

Expected<void> inflate_pieces_zlib(const ZipEntry& e, std::string_view source, const NextInput& next, std::span<char> buf,
                                   CheckedSink& out) {
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return fail(ExitCode::Internal, "zip.zlib_failed", {{"file", std::string(source)}});
    std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
    const auto buf_size = static_cast<uInt>(std::min<size_t>(buf.size(), 1u << 30));
    bool input_left = true;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        if (z.avail_in == 0 && input_left) {
            ENVFIX_TRY(auto piece, next());
            input_left = !piece.empty();
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
            z.avail_in = static_cast<uInt>(piece.size());
        }
        z.next_out = reinterpret_cast<Bytef*>(buf.data());
        z.avail_out = buf_size;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) {
            if (rc == Z_BUF_ERROR && z.avail_in == 0 && !input_left)
                return data_mismatch(source, e, "compressed data ends early (truncated?)");
            return data_mismatch(source, e, std::string("deflate data is corrupt (") + (z.msg ? z.msg : "zlib error") + ")");
        }
        size_t produced = buf_size - z.avail_out;
        if (produced > 0) ENVFIX_TRY_VOID(out(std::string_view(buf.data(), produced)));
    }
    if (z.avail_in != 0) return data_mismatch(source, e, "bytes after the end of its deflate data");
    ENVFIX_TRY(auto rest, next());
    if (input_left && !rest.empty()) return data_mismatch(source, e, "bytes after the end of its deflate data");
    return {};
}

Expected<void> inflate_entry(std::string_view a, const ZipEntry& e, std::string_view source, CheckedSink& out) {
    // The directory was checked against these bytes when the wheel was opened; a wheel read from
    // its kept directory is mapped later, and its file may have gone or changed since.
    if (e.data_offset > a.size() || e.compressed_size > a.size() - e.data_offset)
        return data_mismatch(source, e, "the archive ends before this entry's data (changed or removed since it was opened?)");
    std::string_view in = a.substr(static_cast<size_t>(e.data_offset), static_cast<size_t>(e.compressed_size));
    std::unique_ptr<char[]> buf(new char[kChunk]);
    // Pieces of at most 1 GiB: zlib counts input in 32 bits.
    return decode_pieces(
        e, source,
        [&]() -> Expected<std::string_view> {
            auto piece = in.substr(0, 1u << 30);
            in.remove_prefix(piece.size());
            return piece;
        },
        std::span<char>(buf.get(), kChunk), out);
}

// Compressed bytes [offset, offset + n) of the archive, read into `into`.
Expected<std::string_view> read_exactly(const ZipReadAt& read, const ZipEntry& e, std::string_view source, uint64_t offset, char* into,
                                        size_t n) {
    size_t got = 0;
    while (got < n) {
        ENVFIX_TRY(size_t r, read(offset + got, into + got, n - got));
        if (r == 0) return data_mismatch(source, e, "the archive ends inside its data (truncated?)");
        got += r;
    }
    return std::string_view(into, n);
}

// The entry's compressed data read through `in`, piece by piece.
NextInput pieces_read(const ZipEntry& e, std::string_view source, const ZipReadAt& read, std::span<char> in) {
    return [&e, source, &read, in, fed = uint64_t{0}]() mutable -> Expected<std::string_view> {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(std::min<size_t>(in.size(), 1u << 30), e.compressed_size - fed));
        ENVFIX_TRY(auto piece, read_exactly(read, e, source, e.data_offset + fed, in.data(), n));
        fed += n;
        return piece;
    };
}

// The deflate entry by the parallel inflater (inflate_parallel.hpp), to `out`.
Expected<void> inflate_parallel(const ZipEntry& e, std::string_view source, const ZipReadAt& read, CheckedSink& out,
                                const pinflate::Options& options) {
    const pinflate::ReadAt from_stream = [&](uint64_t off, char* into, size_t n) -> Expected<size_t> {
        if (off >= e.compressed_size) return size_t{0};
        n = static_cast<size_t>(std::min<uint64_t>(n, e.compressed_size - off));
        ENVFIX_TRY(auto got, read_exactly(read, e, source, e.data_offset + off, into, n));
        return got.size();
    };
    const pinflate::Emit emit = [&](std::string_view c) { return out(c); };
    const pinflate::Corrupt corrupt = [&](std::string what) { return data_mismatch(source, e, std::move(what)).error; };
    ENVFIX_TRY_VOID(pinflate::inflate(e.compressed_size, from_stream, emit, corrupt, options));
    return {};
}

struct ArchiveCloser {
    void operator()(archive* a) const { archive_read_free(a); }
};

Expected<void> visit_sequential(std::string_view archive_bytes, const ZipDirectory& dir, std::vector<size_t> sequential,
                                std::string_view source, const ZipEntryVisitor& visit, bool by_name);

}  // namespace

bool zip_entry_needs_sequential_read(const ZipEntry& e) { return !zipfmt::method_builtin(e.method); }

Expected<void> read_zip_entry(std::string_view archive, const ZipEntry& e, std::string_view source, const ZipSink& sink) {
    if (zip_entry_needs_sequential_read(e)) {
        // A lone entry is found by name: `one` is not the whole directory.
        ZipDirectory one;
        one.entries.push_back(e);
        return visit_sequential(
            archive, one, {0}, source, [&](size_t, const std::function<Expected<void>(const ZipSink&)>& read) { return read(sink); }, true);
    }
    CheckedSink out(e, source, sink);
    ENVFIX_TRY_VOID(inflate_entry(archive, e, source, out));
    return out.finish();
}

Expected<void> stream_zip_entry(const ZipEntry& e, std::string_view source, const ZipReadAt& read, std::span<char> in,
                                std::span<char> out_buf, const ZipSink& sink) {
    if (zip_entry_needs_sequential_read(e) || in.empty() || out_buf.empty())
        return fail(ExitCode::Internal, "zip.method",
                    {{"file", std::string(source)}, {"entry", e.name}, {"method", std::to_string(e.method)}});
    CheckedSink out(e, source, sink);
    ENVFIX_TRY_VOID(decode_pieces(e, source, pieces_read(e, source, read, in), out_buf, out));
    return out.finish();
}

Expected<void> stream_zip_entry_parallel(const ZipEntry& e, std::string_view source, const ZipReadAt& read, unsigned workers,
                                         const ZipSink& sink) {
    if (e.method != 8) return unexpected(data_mismatch(source, e, "not a deflate entry").error);
    CheckedSink out(e, source, sink);
    ENVFIX_TRY_VOID(inflate_parallel(e, source, read, out, {.threads = workers}));
    return out.finish();
}

Expected<unsigned> stream_zip_entry_handing_over(const ZipEntry& e, std::string_view source, const ZipReadAt& read, std::span<char> in,
                                                 std::span<char> out_buf, const ZipLendWorkers& lend, const ZipSink& sink) {
#if defined(ENVFIX_HAVE_ISAL)
    if (e.method == 8 && !in.empty() && !out_buf.empty() &&
        g_stream_inflater.load(std::memory_order_relaxed) == zipfmt::StreamInflater::Default) {
        CheckedSink out(e, source, sink);
        const Handover handover{lend, read};
        ENVFIX_TRY(unsigned by, inflate_pieces_isal(e, source, pieces_read(e, source, read, in), out_buf, out, &handover));
        ENVFIX_TRY_VOID(out.finish());
        return by;
    }
#endif
    (void)lend;
    ENVFIX_TRY_VOID(stream_zip_entry(e, source, read, in, out_buf, sink));
    return 0u;
}

Expected<std::string> read_zip_entry_text(std::string_view archive, const ZipEntry& e, std::string_view source) {
    ENVFIX_TRY_VOID(check_text_member(e, source));
    std::string text;
    text.reserve(static_cast<size_t>(std::min<uint64_t>(e.size, 64u << 20)));
    ENVFIX_TRY_VOID(read_zip_entry(archive, e, source, [&](std::string_view c) -> Expected<void> {
        text.append(c);
        return {};
    }));
    return text;
}

Expected<void> check_text_member(const ZipEntry& e, std::string_view source) {
    // Its inflated size checked against the directory as it streams: a bomb stops at the bound.
    if (e.size <= standards::kMaxMetadataBytes) return {};
    return fail(ExitCode::BadWheel, "wheel.member_too_large",
                {{"file", std::string(source)},
                 {"member", e.name},
                 {"size", str::human_bytes(e.size)},
                 {"limit", str::human_bytes(standards::kMaxMetadataBytes)}});
}

Expected<void> visit_zip_entries(std::string_view archive_bytes, const ZipDirectory& dir, const std::vector<size_t>& indices,
                                 std::string_view source, const ZipEntryVisitor& visit) {
    std::vector<size_t> sequential;
    for (size_t i : indices) {
        const ZipEntry& e = dir.entries[i];
        if (zip_entry_needs_sequential_read(e)) {
            sequential.push_back(i);
            continue;
        }
        ENVFIX_TRY_VOID(visit(i, [&](const ZipSink& sink) { return read_zip_entry(archive_bytes, e, source, sink); }));
    }
    if (sequential.empty()) return {};
    return visit_sequential(archive_bytes, dir, std::move(sequential), source, visit, false);
}

namespace {

Expected<void> visit_sequential(std::string_view archive_bytes, const ZipDirectory& dir, std::vector<size_t> sequential,
                                std::string_view source, const ZipEntryVisitor& visit, bool by_name) {
    // libarchive's seekable reader takes the central directory and walks the entries in the
    // order of their local headers; the directory was checked already, so the k-th header it
    // returns is the k-th entry by offset. Names are compared where both sides are ASCII.
    std::sort(sequential.begin(), sequential.end(),
              [&](size_t x, size_t y) { return dir.entries[x].local_header_offset < dir.entries[y].local_header_offset; });
    std::vector<size_t> by_offset(dir.entries.size());
    for (size_t i = 0; i < by_offset.size(); ++i) by_offset[i] = i;
    std::sort(by_offset.begin(), by_offset.end(),
              [&](size_t x, size_t y) { return dir.entries[x].local_header_offset < dir.entries[y].local_header_offset; });
    if (const auto* missing = archive_load_error())  // the wheel is fine: say what is missing
        return fail(ExitCode::LibraryMissing, "zip.no_libarchive", {{"file", std::string(source)}, {"reason", *missing}});
    std::unique_ptr<archive, ArchiveCloser> ar(archive_read_new());
    archive_read_support_format_zip_seekable(ar.get());
    if (archive_read_open_memory(ar.get(), archive_bytes.data(), archive_bytes.size()) != ARCHIVE_OK)
        return zipfmt::malformed(source, std::string("libarchive: ") + archive_error_string(ar.get()));
    size_t want = 0;
    std::unique_ptr<std::string> buffer(new std::string(1u << 18, '\0'));
    for (size_t k = 0; want < sequential.size(); ++k) {
        archive_entry* ae = nullptr;
        int rc = archive_read_next_header(ar.get(), &ae);
        if (rc == ARCHIVE_EOF) return zipfmt::malformed(source, "libarchive found fewer entries than the central directory");
        if (rc != ARCHIVE_OK)
            return zipfmt::malformed(
                source, std::string("libarchive: ") + (archive_error_string(ar.get()) ? archive_error_string(ar.get()) : "header error"));
        const ZipEntry& e = dir.entries[sequential[want]];
        const char* name = archive_entry_pathname(ae);
        if (by_name) {
            if (!name || e.name != name) continue;
        } else if (by_offset[k] != sequential[want]) {
            continue;
        } else if (name && std::string_view(name) != e.name &&
                   std::all_of(e.name.begin(), e.name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
            return fail(ExitCode::BadWheel, "zip.header_mismatch", {{"file", std::string(source)}, {"entry", e.name}, {"what", "name"}});
        }
        ENVFIX_TRY_VOID(visit(sequential[want], [&](const ZipSink& sink) -> Expected<void> {
            CheckedSink out(e, source, sink);
            for (;;) {
                la_ssize_t n = archive_read_data(ar.get(), buffer->data(), buffer->size());
                if (n == 0) break;
                if (n < 0)
                    return data_mismatch(
                        source, e,
                        std::string("libarchive: ") + (archive_error_string(ar.get()) ? archive_error_string(ar.get()) : "read error"));
                ENVFIX_TRY_VOID(out(std::string_view(buffer->data(), static_cast<size_t>(n))));
            }
            return out.finish();
        }));
        ++want;
    }
    return {};
}

}  // namespace

void zipfmt::set_stream_inflater(zipfmt::StreamInflater which) { g_stream_inflater.store(which); }

}  // namespace envfix::wheel
