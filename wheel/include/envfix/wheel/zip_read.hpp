#pragma once
// Reading a wheel's entries: each one's bytes streamed or inflated whole, size and CRC-32 checked
// against the directory that envfix/wheel/zip.hpp reads (the one reader of a wheel's
// directory, shared with the planner).
//
//   auto dir = read_zip_directory(map.bytes(), "torch-2.7.0-…whl");   // every check of zip.hpp
//   read_zip_entry(map.bytes(), dir->entries[i], source, [&](std::string_view chunk) { … });
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/wheel/zip.hpp"

namespace envfix::wheel {

// Streams one entry's uncompressed bytes to `sink` in chunks, checking the size and CRC-32 the
// directory declares. A sink error stops the read and is returned as is.
using ZipSink = std::function<Expected<void>(std::string_view chunk)>;
Expected<void> read_zip_entry(std::string_view archive, const ZipEntry& entry, std::string_view source, const ZipSink& sink);
// The whole entry in memory (metadata files, scripts).
Expected<std::string> read_zip_entry_text(std::string_view archive, const ZipEntry& entry, std::string_view source);
// Refuses (BadWheel "wheel.member_too_large") a metadata member (METADATA, RECORD, WHEEL,
// entry_points.txt) larger than standards::kMaxMetadataBytes, before it is read into memory.
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
Expected<void> stream_zip_entry(const ZipEntry& entry, std::string_view source, const ZipReadAt& read, std::span<char> in,
                                std::span<char> out, const ZipSink& sink);
// The same for a deflate entry inflated by `workers` threads at once (the parallel inflater of
// wheel/src/inflate_parallel.hpp, docs/inflate-parallel.md): `read` is called from several
// threads, `sink` from the caller's, in order; the same errors, the same CRC-32 check. Throws
// std::system_error where its workers cannot be started, before anything reaches `sink`.
Expected<void> stream_zip_entry_parallel(const ZipEntry& entry, std::string_view source, const ZipReadAt& read, unsigned workers,
                                         const ZipSink& sink);

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
Expected<unsigned> stream_zip_entry_handing_over(const ZipEntry& entry, std::string_view source, const ZipReadAt& read, std::span<char> in,
                                                 std::span<char> out, const ZipLendWorkers& lend, const ZipSink& sink);

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

}  // namespace envfix::wheel
