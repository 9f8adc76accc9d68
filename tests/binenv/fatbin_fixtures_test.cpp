// Every fixture of tests/fixtures/fatbin read as users' libraries are read; expected values
// come from how make-fixtures.sh built each file (README.md there).
#include <gtest/gtest.h>

#include "envfix/probe/binary_archs.hpp"
#include "fixtures.hpp"

using namespace envfix;
using namespace envfix::probe;

namespace {

struct Sass {
    std::string arch;
    int cubins;
    int containers;
    bool primary;
};
struct Ptx {
    std::string arch;
    std::string isa;
    int entries;
    bool primary;
};
struct Case {
    std::string file;
    BinaryFormat format;
    int containers;
    std::vector<Sass> sass;
    std::vector<Ptx> ptx;
    std::vector<std::string> arch_list;
    int lz4 = 0;
    int zstd = 0;
    int relocatable = 0;
};

const std::vector<Case> kCases = {
    {"sass_75_80_86.so", BinaryFormat::Elf, 1,
     {{"sm_75", 1, 1, true}, {"sm_80", 1, 1, true}, {"sm_86", 1, 1, true}}, {}, {"sm_75", "sm_80", "sm_86"}},
    {"sass_90a.so", BinaryFormat::Elf, 1, {{"sm_90a", 1, 1, true}}, {}, {"sm_90a"}},
    {"sass_120_ptx_120.so", BinaryFormat::Elf, 1, {{"sm_120", 1, 1, true}}, {{"compute_120", "9.0", 1, true}},
     {"sm_120", "compute_120"}},
    {"ptx_only_80.so", BinaryFormat::Elf, 1, {}, {{"compute_80", "9.0", 1, true}}, {"compute_80"}},
    {"lz4_80_90a_ptx80.so", BinaryFormat::Elf, 1, {{"sm_80", 1, 1, true}, {"sm_90a", 1, 1, true}},
     {{"compute_80", "9.0", 1, true}}, {"sm_80", "sm_90a", "compute_80"}, 3, 0},
    // sm_90 carries no variant bit; its ABI-8 cubin header says nvcc 13 wrote it, which marks
    // variants in the entry flags (binary_archs.cpp, container_marks_variants).
    {"zstd_90_100a_103a_120f_ptx120.so", BinaryFormat::Elf, 1,
     {{"sm_90", 1, 1, true}, {"sm_100a", 1, 1, true}, {"sm_103a", 1, 1, true}, {"sm_120f", 1, 1, true}},
     {{"compute_120", "9.0", 1, true}}, {"sm_90", "sm_100a", "sm_103a", "sm_120f", "compute_120"}, 0, 5},
    {"multi_container.so", BinaryFormat::Elf, 5,
     {{"sm_80", 4, 4, true}, {"sm_90", 4, 4, true}, {"sm_90a", 1, 1, false}, {"sm_100a", 1, 1, false}}, {},
     {"sm_80", "sm_90"}, 0, 10},
    {"relocatable_86.so", BinaryFormat::Elf, 2, {{"sm_86", 2, 2, true}}, {}, {"sm_86"}, 0, 0, 2},
    // The shape of torch 2.11.0+cu130's libtorch_cuda.so: get_arch_list() = sm_75 ... sm_120.
    {"torch211_cu130_like.so", BinaryFormat::Elf, 9,
     {{"sm_75", 6, 6, true}, {"sm_80", 6, 6, true}, {"sm_86", 6, 6, true}, {"sm_90", 6, 6, true},
      {"sm_90a", 1, 1, false}, {"sm_100", 6, 6, true}, {"sm_100a", 1, 1, false}, {"sm_103a", 1, 1, false},
      {"sm_120", 6, 6, true}, {"sm_120a", 1, 1, false}, {"sm_121a", 1, 1, false}},
     {}, {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"}, 0, 41},
    // Real container and entry headers of torch 2.11.0+cu130 (payloads cut; trim_real_sample.py).
    {"real_torch211_cu130_headers.fatbin", BinaryFormat::Fatbin, 3,
     {{"sm_75", 3, 3, true}, {"sm_80", 3, 3, true}, {"sm_86", 3, 3, true}, {"sm_90", 3, 3, true},
      {"sm_100", 3, 3, true}, {"sm_120", 3, 3, true}},
     {}, {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"}, 0, 18},
    {"rewritten_sass_50_60_61_70.so", BinaryFormat::Elf, 1,
     {{"sm_50", 1, 1, true}, {"sm_60", 1, 1, true}, {"sm_61", 1, 1, true}, {"sm_70", 1, 1, true}}, {},
     {"sm_50", "sm_60", "sm_61", "sm_70"}},
    // ABI-7 cubins (CUDA <= 12): sm_90 is read from e_flags and found plain.
    {"rewritten_torch26_cu124_like.so", BinaryFormat::Elf, 1,
     {{"sm_50", 1, 1, true}, {"sm_60", 1, 1, true}, {"sm_70", 1, 1, true}, {"sm_75", 1, 1, true},
      {"sm_80", 1, 1, true}, {"sm_86", 1, 1, true}, {"sm_90", 1, 1, true}},
     {}, {"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"}},
    {"rewritten_ptx_50_isa78.so", BinaryFormat::Elf, 1, {}, {{"compute_50", "7.8", 1, true}}, {"compute_50"}},
    {"raw_86_ptx86.fatbin", BinaryFormat::Fatbin, 1, {{"sm_86", 1, 1, true}}, {{"compute_86", "9.0", 1, true}},
     {"sm_86", "compute_86"}},
    {"win_long_names_86.dll", BinaryFormat::Pe, 1, {{"sm_86", 1, 1, true}}, {{"compute_86", "9.0", 1, true}},
     {"sm_86", "compute_86"}},
    {"win_short_names_86.dll", BinaryFormat::Pe, 1, {{"sm_86", 1, 1, true}}, {{"compute_86", "9.0", 1, true}},
     {"sm_86", "compute_86"}},
    {"host_only.so", BinaryFormat::Elf, 0, {}, {}, {}},
};

class Fixture : public ::testing::TestWithParam<Case> {};

TEST_P(Fixture, ReadsWhatNvccPutThere) {
    const Case& c = GetParam();
    auto r = read_binary_archs(test::fatbin_fixture(c.file));
    ASSERT_TRUE(r) << render(r.error().message, Lang::En);
    EXPECT_EQ(r->format, c.format);
    EXPECT_FALSE(r->partial) << (r->problems.empty() ? "" : render(r->problems[0], Lang::En));
    EXPECT_FALSE(r->scanned);
    EXPECT_EQ(r->containers, c.containers);
    ASSERT_EQ(r->sass.size(), c.sass.size());
    for (size_t i = 0; i < c.sass.size(); ++i) {
        SCOPED_TRACE(c.sass[i].arch);
        EXPECT_EQ(r->sass[i].arch.sm_tag(), c.sass[i].arch);
        EXPECT_EQ(r->sass[i].cubins, c.sass[i].cubins);
        EXPECT_EQ(r->sass[i].containers, c.sass[i].containers);
        EXPECT_EQ(r->sass[i].primary, c.sass[i].primary);
    }
    ASSERT_EQ(r->ptx.size(), c.ptx.size());
    for (size_t i = 0; i < c.ptx.size(); ++i) {
        EXPECT_EQ(r->ptx[i].arch.compute_tag(), c.ptx[i].arch);
        EXPECT_EQ(r->ptx[i].isa.to_string(), c.ptx[i].isa);
        EXPECT_EQ(r->ptx[i].entries, c.ptx[i].entries);
        EXPECT_EQ(r->ptx[i].primary, c.ptx[i].primary);
    }
    EXPECT_EQ(r->arch_list(), c.arch_list);
    EXPECT_EQ(r->lz4_entries, c.lz4);
    EXPECT_EQ(r->zstd_entries, c.zstd);
    EXPECT_EQ(r->relocatable_containers, c.relocatable);
    EXPECT_EQ(r->has_gpu_code(), !c.sass.empty() || !c.ptx.empty());
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    std::string n = info.param.file;
    for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
}

INSTANTIATE_TEST_SUITE_P(Fatbin, Fixture, ::testing::ValuesIn(kCases), case_name);

// The fatbin sections of two ELF fixtures inside MinGW-made DLLs, as Windows wheels carry them
// (make-fixtures.sh, 14b): read the same.
const std::vector<Case> kPeCases = [] {
    std::vector<Case> out;
    for (const auto& [elf, dll] : {std::pair{"zstd_90_100a_103a_120f_ptx120.so", "win_zstd_90_100a_103a_120f_ptx120.dll"},
                                   std::pair{"torch211_cu130_like.so", "win_torch211_cu130_like.dll"}})
        for (const auto& c : kCases)
            if (c.file == elf) {
                out.push_back(c);
                out.back().file = dll;
                out.back().format = BinaryFormat::Pe;
            }
    return out;
}();

INSTANTIATE_TEST_SUITE_P(FatbinInPe, Fixture, ::testing::ValuesIn(kPeCases), case_name);

TEST(Fatbin, ParsesFromBytesWithoutTheFile) {
    auto bytes = test::fixture_bytes("sass_75_80_86.so");
    auto r = parse_binary_archs(bytes, "in-memory");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->cubins, 3);
    EXPECT_EQ(r->code_containers, 1);
}

TEST(Fatbin, ExtrasAndPrimariesOfTheTorchLikeLibrary) {
    auto r = read_binary_archs(test::fatbin_fixture("torch211_cu130_like.so"));
    ASSERT_TRUE(r);
    std::vector<std::string> extras;
    for (const auto& t : r->extra_sass()) extras.push_back(t.sm_tag());
    EXPECT_EQ(extras, (std::vector<std::string>{"sm_90a", "sm_100a", "sm_103a", "sm_120a", "sm_121a"}));
    EXPECT_EQ(r->primary_sass().size(), 6u);
    EXPECT_TRUE(r->primary_ptx().empty());
}

}  // namespace

// A reader from a cold disk is told of the bytes where headers lie close together before the walk
// reads them, and not of a large payload the walk steps over (docs/binaries.md).
TEST(FatbinWalk, CloseHeadersAreToldOfBeforeTheyAreRead) {
    auto container = [](size_t payload) { return test::make_fatbin(2, 86, 1, 7, 0x11, std::string(payload, 'x')); };
    std::string b = container(1024) + container(1024);  // 1 104 bytes each
    b += container(1u << 20);
    const uint64_t last = b.size();
    b += container(1024) + container(1024);
    std::vector<std::pair<uint64_t, uint64_t>> told;
    auto with = parse_binary_archs(b, "t", [&](uint64_t offset, uint64_t length) { told.emplace_back(offset, length); });
    auto without = parse_binary_archs(b, "t");
    ASSERT_TRUE(with);
    ASSERT_TRUE(without);
    EXPECT_EQ(with->containers, 5);
    EXPECT_EQ(with->arch_list(), without->arch_list());
    EXPECT_EQ(with->cubins, without->cubins);
    const std::vector<std::pair<uint64_t, uint64_t>> expected = {{0, 64u << 10}, {last, 2 * 1104}};
    EXPECT_EQ(told, expected);
}
