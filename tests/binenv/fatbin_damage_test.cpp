// Truncated, damaged and hostile inputs, generated from the fixtures: never a crash or a hang;
// a clear error when the file is not a readable library, a partial result flagged as such when
// only its GPU code is damaged.
#include <gtest/gtest.h>

#include <random>

#include "envfix/probe/binary_archs.hpp"
#include "fixtures.hpp"

using namespace envfix;
using namespace envfix::probe;

namespace {

std::string keys(const BinaryArchs& a) {
    std::string out;
    for (const auto& m : a.problems) out += m.key + " ";
    return out;
}
bool has_problem(const BinaryArchs& a, const std::string& key) { return keys(a).find(key) != std::string::npos; }

struct BadFile {
    std::string name;
    std::string bytes;
    std::string key;
};

TEST(FatbinDamage, FilesThatAreNotLibrariesAreErrorsNamingTheFile) {
    std::string elf = test::fixture_bytes("sass_75_80_86.so");
    std::string big_endian = elf;
    big_endian[5] = 2;
    std::string bad_pe = test::fixture_bytes("win_long_names_86.dll");
    test::put_u32(bad_pe, 0x3C, 0x7FFFFFF0);  // e_lfanew past the end
    std::string huge_count = elf;
    test::put_u16(huge_count, 0x3C, 0xFFFF);
    std::string small_entsize = elf;
    test::put_u16(small_entsize, 0x3A, 8);
    std::string table_outside = elf;
    test::put_u64(table_outside, 0x28, 1ull << 62);
    const std::vector<BadFile> cases = {
        {"empty", "", "binary.not_a_library"},
        {"text", "torch==2.7.0\n", "binary.not_a_library"},
        {"elf-magic-only", "\x7f" "ELF", "binary.truncated_header"},
        {"big-endian", big_endian, "binary.unsupported_elf"},
        {"pe-lfanew", bad_pe, "binary.bad_section_table"},
        {"mz-only", "MZ", "binary.truncated_header"},
        {"huge-section-count", huge_count, "binary.bad_section_table"},
        {"small-entsize", small_entsize, "binary.bad_section_table"},
        {"table-outside", table_outside, "binary.bad_section_table"},
        {"cut-before-section-table", elf.substr(0, elf.size() - 200), "binary.bad_section_table"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto r = parse_binary_archs(c.bytes, "/x/" + c.name);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, ExitCode::BadInput);
        EXPECT_EQ(r.error().message.key, c.key);
        auto text = render(r.error().message, Lang::En);
        EXPECT_NE(text.find("/x/" + c.name), std::string::npos) << text;
        EXPECT_EQ(text.find('\n'), std::string::npos) << "one line: " << text;
    }
}

TEST(FatbinDamage, BadMagicInOneContainerSkipsToTheNext) {
    std::string b = test::fixture_bytes("multi_container.so");
    auto sec = test::elf_section(b, ".nv_fatbin");
    auto first = parse_binary_archs(b, "m");
    ASSERT_TRUE(first);
    // The second container starts right after the first (16-byte header + fat size).
    uint64_t second = sec.offset + 16 + (test::get_u32(b, sec.offset + 8));
    ASSERT_EQ(test::get_u32(b, second), 0xBA55ED50u);
    test::put_u32(b, second, 0xDEADBEEF);
    auto r = parse_binary_archs(b, "m");
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->partial);
    EXPECT_TRUE(has_problem(*r, "binary.problem.bad_magic")) << keys(*r);
    EXPECT_EQ(r->containers, 4);  // the damaged one is skipped, the three after it are read
    EXPECT_EQ(r->sass[0].cubins, 3);
}

TEST(FatbinDamage, ContainerSizesPastTheSectionAreFlagged) {
    std::string b = test::fixture_bytes("sass_75_80_86.so");
    auto sec = test::elf_section(b, ".nv_fatbin");
    test::put_u64(b, sec.offset + 8, 1ull << 40);
    auto r = parse_binary_archs(b, "c");
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->partial);
    EXPECT_TRUE(has_problem(*r, "binary.problem.container_truncated")) << keys(*r);
    EXPECT_EQ(r->sass.size(), 3u);  // the entries that exist are still read
}

TEST(FatbinDamage, ZeroSizedContainerIsWalkedPast) {
    std::string b = test::fixture_bytes("multi_container.so");
    auto sec = test::elf_section(b, ".nv_fatbin");
    test::put_u64(b, sec.offset + 8, 0);
    auto r = parse_binary_archs(b, "z");
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->partial);  // the first container's entries now sit where a magic belongs
    EXPECT_GE(r->containers, 4);
}

TEST(FatbinDamage, EntryHeaderAndPayloadSizes) {
    const std::string orig = test::fixture_bytes("sass_75_80_86.so");
    auto sec = test::elf_section(orig, ".nv_fatbin");
    const uint64_t entry = sec.offset + 16;
    {
        std::string b = orig;
        test::put_u32(b, entry + 4, 0);  // header size 0
        auto r = parse_binary_archs(b, "e");
        ASSERT_TRUE(r);
        EXPECT_TRUE(has_problem(*r, "binary.problem.bad_entry_header")) << keys(*r);
        EXPECT_TRUE(r->sass.empty());
    }
    {
        std::string b = orig;
        test::put_u64(b, entry + 8, ~0ull);  // payload past everything
        auto r = parse_binary_archs(b, "e");
        ASSERT_TRUE(r);
        EXPECT_TRUE(has_problem(*r, "binary.problem.entry_truncated")) << keys(*r);
        ASSERT_EQ(r->sass.size(), 1u);  // its header was whole
    }
    {
        std::string b = orig;
        test::put_u32(b, entry + 0x1C, 0);  // no architecture
        auto r = parse_binary_archs(b, "e");
        ASSERT_TRUE(r);
        EXPECT_TRUE(has_problem(*r, "binary.problem.bad_arch")) << keys(*r);
        EXPECT_EQ(r->sass.size(), 2u);
    }
}

TEST(FatbinDamage, SectionTableEntriesPointingOutside) {
    const std::string orig = test::fixture_bytes("sass_75_80_86.so");
    // Find the .nv_fatbin section header to change its size and offset.
    const uint64_t shoff = *reinterpret_cast<const uint64_t*>(orig.data() + 0x28);
    const uint16_t count = *reinterpret_cast<const uint16_t*>(orig.data() + 0x3C);
    auto sec = test::elf_section(orig, ".nv_fatbin");
    uint64_t hdr = 0;
    for (uint16_t i = 0; i < count; ++i)
        if (*reinterpret_cast<const uint64_t*>(orig.data() + shoff + i * 64 + 24) == sec.offset) hdr = shoff + i * 64;
    ASSERT_NE(hdr, 0u);
    {
        std::string b = orig;
        test::put_u64(b, hdr + 32, 1ull << 50);
        auto r = parse_binary_archs(b, "s");
        ASSERT_TRUE(r);
        EXPECT_TRUE(has_problem(*r, "binary.problem.section_outside")) << keys(*r);
    }
    {
        std::string b = orig;
        test::put_u64(b, hdr + 24, 1ull << 50);
        auto r = parse_binary_archs(b, "s");
        ASSERT_TRUE(r);
        EXPECT_TRUE(r->partial);
        EXPECT_TRUE(r->sass.empty());
    }
    {
        // A second section header describing the same bytes under the same name.
        std::string b = orig;
        uint64_t other = (hdr == shoff + 64) ? shoff + 128 : shoff + 64;
        b.replace(other, 64, orig.substr(hdr, 64));
        auto r = parse_binary_archs(b, "s");
        ASSERT_TRUE(r);
        EXPECT_TRUE(has_problem(*r, "binary.problem.section_overlap")) << keys(*r);
        EXPECT_EQ(r->cubins, 3);  // not 6
    }
}

TEST(FatbinDamage, NoSectionTableFallsBackToScanning) {
    std::string b = test::fixture_bytes("sass_120_ptx_120.so");
    test::put_u64(b, 0x28, 0);  // e_shoff = 0, as sstrip leaves a file
    auto r = parse_binary_archs(b, "scan");
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->scanned);
    EXPECT_EQ(r->arch_list(), (std::vector<std::string>{"sm_120", "compute_120"}));
}

TEST(FatbinDamage, UndecodableCompressedPayloadKeepsTheCountAndSaysSo) {
    // An ABI-7 (CUDA 12) sm_90 cubin without variant bit: its payload must be decoded to tell
    // sm_90 from sm_90a, and here it cannot be.
    for (uint64_t compression : {0x2000ull, 0x8000ull}) {
        auto fat = test::make_fatbin(2, 90, 1, 7, 0x11 | compression, std::string(40, '\xFF'), 4096);
        auto r = parse_binary_archs(fat, "zs");
        ASSERT_TRUE(r);
        EXPECT_TRUE(r->partial);
        EXPECT_TRUE(has_problem(*r, "binary.problem.bad_payload")) << keys(*r);
        EXPECT_EQ(r->sass.front().arch.sm_tag(), "sm_90");
    }
}

TEST(FatbinDamage, EveryTruncationOfAFatbinSectionIsSafe) {
    for (const char* name : {"raw_86_ptx86.fatbin", "lz4_80_90a_ptx80.so", "zstd_90_100a_103a_120f_ptx120.so"}) {
        const std::string orig = test::fixture_bytes(name);
        auto full = parse_binary_archs(orig, name);
        ASSERT_TRUE(full);
        if (std::string(name).ends_with(".fatbin")) {
            for (size_t n = 4; n < orig.size(); n += 3) {
                auto r = parse_binary_archs(std::string_view(orig).substr(0, n), name);
                ASSERT_TRUE(r) << n;
                EXPECT_TRUE(r->partial) << n;
            }
            continue;
        }
        // Shorten the .nv_fatbin section's recorded size instead of the file (its section
        // table sits at the end).
        auto sec = test::elf_section(orig, ".nv_fatbin");
        const uint64_t shoff = *reinterpret_cast<const uint64_t*>(orig.data() + 0x28);
        const uint16_t count = *reinterpret_cast<const uint16_t*>(orig.data() + 0x3C);
        uint64_t hdr = 0;
        for (uint16_t i = 0; i < count; ++i)
            if (*reinterpret_cast<const uint64_t*>(orig.data() + shoff + i * 64 + 24) == sec.offset) hdr = shoff + i * 64;
        for (uint64_t n = 0; n < sec.size; n += 5) {
            std::string b = orig;
            test::put_u64(b, hdr + 32, n);
            auto r = parse_binary_archs(b, name);
            ASSERT_TRUE(r) << n;
            if (n >= 16) {
                EXPECT_TRUE(r->partial) << n;
            }
        }
    }
}

TEST(FatbinDamage, RandomByteFlipsNeverCrash) {
    std::mt19937 rng(1234);
    for (const char* name : {"multi_container.so", "lz4_80_90a_ptx80.so", "win_short_names_86.dll", "raw_86_ptx86.fatbin"}) {
        const std::string orig = test::fixture_bytes(name);
        for (int round = 0; round < 400; ++round) {
            std::string b = orig;
            const int flips = 1 + static_cast<int>(rng() % 8);
            for (int f = 0; f < flips; ++f) b[rng() % b.size()] = static_cast<char>(rng());
            auto r = parse_binary_archs(b, name);
            if (r) {
                EXPECT_LE(r->problems.size(), 11u);
            }
        }
    }
}

TEST(FatbinDamage, ProblemListIsBounded) {
    // A section of many bad containers: every one is a problem, at most 10 are kept.
    std::string fat;
    for (int i = 0; i < 50; ++i) {
        std::string c = test::make_fatbin(2, 80, 1, 8, 0x11, std::string(64, 'x'));
        test::put_u32(c, 16 + 4, 8);  // entry header size 8: damaged
        fat += c;
    }
    auto r = parse_binary_archs(fat, "many");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->problems.size(), 11u);
    EXPECT_EQ(r->problems.back().key, "binary.problem.more");
    EXPECT_EQ(r->problems.back().arg("count"), "40");
}

}  // namespace
