// Whole-entry inflation with libdeflate (zip.hpp: ZipInflater). Streaming reads (zip_read.cpp)
// keep zlib, which needs no output buffer of the entry's size.
#include <libdeflate.h>

#include <cstring>

#include "envfix/wheel/zip_read.hpp"

namespace envfix::wheel {

ZipInflater::ZipInflater() : decompressor_(libdeflate_alloc_decompressor()) {}
ZipInflater::~ZipInflater() { libdeflate_free_decompressor(static_cast<libdeflate_decompressor*>(decompressor_)); }

Expected<void> ZipInflater::inflate(std::string_view archive, const ZipEntry& e, std::string_view source, char* out) {
    return inflate_data(archive.substr(static_cast<size_t>(e.data_offset), static_cast<size_t>(e.compressed_size)), e, source, out);
}

Expected<void> ZipInflater::inflate_data(std::string_view in, const ZipEntry& e, std::string_view source, char* out) {
    auto mismatch = [&](std::string what) {
        return fail(ExitCode::BadWheel, "zip.data_mismatch", {{"file", std::string(source)}, {"entry", e.name}, {"what", std::move(what)}});
    };
    if (in.size() != e.compressed_size) return mismatch("compressed data ends early (truncated?)");
    if (e.method == 0) {
        if (in.size() != e.size) return mismatch("stored size");
        if (!in.empty()) std::memcpy(out, in.data(), in.size());
    } else if (e.method == 8) {
        if (!decompressor_) return fail(ExitCode::Internal, "zip.zlib_failed", {{"file", std::string(source)}});
        size_t used = 0, produced = 0;
        auto rc = libdeflate_deflate_decompress_ex(static_cast<libdeflate_decompressor*>(decompressor_), in.data(), in.size(), out,
                                                   static_cast<size_t>(e.size), &used, &produced);
        // A stream that does not fit its declared size stops at that size (no zip bomb gets out).
        if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) return mismatch("more data than its declared size");
        if (rc != LIBDEFLATE_SUCCESS) return mismatch("deflate data is corrupt or truncated");
        if (produced != e.size) return mismatch("less data than its declared size (truncated?)");
        if (used != in.size()) return mismatch("bytes after the end of its deflate data");
    } else {
        return fail(ExitCode::Internal, "zip.method",
                    {{"file", std::string(source)}, {"entry", e.name}, {"method", std::to_string(e.method)}});
    }
    if (libdeflate_crc32(0, out, static_cast<size_t>(e.size)) != e.crc32) return mismatch("CRC-32");
    return {};
}

}  // namespace envfix::wheel
