// Decoding the head of compressed cubins (LZ4 by hand, zstd through libzstd) and reading the
// architecture variant from a cubin's ELF header.
#include <gtest/gtest.h>

#include "cubin_header.hpp"
#include "decompress_head.hpp"
#include "envfix/probe/binary_archs.hpp"
#include "fatbin.hpp"
#include "fixtures.hpp"

using namespace envfix;
using namespace envfix::probe;

namespace {

// The entries of the first container in a fixture's .nv_fatbin.
std::vector<fatbin::Entry> entries_of(const std::string& bytes) {
    auto sec = test::elf_section(bytes, ".nv_fatbin");
    fatbin::Walk w;
    fatbin::walk_section(std::string_view(bytes).substr(sec.offset, sec.size), "f", ".nv_fatbin", w);
    EXPECT_FALSE(w.containers.empty());
    return w.containers.empty() ? std::vector<fatbin::Entry>{} : w.containers[0].entries;
}

struct Lz4Case {
    std::string name;
    std::string block;
    size_t want;
    std::optional<std::string> expect;
};

TEST(Lz4, BlockHeadsTable) {
    const std::string match_block = std::string("\x34" "abc" "\x03\x00" "\x50" "WXYZ!", 12);
    const std::vector<Lz4Case> cases = {
        {"literals", test::lz4_literals("hello"), 5, "hello"},
        {"long literal run", test::lz4_literals(std::string(300, 'q')), 300, std::string(300, 'q')},
        {"overlapping match", match_block, 16, "abcabcabcabWXYZ!"},
        {"prefix only", match_block, 5, "abcab"},
        {"wants more than exists", test::lz4_literals("abc"), 8, std::nullopt},
        {"offset zero", std::string("\x14" "a" "\x00\x00" "\x00", 5), 6, std::nullopt},
        {"offset before start", std::string("\x14" "a" "\x05\x00" "\x00", 5), 6, std::nullopt},
        {"literals cut off", std::string("\x50" "ab", 3), 2, std::nullopt},
        {"length run cut off", std::string("\xF0\xFF\xFF", 3), 20, std::nullopt},
        {"offset cut off", std::string("\x14" "a" "\x01", 3), 6, std::nullopt},
        {"empty", "", 1, std::nullopt},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        EXPECT_EQ(lz4_block_head(c.block, c.want), c.expect);
    }
}

TEST(Lz4, DecodesTheCubinHeadOfRealNvccOutput) {
    auto b = test::fixture_bytes("lz4_80_90a_ptx80.so");
    int cubins = 0;
    for (const auto& e : entries_of(b)) {
        ASSERT_TRUE(e.flags & fatbin::kFlagLz4);
        auto head = lz4_block_head(e.compressed_bytes(), 64);
        ASSERT_TRUE(head) << "arch " << e.arch;
        if (e.kind != fatbin::kKindElf) {
            EXPECT_NE(head->find(".version"), std::string::npos);  // PTX text
            continue;
        }
        auto t = cubin_target(*head);
        ASSERT_TRUE(t);
        EXPECT_EQ(t->sm, static_cast<int>(e.arch));
        EXPECT_EQ(t->abi, 8);
        ++cubins;
    }
    EXPECT_EQ(cubins, 2);
}

TEST(Zstd, DecodesTheCubinHeadOfRealNvccOutput) {
    auto b = test::fixture_bytes("zstd_90_100a_103a_120f_ptx120.so");
    for (const auto& e : entries_of(b)) {
        ASSERT_TRUE(e.flags & fatbin::kFlagZstd);
        auto head = zstd_frame_head(e.compressed_bytes(), 64);
        ASSERT_TRUE(head);
        if (e.kind == fatbin::kKindElf) {
            auto t = cubin_target(*head);
            ASSERT_TRUE(t);
            EXPECT_EQ(t->sm, static_cast<int>(e.arch));
        }
    }
}

TEST(Zstd, DamagedOrShortFramesGiveNothing) {
    auto b = test::fixture_bytes("zstd_90_100a_103a_120f_ptx120.so");
    auto e = entries_of(b).at(0);
    auto frame = std::string(e.compressed_bytes());
    EXPECT_FALSE(zstd_frame_head(frame.substr(0, 6), 64));
    EXPECT_FALSE(zstd_frame_head("", 64));
    std::string bad = frame;
    bad[0] = 'X';
    EXPECT_FALSE(zstd_frame_head(bad, 64));
    EXPECT_FALSE(zstd_frame_head(frame, 1 << 20));  // the frame ends before 1 MiB
}

TEST(CubinHeader, EflagsLayoutsTable) {
    struct C {
        int abi;
        uint32_t flags;
        int sm;
        char variant;
    };
    const C cases[] = {
        {7, 0x4B054B, 75, 0},  {7, 0x5A055A, 90, 0},   {7, 0x5A0D5A, 90, 'a'},
        {8, 0x6005A04, 90, 0}, {8, 0x6006402, 100, 0}, {8, 0x600640A, 100, 'a'},
        {8, 0x6007802, 120, 0},
    };
    for (const auto& c : cases) {
        auto t = cubin_target(test::cubin_head(c.abi, c.flags));
        ASSERT_TRUE(t);
        EXPECT_EQ(t->sm, c.sm);
        EXPECT_EQ(t->variant, c.variant) << std::hex << c.flags;
    }
    std::string not_cuda = test::cubin_head(8, 0);
    test::put_u16(not_cuda, 0x12, 62);  // x86-64
    EXPECT_FALSE(cubin_target(not_cuda));
    EXPECT_FALSE(cubin_target("\x7f" "ELF"));
}

// CUDA 12 toolkits wrote sm_90a as ABI-7 cubins whose fatbin entry has no variant bit; the
// reader decodes the LZ4 payload to find 0x800 in e_flags.
TEST(CubinHeader, Abi7ArchSpecificFoundInsideLz4Payload) {
    for (bool accel : {true, false}) {
        auto head = test::cubin_head(7, accel ? 0x5A0D5A : 0x5A055A) + std::string(200, '\0');
        auto fat = test::make_fatbin(2, 90, 1, 7, 0x2011, test::lz4_literals(head), head.size());
        auto r = parse_binary_archs(fat, "abi7");
        ASSERT_TRUE(r);
        EXPECT_FALSE(r->partial);
        ASSERT_EQ(r->sass.size(), 1u);
        EXPECT_EQ(r->sass[0].arch.sm_tag(), accel ? "sm_90a" : "sm_90");
        EXPECT_EQ(r->lz4_entries, 1);
    }
}

TEST(CubinHeader, Abi8AcceleratorBitInUncompressedCubin) {
    auto fat = test::make_fatbin(2, 100, 1, 8, 0x11, test::cubin_head(8, 0x600640A));
    auto r = parse_binary_archs(fat, "abi8");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->arch_list(), std::vector<std::string>{"sm_100a"});
}

TEST(CubinHeader, VariantBitsOfTheEntryWinWithoutDecoding) {
    // Payload is garbage: with a variant bit in the entry flags nothing needs decoding.
    auto fat = test::make_fatbin(2, 120, 1, 8, 0x200011 | 0x8000, std::string(40, '\x07'), 4096);
    auto r = parse_binary_archs(fat, "flags");
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->partial);
    EXPECT_EQ(r->arch_list(), std::vector<std::string>{"sm_120f"});
}

TEST(CubinHeader, Nvcc13ContainersAreTrustedWithoutDecoding) {
    // An ABI-8 sm_80 cubin (nvcc 13) beside a zstd sm_90 entry whose payload is garbage: the
    // container's toolkit marks variants in the flags, so nothing is decoded.
    std::string fat = test::make_fatbin(2, 80, 1, 8, 0x11, test::cubin_head(8, 0x6005004));
    std::string second = test::make_fatbin(2, 90, 1, 8, 0x8011, std::string(40, '\x07'), 4096);
    // Move the second entry into the first container.
    std::string entry = second.substr(16);
    fat += entry;
    test::put_u64(fat, 8, fat.size() - 16);
    auto r = parse_binary_archs(fat, "nvcc13");
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->partial);
    EXPECT_EQ(r->arch_list(), (std::vector<std::string>{"sm_80", "sm_90"}));
    EXPECT_EQ(r->containers, 1);
}

}  // namespace
