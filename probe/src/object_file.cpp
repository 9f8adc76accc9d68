#include "object_file.hpp"

#include <algorithm>

#include "envfix/common/bytes.hpp"
#include "envfix/common/hash.hpp"
#include "fatbin.hpp"

namespace envfix::probe {

bool looks_like_fatbin(std::string_view b) { return bytes::u32(b, 0) == fatbin::kMagic; }

Expected<ObjectFile> parse_object_file(std::string_view bytes, std::string_view name) {
    if (looks_like_elf(bytes)) return parse_elf_sections(bytes, name);
    if (looks_like_pe(bytes)) return parse_pe_sections(bytes, name);
    const std::string head = to_hex(reinterpret_cast<const uint8_t*>(bytes.data()), std::min<size_t>(bytes.size(), 4));
    return fail(ExitCode::BadInput, "binary.not_a_library", {{"path", std::string(name)}, {"magic", head.empty() ? "(empty)" : head}});
}

}  // namespace envfix::probe
