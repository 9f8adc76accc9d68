// The ZIP end record, central directory and local headers, cross-checked (zip.hpp).
#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "envfix/wheel/zip.hpp"
#include "envfix/wheel/zip_format.hpp"

namespace envfix::wheel {

namespace {

constexpr uint32_t kEocdSig = 0x06054b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kZip64EocdSig = 0x06064b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kDescriptorSig = 0x08074b50;
constexpr size_t kEocdSize = 22;
constexpr size_t kCentralSize = 46;
constexpr uint16_t kFlagEncrypted = 0x0001;
constexpr uint16_t kFlagDescriptor = 0x0008;
constexpr uint16_t kFlagUtf8 = 0x0800;
constexpr uint16_t kFlagStrongEncryption = 0x0040;
// Deflate cannot expand data by more than about 1032:1 (258-byte matches in 2-bit codes).
constexpr uint64_t kMaxDeflateRatio = 1032;

// Bytes 128-255 of code page 437, as UTF-8 (what Python's zipfile decodes unflagged names with).
// clang-format off
const char* const kCp437High[128] = {
    "Ç", "ü", "é", "â", "ä", "à", "å", "ç", "ê", "ë", "è", "ï", "î", "ì", "Ä", "Å",
    "É", "æ", "Æ", "ô", "ö", "ò", "û", "ù", "ÿ", "Ö", "Ü", "¢", "£", "¥", "₧", "ƒ",
    "á", "í", "ó", "ú", "ñ", "Ñ", "ª", "º", "¿", "⌐", "¬", "½", "¼", "¡", "«", "»",
    "░", "▒", "▓", "│", "┤", "╡", "╢", "╖", "╕", "╣", "║", "╗", "╝", "╜", "╛", "┐",
    "└", "┴", "┬", "├", "─", "┼", "╞", "╟", "╚", "╔", "╩", "╦", "╠", "═", "╬", "╧",
    "╨", "╤", "╥", "╙", "╘", "╒", "╓", "╫", "╪", "┘", "┌", "█", "▄", "▌", "▐", "▀",
    "α", "ß", "Γ", "π", "Σ", "σ", "µ", "τ", "Φ", "Θ", "Ω", "δ", "∞", "φ", "ε", "∩",
    "≡", "±", "≥", "≤", "⌠", "⌡", "÷", "≈", "°", "∙", "·", "√", "ⁿ", "²", "■", "\xC2\xA0",
};
// clang-format on

bool valid_utf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        auto c = static_cast<unsigned char>(s[i]);
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > s.size()) return false;
        for (size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
        if (n == 2 && c < 0xC2) return false;  // overlong
        i += n;
    }
    return true;
}

struct Zip64Values {
    uint64_t size = 0, compressed = 0, offset = 0;
};

// The ZIP64 extra field (0x0001) holds, in order, the 64-bit values whose 32-bit field is all ones.
bool read_zip64_extra(std::string_view extra, bool want_size, bool want_compressed, bool want_offset, Zip64Values& out) {
    size_t i = 0;
    while (i + 4 <= extra.size()) {
        uint16_t id = zipfmt::u16(extra, i);
        uint16_t len = zipfmt::u16(extra, i + 2);
        if (i + 4 + len > extra.size()) return false;
        if (id == 0x0001) {
            std::string_view body = extra.substr(i + 4, len);
            size_t p = 0;
            auto take = [&](bool want, uint64_t& v) {
                if (!want) return true;
                if (p + 8 > body.size()) return false;
                v = zipfmt::u64(body, p);
                p += 8;
                return true;
            };
            return take(want_size, out.size) && take(want_compressed, out.compressed) && take(want_offset, out.offset);
        }
        i += 4 + len;
    }
    return !(want_size || want_compressed || want_offset);
}

}  // namespace

bool ZipEntry::is_directory() const { return !name.empty() && name.back() == '/'; }
bool ZipEntry::is_symlink() const { return (unix_mode() & 0170000) == 0120000; }
bool ZipEntry::is_special() const {
    uint32_t type = unix_mode() & 0170000;
    return type == 0010000 || type == 0020000 || type == 0060000 || type == 0140000;
}
bool ZipEntry::is_executable() const {
    uint32_t mode = unix_mode();
    return mode != 0 && (mode & 0170000) == 0100000 && (mode & 0111) != 0;
}

namespace zipfmt {
Unexpected<Error> malformed(std::string_view source, std::string reason) {
    return fail(ExitCode::BadWheel, "zip.malformed", {{"file", std::string(source)}, {"reason", std::move(reason)}});
}
}  // namespace zipfmt

using zipfmt::malformed;
using zipfmt::why;

// Positions in `a` are those of the file less `base` (a holds the file's last bytes).
Expected<ZipCentral> read_zip_central(std::string_view a, uint64_t base, std::string_view source, const ZipLimits& limits) {
    using namespace zipfmt;
    if (a.size() < kEocdSize) {
        if (base > 0) return ZipCentral{.need_from = base > kEocdSize ? base - kEocdSize : 0};
        return malformed(source, why("zip.why.too_short"));
    }

    // The end record: the last signature whose comment reaches exactly the end of the file. A
    // match that leaves bytes after it (appended data, a second archive) is refused.
    size_t eocd = std::string_view::npos;
    size_t lowest = a.size() >= kEocdSize + 0xFFFF ? a.size() - kEocdSize - 0xFFFF : 0;
    for (size_t pos = a.size() - kEocdSize + 1; pos-- > lowest;) {
        if (u32(a, pos) != kEocdSig) continue;
        if (pos + kEocdSize + u16(a, pos + 20) == a.size()) {
            eocd = pos;
            break;
        }
    }
    if (eocd == std::string_view::npos && base > 0 && a.size() < kEocdSize + 0xFFFF)  // the comment may start before
        return ZipCentral{.need_from = base > kEocdSize + 0xFFFF ? base - kEocdSize - 0xFFFF : 0};
    if (eocd == std::string_view::npos) {
        bool any = false;
        for (size_t pos = a.size() - kEocdSize + 1; pos-- > lowest && !any;) any = u32(a, pos) == kEocdSig;
        return malformed(source, why(any ? "zip.why.trailing_bytes" : "zip.why.no_end_record"));
    }
    if (u16(a, eocd + 4) != 0 || u16(a, eocd + 6) != 0) return malformed(source, why("zip.why.multi_disk"));
    uint64_t count = u16(a, eocd + 10);
    uint64_t count_disk = u16(a, eocd + 8);
    uint64_t cd_size = u32(a, eocd + 12);
    uint64_t cd_offset = u32(a, eocd + 16);
    uint64_t cd_end_expected = eocd + base;  // in the file

    if (eocd < 20 && base > 0) return ZipCentral{.need_from = base > 20 ? base - 20 : 0};  // a ZIP64 locator may be there
    if (eocd >= 20 && u32(a, eocd - 20) == kZip64LocatorSig) {
        size_t loc = eocd - 20;
        if (u32(a, loc + 4) != 0 || u32(a, loc + 16) > 1) return malformed(source, why("zip.why.multi_disk"));
        const uint64_t rec_at = u64(a, loc + 8);
        if (rec_at < base) return ZipCentral{.need_from = rec_at};
        // Compared without adding to rec: it comes from the archive and may be near 2^64.
        if (rec_at - base > loc || loc - (rec_at - base) < 56 || u32(a, static_cast<size_t>(rec_at - base)) != kZip64EocdSig)
            return malformed(source, why("zip.why.zip64_missing"));
        const size_t rec = static_cast<size_t>(rec_at - base);
        if (u64(a, rec + 4) + 12 != loc - rec) return malformed(source, why("zip.why.zip64_size"));
        if (u32(a, rec + 16) != 0 || u32(a, rec + 20) != 0) return malformed(source, why("zip.why.multi_disk"));
        auto pick = [](uint64_t narrow, uint64_t all_ones, uint64_t wide, bool& ok) {
            if (narrow != all_ones && narrow != wide) ok = false;
            return wide;
        };
        bool ok = true;
        count_disk = pick(count_disk, 0xFFFF, u64(a, rec + 24), ok);
        count = pick(count, 0xFFFF, u64(a, rec + 32), ok);
        cd_size = pick(cd_size, 0xFFFFFFFF, u64(a, rec + 40), ok);
        cd_offset = pick(cd_offset, 0xFFFFFFFF, u64(a, rec + 48), ok);
        if (!ok) return malformed(source, why("zip.why.zip64_disagree"));
        cd_end_expected = rec_at;
    } else if (count == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) {
        return malformed(source, why("zip.why.zip64_values"));
    }
    if (count != count_disk) return malformed(source, why("zip.why.multi_disk"));
    if (count > limits.max_entries)
        return fail(ExitCode::BadWheel, "zip.too_large", {{"file", std::string(source)}, {"what", std::to_string(count) + " entries"}});
    if (cd_offset > cd_end_expected || cd_size != cd_end_expected - cd_offset) return malformed(source, why("zip.why.cd_moved"));
    if (cd_offset < base) return ZipCentral{.need_from = cd_offset};

    ZipCentral central;
    central.cd_offset = cd_offset;
    ZipDirectory& dir = central.dir;
    dir.entries.reserve(static_cast<size_t>(count));
    std::unordered_set<std::string_view> names;
    names.reserve(static_cast<size_t>(count) * 2);
    std::vector<std::string_view>& raw_names = central.raw_names;
    raw_names.reserve(static_cast<size_t>(count));
    size_t p = static_cast<size_t>(cd_offset - base);
    const size_t cd_end = static_cast<size_t>(cd_end_expected - base);
    for (uint64_t i = 0; i < count; ++i) {
        if (p + kCentralSize > cd_end || u32(a, p) != kCentralSig)
            return malformed(source, why("zip.why.cd_entry_damaged", {{"n", std::to_string(i + 1)}}));
        ZipEntry e;
        e.made_by_host = static_cast<uint8_t>(u16(a, p + 4) >> 8);
        e.flags = u16(a, p + 8);
        e.method = u16(a, p + 10);
        e.crc32 = u32(a, p + 16);
        e.compressed_size = u32(a, p + 20);
        e.size = u32(a, p + 24);
        size_t name_len = u16(a, p + 28), extra_len = u16(a, p + 30), comment_len = u16(a, p + 32);
        uint16_t disk = u16(a, p + 34);
        e.external_attr = u32(a, p + 38);
        e.local_header_offset = u32(a, p + 42);
        if (p + kCentralSize + name_len + extra_len + comment_len > cd_end)
            return malformed(source, why("zip.why.cd_entry_past", {{"n", std::to_string(i + 1)}}));
        std::string_view raw = a.substr(p + kCentralSize, name_len);
        std::string_view extra = a.substr(p + kCentralSize + name_len, extra_len);
        p += kCentralSize + name_len + extra_len + comment_len;

        Zip64Values z;
        bool want_size = e.size == 0xFFFFFFFF, want_comp = e.compressed_size == 0xFFFFFFFF, want_off = e.local_header_offset == 0xFFFFFFFF;
        if (!read_zip64_extra(extra, want_size, want_comp, want_off, z))
            return malformed(source, why("zip.why.no_zip64_sizes", {{"entry", std::string(raw)}}));
        if (want_size) e.size = z.size;
        if (want_comp) e.compressed_size = z.compressed;
        if (want_off) e.local_header_offset = z.offset;
        if (disk != 0 && disk != 0xFFFF) return malformed(source, why("zip.why.multi_disk"));

        for (unsigned char c : raw)
            if (c < 0x20 || c == 0x7F) return malformed(source, why("zip.why.name_control"));
        if (raw.empty()) return malformed(source, why("zip.why.name_empty"));
        bool ascii = std::all_of(raw.begin(), raw.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
        if (ascii || (e.flags & kFlagUtf8)) {
            if (!ascii && !valid_utf8(raw)) return malformed(source, why("zip.why.name_utf8"));
            e.name.assign(raw);
        } else {
            for (unsigned char c : raw) e.name += c < 0x80 ? std::string(1, static_cast<char>(c)) : kCp437High[c - 0x80];
        }
        if (e.flags & (kFlagEncrypted | kFlagStrongEncryption))
            return fail(ExitCode::BadWheel, "zip.encrypted", {{"file", std::string(source)}, {"entry", e.name}});
        if (!zipfmt::method_known(e.method))
            return fail(ExitCode::BadWheel, "zip.method",
                        {{"file", std::string(source)}, {"entry", e.name}, {"method", std::to_string(e.method)}});
        if (e.method == 0 && e.compressed_size != e.size) return malformed(source, why("zip.why.stored_sizes", {{"entry", e.name}}));
        if (e.method == 8 && e.size > e.compressed_size * kMaxDeflateRatio + 1024)
            return fail(ExitCode::BadWheel, "zip.too_large",
                        {{"file", std::string(source)},
                         {"what", e.name + ": " + std::to_string(e.size) + " bytes declared from " + std::to_string(e.compressed_size) +
                                      " compressed (more than deflate can produce)"}});
        if (e.size > limits.max_entry_size)
            return fail(ExitCode::BadWheel, "zip.too_large",
                        {{"file", std::string(source)}, {"what", e.name + ": " + std::to_string(e.size) + " bytes"}});
        dir.total_size += e.size;
        if (dir.total_size > limits.max_total_size)
            return fail(ExitCode::BadWheel, "zip.too_large",
                        {{"file", std::string(source)}, {"what", std::to_string(dir.total_size) + "+ bytes in all"}});
        raw_names.push_back(raw);
        dir.entries.push_back(std::move(e));
    }
    if (p != cd_end) return malformed(source, why("zip.why.cd_count"));
    for (const auto& e : dir.entries)
        if (!names.insert(e.name).second)
            return fail(ExitCode::BadWheel, "zip.duplicate", {{"file", std::string(source)}, {"entry", e.name}});
    return central;
}

Expected<ZipDirectory> read_zip_directory(std::string_view a, std::string_view source, const ZipLimits& limits) {
    using namespace zipfmt;
    ENVFIX_TRY(ZipCentral central, read_zip_central(a, 0, source, limits));
    ZipDirectory& dir = central.dir;
    const auto& raw_names = central.raw_names;
    const uint64_t cd_offset = central.cd_offset;

    // Local headers: each must repeat what the directory says, and the entries' bytes must not
    // overlap (overlapping entries are how "small" archives inflate to terabytes).
    std::vector<size_t> order(dir.entries.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return dir.entries[x].local_header_offset < dir.entries[y].local_header_offset; });
    uint64_t previous_end = 0;
    for (size_t idx : order) {
        ZipEntry& e = dir.entries[idx];
        auto mismatch = [&](const char* what) {
            return fail(ExitCode::BadWheel, "zip.header_mismatch", {{"file", std::string(source)}, {"entry", e.name}, {"what", what}});
        };
        uint64_t lh = e.local_header_offset;
        if (lh < previous_end) return malformed(source, why("zip.why.overlap", {{"entry", e.name}}));
        if (lh + kLocalSize > cd_offset || u32(a, static_cast<size_t>(lh)) != kLocalSig)
            return malformed(source, why("zip.why.local_damaged", {{"entry", e.name}}));
        size_t l = static_cast<size_t>(lh);
        uint16_t lflags = u16(a, l + 6), lmethod = u16(a, l + 8);
        uint32_t lcrc = u32(a, l + 14);
        uint64_t lcomp = u32(a, l + 18), lsize = u32(a, l + 22);
        size_t lname = u16(a, l + 26), lextra = u16(a, l + 28);
        if (lh + kLocalSize + lname + lextra > cd_offset) return malformed(source, why("zip.why.local_into_cd", {{"entry", e.name}}));
        if (a.substr(l + kLocalSize, lname) != raw_names[idx]) return mismatch("name");
        if (lmethod != e.method) return mismatch("compression method");
        if ((lflags & (kFlagDescriptor | kFlagUtf8 | kFlagEncrypted)) != (e.flags & (kFlagDescriptor | kFlagUtf8 | kFlagEncrypted)))
            return mismatch("flags");
        std::string_view lext = a.substr(l + kLocalSize + lname, lextra);
        bool lzip64 = lsize == 0xFFFFFFFF || lcomp == 0xFFFFFFFF;
        if (lzip64) {
            Zip64Values z;
            // The local ZIP64 field always carries both sizes.
            if (!read_zip64_extra(lext, true, true, false, z)) return mismatch("ZIP64 sizes");
            lsize = z.size;
            lcomp = z.compressed;
        }
        bool descriptor = (e.flags & kFlagDescriptor) != 0;
        // With a data descriptor the local values may be zero; any value given must agree.
        auto agrees = [&](uint64_t local, uint64_t central) { return local == central || (descriptor && local == 0); };
        if (!agrees(lcrc, e.crc32)) return mismatch("CRC-32");
        if (!agrees(lcomp, e.compressed_size)) return mismatch("compressed size");
        if (!agrees(lsize, e.size)) return mismatch("size");
        e.data_offset = lh + kLocalSize + lname + lextra;
        uint64_t end = e.data_offset + e.compressed_size;
        if (end > cd_offset || end < e.data_offset) return malformed(source, why("zip.why.data_into_cd", {{"entry", e.name}}));
        if (descriptor) {
            // Signature optional; sizes 4 bytes, or 8 in ZIP64 archives. The one that agrees wins.
            size_t d = static_cast<size_t>(end);
            size_t sig = (d + 4 <= cd_offset && u32(a, d) == kDescriptorSig) ? 4 : 0;
            size_t body = d + sig;
            uint64_t len = 0;
            if (body + 12 <= cd_offset && u32(a, body) == e.crc32 && u32(a, body + 4) == e.compressed_size && u32(a, body + 8) == e.size)
                len = sig + 12;
            else if (body + 20 <= cd_offset && u32(a, body) == e.crc32 && u64(a, body + 4) == e.compressed_size &&
                     u64(a, body + 12) == e.size)
                len = sig + 20;
            if (len == 0) return mismatch("data descriptor");
            end += len;
        }
        previous_end = end;
    }
    return std::move(dir);
}

}  // namespace envfix::wheel
