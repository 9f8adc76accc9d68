#include "fixtures.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include "support.hpp"

namespace envfix::test {

// envfix's main() ignores SIGPIPE (install_interrupt_handler): an interpreter that exits
// before reading the script on its stdin (Python 2 refusing -I) must not kill the caller.
// These test binaries run the library without that main, so they do the same.
static const bool kIgnoreSigpipe = [] {
    ::signal(SIGPIPE, SIG_IGN);
    return true;
}();

std::filesystem::path fatbin_fixture(const std::string& name) { return source_dir() / "tests/fixtures/fatbin" / name; }

std::string fixture_bytes(const std::string& name) {
    auto p = fatbin_fixture(name);
    EXPECT_TRUE(std::filesystem::exists(p)) << p;
    return read_text(p);
}

void put_u16(std::string& b, uint64_t off, uint16_t v) {
    for (int i = 0; i < 2; ++i) b[off + i] = static_cast<char>(v >> (8 * i));
}
void put_u32(std::string& b, uint64_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[off + i] = static_cast<char>(v >> (8 * i));
}
void put_u64(std::string& b, uint64_t off, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[off + i] = static_cast<char>(v >> (8 * i));
}
uint32_t get_u32(std::string_view b, uint64_t off) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(static_cast<unsigned char>(b[off + i])) << (8 * i);
    return v;
}
static uint64_t get_u64(std::string_view b, uint64_t off) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(b[off + i])) << (8 * i);
    return v;
}
static uint16_t get_u16(std::string_view b, uint64_t off) {
    return static_cast<uint16_t>(static_cast<unsigned char>(b[off]) | (static_cast<unsigned char>(b[off + 1]) << 8));
}

SectionRange elf_section(std::string_view b, const std::string& name) {
    const uint64_t shoff = get_u64(b, 0x28);
    const uint16_t entsize = get_u16(b, 0x3A), count = get_u16(b, 0x3C), strndx = get_u16(b, 0x3E);
    const uint64_t strtab = get_u64(b, shoff + strndx * entsize + 24);
    for (uint16_t i = 0; i < count; ++i) {
        const uint64_t at = shoff + uint64_t(i) * entsize;
        auto n = b.substr(strtab + get_u32(b, at));
        n = n.substr(0, n.find('\0'));
        if (n == name) return {get_u64(b, at + 24), get_u64(b, at + 32)};
    }
    ADD_FAILURE() << "no section " << name;
    return {};
}

std::string lz4_literals(std::string_view data) {
    std::string out;
    size_t n = data.size();
    out += static_cast<char>((n >= 15 ? 15 : n) << 4);
    if (n >= 15) {
        size_t rest = n - 15;
        while (rest >= 255) {
            out += static_cast<char>(255);
            rest -= 255;
        }
        out += static_cast<char>(rest);
    }
    out += data;
    return out;
}

std::string make_fatbin(uint16_t kind, uint32_t arch, uint16_t ver_major, uint16_t ver_minor, uint64_t flags,
                        std::string_view payload, uint64_t decompressed_size) {
    std::string padded(payload);
    padded.resize((payload.size() + 7) & ~size_t(7), '\0');
    std::string entry(64, '\0');
    put_u16(entry, 0, kind);
    put_u16(entry, 2, 0x0101);
    put_u32(entry, 4, 64);
    put_u64(entry, 8, padded.size());
    put_u32(entry, 0x10, (flags & 0xA000) ? static_cast<uint32_t>(payload.size()) : 0);
    put_u16(entry, 0x18, ver_minor);
    put_u16(entry, 0x1A, ver_major);
    put_u32(entry, 0x1C, arch);
    put_u64(entry, 0x28, flags);
    put_u64(entry, 0x38, decompressed_size);
    std::string c(16, '\0');
    put_u32(c, 0, 0xBA55ED50);
    put_u16(c, 4, 1);
    put_u16(c, 6, 16);
    put_u64(c, 8, entry.size() + padded.size());
    return c + entry + padded;
}

std::string cubin_head(int abi, uint32_t e_flags) {
    std::string h(64, '\0');
    h.replace(0, 4, "\x7f" "ELF");
    h[4] = 2;  // ELF64
    h[5] = 1;  // little-endian
    h[6] = 1;
    h[7] = abi >= 8 ? 0x41 : 0x33;
    h[8] = static_cast<char>(abi);
    put_u16(h, 0x10, 2);    // ET_EXEC
    put_u16(h, 0x12, 190);  // EM_CUDA
    put_u32(h, 0x30, e_flags);
    return h;
}

}  // namespace envfix::test
