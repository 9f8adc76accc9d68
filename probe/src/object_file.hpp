#pragma once
// Section tables of host libraries: ELF (Linux .so) and PE/COFF (Windows .dll/.pyd/.exe).
// Pure: bytes in, names and file ranges out. Only what the fatbin reader and the environment
// reader need (names, file offsets, sizes, machine).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/probe/binary_archs.hpp"

namespace envfix::probe {

struct ObjectSection {
    std::string name;
    uint64_t offset = 0;  // in the file
    uint64_t size = 0;    // bytes in the file (0 for ELF SHT_NOBITS)
};

struct ObjectFile {
    BinaryFormat format = BinaryFormat::Elf;
    uint16_t machine = 0;  // ELF e_machine (62 x86-64, 183 aarch64) / PE Machine (0x8664 ...)
    bool has_section_table = true;
    std::vector<ObjectSection> sections;
};

// Errors (ExitCode::BadInput) name `name`: not ELF/PE/fatbin, unsupported ELF kind, section
// table outside the file.
Expected<ObjectFile> parse_object_file(std::string_view bytes, std::string_view name);
Expected<ObjectFile> parse_elf_sections(std::string_view bytes, std::string_view name);
Expected<ObjectFile> parse_pe_sections(std::string_view bytes, std::string_view name);

bool looks_like_elf(std::string_view bytes);
bool looks_like_pe(std::string_view bytes);
bool looks_like_fatbin(std::string_view bytes);

// PE machine -> Python's platform.machine() on Windows ("AMD64", "ARM64", "x86"); "" unknown.
std::string_view pe_machine_name(uint16_t machine);

}  // namespace envfix::probe
