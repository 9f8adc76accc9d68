#pragma once
// Fatbin fixtures (tests/fixtures/fatbin, made by make-fixtures.sh) and helpers that build or
// damage binaries for the tests.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace envfix::test {

std::filesystem::path fatbin_fixture(const std::string& name);
std::string fixture_bytes(const std::string& name);

// File offset and size of the first section called `name` in an ELF image (fails the test if
// absent).
struct SectionRange {
    uint64_t offset = 0;
    uint64_t size = 0;
};
SectionRange elf_section(std::string_view elf, const std::string& name);

void put_u16(std::string& b, uint64_t off, uint16_t v);
void put_u32(std::string& b, uint64_t off, uint32_t v);
void put_u64(std::string& b, uint64_t off, uint64_t v);
uint32_t get_u32(std::string_view b, uint64_t off);

// An LZ4 block holding `data` as literals only (valid LZ4; what a compressor emits for
// incompressible input).
std::string lz4_literals(std::string_view data);

// A raw fatbin: one container with one entry. `payload` is stored as given.
std::string make_fatbin(uint16_t kind, uint32_t arch, uint16_t ver_major, uint16_t ver_minor, uint64_t flags,
                        std::string_view payload, uint64_t decompressed_size = 0);

// The first 64 bytes of a CUDA cubin: EM_CUDA, given ABI version and e_flags.
std::string cubin_head(int abi, uint32_t e_flags);

}  // namespace envfix::test
