#pragma once
// A strict reader of ZIP archives (wheels): the end record, ZIP64, the central directory and
// every local header, checked against each other before any byte is extracted. Works on the
// whole archive in memory (a mapped file), so entries can be inflated by several threads at
// once. Pure: no file access.
//
//   auto dir = read_zip_directory(map.bytes(), "torch-2.7.0-…whl");   // every check below
//   read_zip_entry(map.bytes(), dir->entries[i], source, [&](std::string_view chunk) { … });
//
// Refused (ExitCode::BadWheel, key "zip.malformed" with a reason, or the keys named here):
// no end record or bytes after it; more than one disk; a central directory outside the file,
// with a wrong size or entry count; names with control characters or NUL; encrypted entries;
// methods other than stored (0), deflate (8), bzip2 (12), LZMA (14), zstd (93), xz (95)
// ("zip.method"); local headers that disagree
// with the central directory (name, method, flags, CRC, sizes; data descriptors checked too)
// ("zip.header_mismatch"); entries whose data overlap or run into the central directory;
// declared sizes deflate cannot produce (more than 1032 times the compressed size) or over the
// limits ("zip.too_large"); data that inflates to another size or CRC than declared
// ("zip.data_mismatch").
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::installer {

struct ZipLimits {
    uint64_t max_entry_size = 64ull << 30;   // one file
    uint64_t max_total_size = 256ull << 30;  // the whole archive, uncompressed
    uint64_t max_entries = 1'000'000;
};

struct ZipEntry {
    std::string name;                 // UTF-8 (CP437 names are converted, as Python's zipfile does)
    uint16_t method = 0;              // 0 stored, 8 deflate
    uint16_t flags = 0;               // general purpose bits
    uint32_t crc32 = 0;
    uint64_t compressed_size = 0;
    uint64_t size = 0;                // uncompressed
    uint64_t local_header_offset = 0;
    uint64_t data_offset = 0;         // first byte of the (compressed) data
    uint32_t external_attr = 0;
    uint8_t made_by_host = 0;         // "version made by" high byte: 0 MS-DOS, 3 Unix, ...

    bool is_directory() const;        // name ends with "/"
    uint32_t unix_mode() const { return external_attr >> 16; }
    bool is_symlink() const;          // Unix mode S_IFLNK
    bool is_special() const;          // Unix mode of a FIFO, device or socket
    // pip's rule (zip_item_is_executable): a regular-file Unix mode with any x bit.
    bool is_executable() const;
};

struct ZipDirectory {
    std::vector<ZipEntry> entries;    // central directory order
    uint64_t total_size = 0;          // sum of uncompressed sizes
};

// The central directory with every local header checked. `source` names the archive in errors.
Expected<ZipDirectory> read_zip_directory(std::string_view archive, std::string_view source,
                                          const ZipLimits& limits = {});

// The end record and the central directory alone, from the archive's last bytes: `tail` holds
// bytes [tail_offset, tail_offset + tail.size()) of a file that ends there. For a reader that
// starts before the rest of the archive is there (a wheel still downloading): nothing of the
// local headers is checked (every data_offset is 0), so it is a plan, never a license to trust
// the entries; read_zip_directory checks the whole. When the directory (or the end record's
// comment, or the ZIP64 record) starts before the tail, need_from says where to start instead.
struct ZipCentral {
    ZipDirectory dir;
    uint64_t cd_offset = 0;                  // where the directory starts in the file
    std::optional<uint64_t> need_from;       // give the bytes from here on instead
    std::vector<std::string_view> raw_names; // the names as stored, views into `tail`
};
Expected<ZipCentral> read_zip_central(std::string_view tail, uint64_t tail_offset, std::string_view source,
                                      const ZipLimits& limits = {});

// Streams one entry's uncompressed bytes to `sink` in chunks, checking the size and CRC-32 the
// directory declares. A sink error stops the read and is returned as is.
using ZipSink = std::function<Expected<void>(std::string_view chunk)>;
Expected<void> read_zip_entry(std::string_view archive, const ZipEntry& entry, std::string_view source,
                              const ZipSink& sink);
// The whole entry in memory (metadata files, scripts).
Expected<std::string> read_zip_entry_text(std::string_view archive, const ZipEntry& entry, std::string_view source);
// Refuses (BadWheel "wheel.member_too_large") a metadata member (METADATA, RECORD, WHEEL,
// entry_points.txt) larger than resolver::kMaxMetadataBytes, before it is read into memory.
Expected<void> check_text_member(const ZipEntry& entry, std::string_view source);

// Several entries, each handed to `visit` with a function that streams its bytes (size and
// CRC-32 checked). Stored and deflate entries are inflated from memory by envfix (any thread
// may call read_zip_entry at once); bzip2, LZMA, zstd and xz entries are decoded by libarchive
// in one sequential pass over the archive, since it cannot start at an entry.
using ZipEntryVisitor = std::function<Expected<void>(size_t index, const std::function<Expected<void>(const ZipSink&)>& read)>;
Expected<void> visit_zip_entries(std::string_view archive, const ZipDirectory& dir, const std::vector<size_t>& indices,
                                 std::string_view source, const ZipEntryVisitor& visit);
// Whether an entry needs the sequential (libarchive) pass.
bool zip_entry_needs_sequential_read(const ZipEntry& entry);

// Reads up to n bytes of the archive at `offset` into `into`; returns how many were read (fewer
// only where the file ends).
using ZipReadAt = std::function<Expected<size_t>(uint64_t offset, char* into, size_t n)>;
// A stored or deflate entry read from the archive file piece by piece instead of from memory:
// `in` holds compressed bytes read through `read`, `out` what zlib inflates from them, handed to
// `sink` as it fills; size and CRC-32 checked as read_zip_entry does. Memory: the two buffers and
// zlib's state, whatever the entry's size. Compressed data that ends before the stream does, or
// a file shorter than the directory said: "zip.data_mismatch" naming the archive and the entry.
Expected<void> stream_zip_entry(const ZipEntry& entry, std::string_view source, const ZipReadAt& read,
                                std::span<char> in, std::span<char> out, const ZipSink& sink);
// The same for a deflate entry inflated by `workers` threads at once (the parallel inflater of
// installer/src/inflate_parallel.hpp, docs/inflate-parallel.md): `read` is called from several
// threads, `sink` from the caller's, in order; the same errors, the same CRC-32 check. Throws
// std::system_error where its workers cannot be started, before anything reaches `sink`.
Expected<void> stream_zip_entry_parallel(const ZipEntry& entry, std::string_view source, const ZipReadAt& read,
                                         unsigned workers, const ZipSink& sink);

// Workers for stream_zip_entry_handing_over. `lend` is asked between its pieces, with the entry's
// compressed bytes decoded so far: how many take the rest of the stream over (0: it goes on
// alone). `unused` says that those lent will not be used after all (no block boundary came within
// 1 MiB, as in a stream of one huge block); it is not asked again. What was lent is the caller's
// to give back.
struct ZipLendWorkers {
    std::function<unsigned(uint64_t decoded)> lend;
    std::function<void()> unused;
};
// stream_zip_entry for an entry whose stream workers may take over while it runs (a switch's
// library on one thread once another's workers are free: unpack_early.cpp). Once `lend.lend` gives
// some, the stream is decoded on to its next block boundary and the rest by the parallel inflater
// from there. Returns how many workers took it over (0: none). The same errors and checks; a
// stored entry, or a build without ISA-L, is streamed as by stream_zip_entry.
Expected<unsigned> stream_zip_entry_handing_over(const ZipEntry& entry, std::string_view source, const ZipReadAt& read,
                                                 std::span<char> in, std::span<char> out, const ZipLendWorkers& lend,
                                                 const ZipSink& sink);

// The fast path for stored and deflate entries: the whole entry at once into `out` (exactly
// entry.size bytes: a buffer, or a mapped output file), with libdeflate, about twice zlib's
// speed; size and CRC-32 checked as above. One object per thread (it holds libdeflate's state).
class ZipInflater {
public:
    ZipInflater();
    ~ZipInflater();
    ZipInflater(const ZipInflater&) = delete;
    ZipInflater& operator=(const ZipInflater&) = delete;
    Expected<void> inflate(std::string_view archive, const ZipEntry& entry, std::string_view source, char* out);
    // The same from the entry's compressed bytes alone (read from the file into a buffer).
    Expected<void> inflate_data(std::string_view compressed, const ZipEntry& entry, std::string_view source, char* out);

private:
    void* decompressor_ = nullptr;
};

}  // namespace envfix::installer
