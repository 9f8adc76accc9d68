// PE/COFF section tables (Microsoft "PE Format": MS-DOS stub, signature, COFF file header,
// section table). Image section names are 8 bytes, so MSVC-linked DLLs show ".nv_fatbin" as
// ".nv_fatb"; MinGW may keep the long name in the COFF string table ("/123").
#include "envfix/common/bytes.hpp"
#include "envfix/common/strings.hpp"
#include "object_file.hpp"

namespace envfix::probe {

bool looks_like_pe(std::string_view b) { return b.size() >= 2 && b[0] == 'M' && b[1] == 'Z'; }

std::string_view pe_machine_name(uint16_t machine) {
    switch (machine) {
        case 0x8664: return "AMD64";
        case 0xAA64: return "ARM64";
        case 0x014C: return "x86";
        default: return "";
    }
}

Expected<ObjectFile> parse_pe_sections(std::string_view b, std::string_view name) {
    auto bad = [&](std::string reason) {
        return fail(ExitCode::BadInput, "binary.bad_section_table", {{"path", std::string(name)}, {"reason", std::move(reason)}});
    };
    auto lfanew = bytes::u32(b, 0x3C);
    if (!looks_like_pe(b) || !lfanew) return fail(ExitCode::BadInput, "binary.truncated_header", {{"path", std::string(name)}});
    auto sig = bytes::slice(b, *lfanew, 4);
    if (!sig || *sig != std::string_view("PE\0\0", 4)) return bad("no PE signature (an MS-DOS program?)");
    const uint64_t coff = uint64_t(*lfanew) + 4;
    if (!bytes::fits(b.size(), coff, 20)) return bad("COFF header past the end of the file");
    ObjectFile out;
    out.format = BinaryFormat::Pe;
    out.machine = bytes::le_at<uint16_t>(b, coff);
    const uint16_t nsections = bytes::le_at<uint16_t>(b, coff + 2);
    const uint32_t symtab = bytes::le_at<uint32_t>(b, coff + 8);
    const uint32_t nsyms = bytes::le_at<uint32_t>(b, coff + 12);
    const uint16_t opt_size = bytes::le_at<uint16_t>(b, coff + 16);
    const uint64_t table = coff + 20 + opt_size;
    if (!bytes::fits(b.size(), table, uint64_t(nsections) * 40))
        return bad(std::to_string(nsections) + " sections do not fit in the file");
    // Long names "/<decimal offset>" point into the string table after the COFF symbols.
    const uint64_t strtab = uint64_t(symtab) + uint64_t(nsyms) * 18;
    for (uint16_t i = 0; i < nsections; ++i) {
        const uint64_t at = table + uint64_t(i) * 40;
        ObjectSection s;
        s.name = std::string(bytes::cstr(b.substr(static_cast<size_t>(at), 8), 0, 8));
        if (s.name.size() > 1 && s.name[0] == '/' && symtab != 0) {
            if (auto off = str::to_int(std::string_view(s.name).substr(1)); off && *off >= 0)
                s.name = std::string(bytes::cstr(b, strtab + static_cast<uint64_t>(*off)));
        }
        const uint32_t vsize = bytes::le_at<uint32_t>(b, at + 8);
        const uint32_t raw_size = bytes::le_at<uint32_t>(b, at + 16);
        s.offset = bytes::le_at<uint32_t>(b, at + 20);
        // Raw data is padded to the file alignment; the virtual size is the real length.
        s.size = (vsize != 0 && vsize < raw_size) ? vsize : raw_size;
        out.sections.push_back(std::move(s));
    }
    return out;
}

}  // namespace envfix::probe
