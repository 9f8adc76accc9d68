// ELF section tables (System V gABI, "Sections"): 32- and 64-bit little-endian.
#include "envfix/common/bytes.hpp"
#include "object_file.hpp"

namespace envfix::probe {

namespace {
constexpr uint32_t kShtNobits = 8;
constexpr uint16_t kShnXindex = 0xFFFF;

struct Layout {
    bool is64;
    uint64_t shoff;
    uint16_t shentsize, shnum, shstrndx;
};

Unexpected<Error> bad_table(std::string_view name, std::string reason) {
    return fail(ExitCode::BadInput, "binary.bad_section_table", {{"path", std::string(name)}, {"reason", std::move(reason)}});
}

ObjectSection read_header(std::string_view b, uint64_t at, bool is64, uint32_t* name_off, uint32_t* type, uint32_t* link) {
    ObjectSection s;
    *name_off = bytes::le_at<uint32_t>(b, at);
    *type = bytes::le_at<uint32_t>(b, at + 4);
    if (is64) {
        s.offset = bytes::le_at<uint64_t>(b, at + 24);
        s.size = bytes::le_at<uint64_t>(b, at + 32);
        *link = bytes::le_at<uint32_t>(b, at + 40);
    } else {
        s.offset = bytes::le_at<uint32_t>(b, at + 16);
        s.size = bytes::le_at<uint32_t>(b, at + 20);
        *link = bytes::le_at<uint32_t>(b, at + 24);
    }
    return s;
}
}  // namespace

bool looks_like_elf(std::string_view b) { return b.size() >= 4 && b.substr(0, 4) == "\x7f" "ELF"; }

Expected<ObjectFile> parse_elf_sections(std::string_view b, std::string_view name) {
    if (!looks_like_elf(b) || b.size() < 52)
        return fail(ExitCode::BadInput, "binary.truncated_header", {{"path", std::string(name)}});
    const auto cls = static_cast<unsigned char>(b[4]);
    const auto data = static_cast<unsigned char>(b[5]);
    if ((cls != 1 && cls != 2) || data != 1)
        return fail(ExitCode::BadInput, "binary.unsupported_elf",
                    {{"path", std::string(name)}, {"kind", std::string(cls == 2 || cls == 1 ? "big-endian" : "unknown-class")}});
    Layout l{};
    l.is64 = cls == 2;
    if (l.is64 && b.size() < 64) return fail(ExitCode::BadInput, "binary.truncated_header", {{"path", std::string(name)}});
    if (l.is64) {
        l.shoff = bytes::le_at<uint64_t>(b, 0x28);
        l.shentsize = bytes::le_at<uint16_t>(b, 0x3A);
        l.shnum = bytes::le_at<uint16_t>(b, 0x3C);
        l.shstrndx = bytes::le_at<uint16_t>(b, 0x3E);
    } else {
        l.shoff = bytes::le_at<uint32_t>(b, 0x20);
        l.shentsize = bytes::le_at<uint16_t>(b, 0x2E);
        l.shnum = bytes::le_at<uint16_t>(b, 0x30);
        l.shstrndx = bytes::le_at<uint16_t>(b, 0x32);
    }
    ObjectFile out;
    out.format = BinaryFormat::Elf;
    out.machine = bytes::le_at<uint16_t>(b, 0x12);
    if (l.shoff == 0) {  // stripped of its section table (sstrip): the caller scans instead
        out.has_section_table = false;
        return out;
    }
    const uint64_t min_entsize = l.is64 ? 64 : 40;
    if (l.shentsize < min_entsize) return bad_table(name, "section header size " + std::to_string(l.shentsize));
    if (!bytes::fits(b.size(), l.shoff, l.shentsize))
        return bad_table(name, "section table at offset " + std::to_string(l.shoff) + " is past the end of the file");
    uint32_t name0 = 0, type0 = 0, link0 = 0;
    auto first = read_header(b, l.shoff, l.is64, &name0, &type0, &link0);
    // More than 0xFF00 sections: the real count and string-table index live in section 0.
    uint64_t count = l.shnum ? l.shnum : first.size;
    uint64_t strndx = l.shstrndx == kShnXindex ? link0 : l.shstrndx;
    if (count == 0) {
        out.has_section_table = false;
        return out;
    }
    if (count > (b.size() - l.shoff) / l.shentsize)
        return bad_table(name, std::to_string(count) + " sections do not fit in the file");
    std::vector<std::pair<uint32_t, ObjectSection>> raw;
    raw.reserve(static_cast<size_t>(count));
    for (uint64_t i = 0; i < count; ++i) {
        uint32_t n = 0, type = 0, link = 0;
        auto s = read_header(b, l.shoff + i * l.shentsize, l.is64, &n, &type, &link);
        if (type == kShtNobits) s.size = 0;
        raw.emplace_back(n, s);
    }
    std::string_view strtab;
    if (strndx < raw.size()) {
        const auto& st = raw[static_cast<size_t>(strndx)].second;
        if (auto v = bytes::slice(b, st.offset, st.size)) strtab = *v;
    }
    if (strtab.empty()) return bad_table(name, "no section name table");
    for (auto& [n, s] : raw) {
        s.name = std::string(bytes::cstr(strtab, n));
        out.sections.push_back(std::move(s));
    }
    return out;
}

}  // namespace envfix::probe
