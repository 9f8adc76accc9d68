// A wheel's METADATA entry read out of part of the wheel (metadata_entry.hpp).
#include "envfix/wheel/metadata_entry.hpp"

#include <zlib.h>

#include <algorithm>

#include "envfix/common/strings.hpp"
#include "envfix/standards/limits.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/wheel/zip_format.hpp"

namespace envfix::wheel::detail {

namespace {

Unexpected<Error> damaged(std::string_view source, const std::string& what) {
    return fail(ExitCode::BadWheel, "plan.wheel.zip_damaged", {{"file", std::string(source)}, {"reason", what}});
}

}  // namespace

const ZipEntry* find_metadata_entry(const std::vector<ZipEntry>& entries, std::string_view project) {
    const ZipEntry* only = nullptr;
    size_t found = 0;
    std::string want = standards::canonicalize_name(project);
    for (const auto& e : entries) {
        std::string_view n = e.name;
        auto slash = n.find('/');
        if (slash == std::string_view::npos || n.substr(slash) != "/METADATA") continue;
        std::string_view dir = n.substr(0, slash);
        if (!dir.ends_with(".dist-info")) continue;
        ++found;
        only = &e;
        // "<name>-<version>.dist-info": the name part is everything before the version's '-'.
        std::string_view stem = dir.substr(0, dir.size() - std::string_view(".dist-info").size());
        auto dash = stem.rfind('-');
        if (dash != std::string_view::npos && standards::canonicalize_name(stem.substr(0, dash)) == want) return &e;
    }
    return found == 1 ? only : nullptr;
}

uint64_t entry_span(const ZipEntry& e) {
    // The local header's name and extra field may differ from the central ones (4 KiB of room,
    // which real wheels never use up), then the data and 24 bytes of a zip64 data descriptor.
    return 30 + e.name.size() + 4096 + e.compressed_size + 24;
}

Expected<std::string> read_zip_entry(std::string_view local, const ZipEntry& e, std::string_view source) {
    if (e.size > standards::kMaxMetadataBytes)
        return fail(ExitCode::BadWheel, "wheel.member_too_large",
                    {{"file", std::string(source)},
                     {"member", e.name},
                     {"size", str::human_bytes(e.size)},
                     {"limit", str::human_bytes(standards::kMaxMetadataBytes)}});
    if (local.size() < 30 || zipfmt::u32(local, 0) != zipfmt::kLocalSig)
        return damaged(source, zipfmt::why("zip.why.no_local_header", {{"entry", e.name}}));
    const size_t data_at = zipfmt::kLocalSize + zipfmt::u16(local, 26) + zipfmt::u16(local, 28);
    if (data_at > local.size()) return damaged(source, zipfmt::why("zip.why.local_cut", {{"entry", e.name}}));
    if (e.method == 0) {
        if (data_at + e.size > local.size()) return damaged(source, zipfmt::why("zip.why.entry_cut", {{"entry", e.name}}));
        return std::string(local.substr(data_at, e.size));
    }
    if (e.method != 8) return damaged(source, zipfmt::why("zip.why.method", {{"entry", e.name}, {"method", std::to_string(e.method)}}));
    // Raw deflate with zlib into exactly the size the directory gives (bounded above): plain
    // deflate needs no libarchive, which some systems lack (Ubuntu's minimal images).
    std::string out(static_cast<size_t>(e.size), '\0');
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return damaged(source, zipfmt::why("zip.why.inflate_start", {{"entry", e.name}}));
    const std::string_view in = local.substr(data_at);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), UINT32_MAX));
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_FINISH);
    const uLong produced = z.total_out;
    const bool full = z.avail_out == 0;
    inflateEnd(&z);
    if (rc != Z_STREAM_END && full && !out.empty()) return damaged(source, zipfmt::why("zip.why.larger", {{"entry", e.name}}));
    if (rc != Z_STREAM_END && rc != Z_BUF_ERROR) return damaged(source, zipfmt::why("zip.why.bad_deflate", {{"entry", e.name}}));
    if (rc != Z_STREAM_END || produced != out.size()) return damaged(source, zipfmt::why("zip.why.shorter", {{"entry", e.name}}));
    if (crc32(0L, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())) != e.crc32)
        return damaged(source, zipfmt::why("zip.why.crc", {{"entry", e.name}}));
    return out;
}

}  // namespace envfix::wheel::detail
