#include "zip_directory.hpp"

#include <zlib.h>

#include <algorithm>
#include <memory>

#include "envfix/common/strings.hpp"
#include "envfix/resolver/limits.hpp"
#include "envfix/resolver/names.hpp"

namespace envfix::resolver::detail {

namespace {

constexpr uint32_t kEocd = 0x06054b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr uint32_t kZip64Eocd = 0x06064b50;
constexpr uint32_t kCentral = 0x02014b50;
constexpr uint32_t kLocal = 0x04034b50;

uint64_t le(std::string_view b, size_t at, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
    return v;
}

Unexpected<Error> damaged(std::string_view source, const std::string& what) {
    return fail(ExitCode::BadWheel, "plan.wheel.zip_damaged", {{"file", std::string(source)}, {"reason", what}});
}

// The zip64 extra field replaces the 32-bit values that read 0xFFFFFFFF, in this order.
void apply_zip64(std::string_view extra, ZipEntry& e, bool size64, bool csize64, bool offset64) {
    for (size_t i = 0; i + 4 <= extra.size();) {
        uint64_t id = le(extra, i, 2), len = le(extra, i + 2, 2);
        if (i + 4 + len > extra.size()) return;
        if (id == 1) {
            size_t at = i + 4, end = at + len;
            if (size64 && at + 8 <= end) e.size = le(extra, at, 8), at += 8;
            if (csize64 && at + 8 <= end) e.compressed_size = le(extra, at, 8), at += 8;
            if (offset64 && at + 8 <= end) e.local_offset = le(extra, at, 8);
            return;
        }
        i += 4 + len;
    }
}

}  // namespace

Expected<ZipTail> parse_zip_tail(std::string_view tail, uint64_t file_size, std::string_view source) {
    if (tail.size() < 22 || tail.size() > file_size)
        return fail(ExitCode::BadWheel, "plan.wheel.not_zip", {{"file", std::string(source)}});
    const uint64_t base = file_size - tail.size();  // file offset of tail[0]
    // The end record is the last 22 bytes unless a comment (up to 64 KiB) follows it.
    std::optional<size_t> eocd;
    for (size_t i = tail.size() - 22 + 1; i-- > 0 && tail.size() - i <= 22 + 65535;) {
        if (le(tail, i, 4) == kEocd && i + 22 + le(tail, i + 20, 2) == tail.size()) {
            eocd = i;
            break;
        }
    }
    if (!eocd) return fail(ExitCode::BadWheel, "plan.wheel.not_zip", {{"file", std::string(source)}});
    uint64_t count = le(tail, *eocd + 10, 2);
    uint64_t cd_size = le(tail, *eocd + 12, 4);
    uint64_t cd_offset = le(tail, *eocd + 16, 4);
    if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
        if (*eocd < 20 || le(tail, *eocd - 20, 4) != kZip64Locator) return damaged(source, "zip64 locator missing");
        uint64_t rec = le(tail, *eocd - 20 + 8, 8);
        if (rec < base) return ZipTail{{}, rec};
        size_t at = static_cast<size_t>(rec - base);
        if (at + 56 > tail.size() || le(tail, at, 4) != kZip64Eocd) return damaged(source, "zip64 end record missing");
        count = le(tail, at + 32, 8);
        cd_size = le(tail, at + 40, 8);
        cd_offset = le(tail, at + 48, 8);
    }
    if (cd_offset + cd_size > file_size) return damaged(source, "central directory past the end");
    if (cd_offset < base) return ZipTail{{}, cd_offset};

    ZipTail out;
    size_t at = static_cast<size_t>(cd_offset - base);
    for (uint64_t n = 0; n < count; ++n) {
        if (at + 46 > tail.size() || le(tail, at, 4) != kCentral) return damaged(source, "central directory entry " + std::to_string(n));
        ZipEntry e;
        e.flags = static_cast<uint16_t>(le(tail, at + 8, 2));
        e.method = static_cast<uint16_t>(le(tail, at + 10, 2));
        e.crc32 = static_cast<uint32_t>(le(tail, at + 16, 4));
        e.compressed_size = le(tail, at + 20, 4);
        e.size = le(tail, at + 24, 4);
        size_t name_len = le(tail, at + 28, 2), extra_len = le(tail, at + 30, 2), comment_len = le(tail, at + 32, 2);
        e.local_offset = le(tail, at + 42, 4);
        if (at + 46 + name_len + extra_len + comment_len > tail.size()) return damaged(source, "central directory cut short");
        e.name.assign(tail.substr(at + 46, name_len));
        apply_zip64(tail.substr(at + 46 + name_len, extra_len), e, e.size == 0xFFFFFFFF, e.compressed_size == 0xFFFFFFFF,
                    e.local_offset == 0xFFFFFFFF);
        if (e.local_offset + 30 + e.compressed_size > file_size) return damaged(source, e.name + " lies past the end");
        out.entries.push_back(std::move(e));
        at += 46 + name_len + extra_len + comment_len;
    }
    return out;
}

const ZipEntry* find_metadata_entry(const std::vector<ZipEntry>& entries, std::string_view project) {
    const ZipEntry* only = nullptr;
    size_t found = 0;
    std::string want = canonicalize_name(project);
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
        if (dash != std::string_view::npos && canonicalize_name(stem.substr(0, dash)) == want) return &e;
    }
    return found == 1 ? only : nullptr;
}

uint64_t entry_span(const ZipEntry& e) {
    // The local header's name and extra field may differ from the central ones (4 KiB of room,
    // which real wheels never use up), then the data and 24 bytes of a zip64 data descriptor.
    return 30 + e.name.size() + 4096 + e.compressed_size + 24;
}

Expected<std::string> read_zip_entry(std::string_view local, const ZipEntry& e, std::string_view source) {
    if (e.size > kMaxMetadataBytes)
        return fail(ExitCode::BadWheel, "wheel.member_too_large",
                    {{"file", std::string(source)}, {"member", e.name}, {"size", str::human_bytes(e.size)}, {"limit", str::human_bytes(kMaxMetadataBytes)}});
    if (local.size() < 30 || le(local, 0, 4) != kLocal) return damaged(source, "no local header for " + e.name);
    size_t data_at = 30 + le(local, 26, 2) + le(local, 28, 2);
    if (data_at > local.size()) return damaged(source, "local header of " + e.name + " cut short");
    if (e.method == 0) {
        if (data_at + e.size > local.size()) return damaged(source, e.name + " cut short");
        return std::string(local.substr(data_at, e.size));
    }
    if (e.method != 8) return damaged(source, e.name + " uses compression method " + std::to_string(e.method));
    // Raw deflate with zlib into exactly the size the directory gives (bounded above): plain
    // deflate needs no libarchive, which some systems lack (Ubuntu's minimal images).
    std::string out(static_cast<size_t>(e.size), '\0');
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return damaged(source, "cannot start inflating " + e.name);
    const std::string_view in = local.substr(data_at);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), UINT32_MAX));
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_FINISH);
    const uLong produced = z.total_out;
    const bool full = z.avail_out == 0;
    inflateEnd(&z);
    if (rc != Z_STREAM_END && full && !out.empty()) return damaged(source, e.name + " is larger than its directory entry says");
    if (rc != Z_STREAM_END && rc != Z_BUF_ERROR) return damaged(source, "bad deflate data in " + e.name);
    if (rc != Z_STREAM_END || produced != out.size()) return damaged(source, e.name + " is shorter than its directory entry says");
    if (crc32(0L, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())) != e.crc32)
        return damaged(source, e.name + " fails its CRC-32");
    return out;
}

}  // namespace envfix::resolver::detail
