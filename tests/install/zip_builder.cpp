#include "zip_builder.hpp"

#include <zlib.h>

#include <algorithm>
#include <fstream>

#include "envfix/common/hash.hpp"

namespace envfix::test {

namespace {

void put16(std::string& s, uint16_t v) {
    s += static_cast<char>(v & 0xFF);
    s += static_cast<char>(v >> 8);
}
void put32(std::string& s, uint32_t v) {
    put16(s, static_cast<uint16_t>(v & 0xFFFF));
    put16(s, static_cast<uint16_t>(v >> 16));
}
void put64(std::string& s, uint64_t v) {
    put32(s, static_cast<uint32_t>(v & 0xFFFFFFFF));
    put32(s, static_cast<uint32_t>(v >> 32));
}

}  // namespace

std::string deflate_raw(const std::string& data, const DeflateOptions& o) {
    z_stream z{};
    deflateInit2(&z, o.level, Z_DEFLATED, -MAX_WBITS, 8, o.strategy);
    std::string out(deflateBound(&z, data.size()) + 16 + (o.flush_every ? 16 * (data.size() / o.flush_every + 1) : 0), '\0');
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    size_t at = 0;
    for (;;) {
        const size_t n = o.flush_every ? std::min(o.flush_every, data.size() - at) : data.size() - at;
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + at));
        z.avail_in = static_cast<uInt>(n);
        at += n;
        const bool last = at == data.size();
        deflate(&z, last ? Z_FINISH : Z_FULL_FLUSH);
        if (last) break;
    }
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

std::string build_zip(const std::vector<ZipItem>& items, const ZipOptions& o) {
    std::string out = o.prefix;
    std::string cd;
    for (const auto& it : items) {
        std::string comp = it.raw_compressed ? *it.raw_compressed : it.method == 8 ? deflate_raw(it.data) : it.data;
        uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(it.data.data()), static_cast<uInt>(it.data.size())));
        uint64_t offset = out.size();
        uint16_t flags = static_cast<uint16_t>((it.utf8_flag ? 0x0800 : 0) | (it.data_descriptor ? 0x0008 : 0));
        std::string lname = it.local_name.value_or(it.name);
        // local header
        put32(out, 0x04034b50);
        put16(out, o.zip64 ? 45 : 20);
        put16(out, flags);
        put16(out, it.method);
        put16(out, 0);
        put16(out, 0x5021);
        uint32_t lcrc = it.local_crc.value_or(it.data_descriptor ? 0 : crc);
        uint64_t lsize = it.local_size.value_or(it.data_descriptor ? 0 : it.data.size());
        uint64_t lcomp = it.data_descriptor ? 0 : comp.size();
        put32(out, lcrc);
        if (o.zip64) {
            put32(out, 0xFFFFFFFF);
            put32(out, 0xFFFFFFFF);
        } else {
            put32(out, static_cast<uint32_t>(lcomp));
            put32(out, static_cast<uint32_t>(lsize));
        }
        put16(out, static_cast<uint16_t>(lname.size()));
        put16(out, o.zip64 ? 20 : 0);
        out += lname;
        if (o.zip64) {
            put16(out, 0x0001);
            put16(out, 16);
            put64(out, lsize);
            put64(out, lcomp);
        }
        out += comp;
        if (it.data_descriptor) {
            put32(out, 0x08074b50);
            put32(out, crc);
            if (o.zip64) {
                put64(out, comp.size());
                put64(out, it.data.size());
            } else {
                put32(out, static_cast<uint32_t>(comp.size()));
                put32(out, static_cast<uint32_t>(it.data.size()));
            }
        }
        // central directory entry
        uint64_t csize = it.central_size.value_or(it.data.size());
        uint64_t ccomp = it.central_compressed.value_or(comp.size());
        uint64_t coff = it.central_offset.value_or(offset);
        put32(cd, 0x02014b50);
        put16(cd, static_cast<uint16_t>((it.made_by_host << 8) | 20));
        put16(cd, o.zip64 ? 45 : 20);
        put16(cd, flags);
        put16(cd, it.central_method.value_or(it.method));
        put16(cd, 0);
        put16(cd, 0x5021);
        put32(cd, it.central_crc.value_or(crc));
        if (o.zip64) {
            put32(cd, 0xFFFFFFFF);
            put32(cd, 0xFFFFFFFF);
        } else {
            put32(cd, static_cast<uint32_t>(ccomp));
            put32(cd, static_cast<uint32_t>(csize));
        }
        put16(cd, static_cast<uint16_t>(it.name.size()));
        put16(cd, o.zip64 ? 28 : 0);
        put16(cd, 0);
        put16(cd, 0);
        put16(cd, 0);
        put32(cd, it.unix_mode << 16);
        put32(cd, o.zip64 ? 0xFFFFFFFF : static_cast<uint32_t>(coff));
        cd += it.name;
        if (o.zip64) {
            put16(cd, 0x0001);
            put16(cd, 24);
            put64(cd, csize);
            put64(cd, ccomp);
            put64(cd, coff);
        }
    }
    uint64_t cd_offset = out.size() + o.cd_offset_delta.value_or(0);
    out += cd;
    uint64_t count = o.entry_count.value_or(items.size());
    if (o.zip64) {
        uint64_t rec = out.size();
        put32(out, 0x06064b50);
        put64(out, 44);
        put16(out, 45);
        put16(out, 45);
        put32(out, 0);
        put32(out, 0);
        put64(out, count);
        put64(out, count);
        put64(out, cd.size());
        put64(out, cd_offset);
        put32(out, 0x07064b50);
        put32(out, 0);
        put64(out, rec);
        put32(out, 1);
    }
    put32(out, 0x06054b50);
    put16(out, 0);
    put16(out, 0);
    put16(out, o.zip64 ? 0xFFFF : static_cast<uint16_t>(count));
    put16(out, o.zip64 ? 0xFFFF : static_cast<uint16_t>(count));
    put32(out, o.zip64 ? 0xFFFFFFFF : static_cast<uint32_t>(cd.size()));
    put32(out, o.zip64 ? 0xFFFFFFFF : static_cast<uint32_t>(cd_offset));
    put16(out, static_cast<uint16_t>(o.comment.size()));
    out += o.comment;
    out += o.trailing;
    return out;
}

std::string record_hash(const std::string& data) {
    Sha256 h;
    h.update(data);
    auto d = h.finish();
    return "sha256=" + base64_urlsafe_nopad(d.data(), d.size());
}

std::string WheelSpec::filename() const {
    std::string escaped;
    for (char c : name) escaped += (c == '-' || c == '.') ? '_' : c;
    return escaped + "-" + version + "-" + tag + ".whl";
}

std::string build_wheel_bytes(const WheelSpec& s) {
    std::string escaped;
    for (char c : s.name) escaped += (c == '-' || c == '.') ? '_' : c;
    std::string di = escaped + "-" + s.version + ".dist-info/";
    std::vector<ZipItem> items = s.files;
    std::string meta = "Metadata-Version: 2.1\nName: " + s.name + "\nVersion: " + s.version + "\n";
    if (!s.requires_python.empty()) meta += "Requires-Python: " + s.requires_python + "\n";
    for (const auto& r : s.requires_dist) meta += "Requires-Dist: " + r + "\n";
    if (!s.description.empty()) meta += "\n" + s.description;
    items.push_back({di + "METADATA", meta});
    items.push_back({di + "WHEEL", "Wheel-Version: " + s.wheel_version + "\nGenerator: envfix-tests\nRoot-Is-Purelib: " +
                                       (s.root_is_purelib ? "true" : "false") + "\nTag: " + s.tag + "\n"});
    if (!s.entry_points.empty()) items.push_back({di + "entry_points.txt", s.entry_points});
    std::string record;
    for (const auto& it : items) {
        auto o = s.record_override.find(it.name);
        if (o != s.record_override.end()) {
            if (!o->second.empty()) record += o->second + "\n";
            continue;
        }
        if (!it.name.empty() && it.name.back() == '/') continue;
        record += it.name + "," + record_hash(it.data) + "," + std::to_string(it.data.size()) + "\n";
    }
    for (const auto& r : s.record_extra_rows) record += r + "\n";
    record += di + "RECORD,,\n";
    items.push_back({di + "RECORD", record});
    return build_zip(items, s.zip);
}

std::filesystem::path write_wheel(const WheelSpec& spec, const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    auto p = dir / spec.filename();
    std::ofstream(p, std::ios::binary) << build_wheel_bytes(spec);
    return p;
}

}  // namespace envfix::test
