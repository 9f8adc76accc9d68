// --gpu accepts capabilities, sm tags, PCI ids, chips and forgiving names.
#include <gtest/gtest.h>

#include "envfix/matrix/gpu_names.hpp"
#include "matrix_fixture.hpp"

using namespace envfix;
using namespace envfix::matrix;

namespace {
struct NameCase {
    const char* query;
    const char* cc;
    const char* name;  // "" = do not check
};
}  // namespace

TEST(GpuNames, ResolvesForgivingly) {
    const Matrix& m = test::real_matrix();
    for (auto c : {NameCase{"RTX 5090", "12.0", "GeForce RTX 5090"}, NameCase{"rtx5090", "12.0", "GeForce RTX 5090"},
                   NameCase{"GeForce RTX 5090 D", "12.0", "GeForce RTX 5090 D"}, NameCase{"NVIDIA GeForce RTX 5090", "12.0", "GeForce RTX 5090"},
                   NameCase{"NVIDIA H200", "9.0", "NVIDIA H200"}, NameCase{"H200 NVL", "9.0", "H200 NVL"},
                   NameCase{"1080 Ti", "6.1", "GeForce GTX 1080 Ti"}, NameCase{"gtx1080ti", "6.1", "GeForce GTX 1080 Ti"},
                   NameCase{"RTX 4090", "8.9", "GeForce RTX 4090"}, NameCase{"rtx 3090", "8.6", "GeForce RTX 3090"},
                   NameCase{"Tesla V100", "7.0", "Tesla V100"}, NameCase{"V100", "7.0", "V100"}, NameCase{"A100", "8.0", ""},
                   NameCase{"GTX 750", "5.0", "GeForce GTX 750"}, NameCase{"K80", "3.7", "Tesla K80"},
                   NameCase{"B300", "10.3", ""}, NameCase{"B200", "10.0", ""}, NameCase{"GB10", "12.1", ""},
                   NameCase{"DGX Spark", "12.1", "DGX Spark"}, NameCase{"Jetson Thor", "11.0", "Jetson Thor"},
                   NameCase{"Jetson AGX Thor", "11.0", ""},
                   NameCase{"Jetson AGX Orin", "8.7", "Jetson AGX Orin"}, NameCase{"T4", "7.5", "Tesla T4"},
                   NameCase{"L40S", "8.9", "L40S"}, NameCase{"RTX PRO 6000 Blackwell", "12.0", ""},
                   NameCase{"RTX 6000 Ada", "8.9", ""}, NameCase{"RTX A6000", "8.6", "RTX A6000"},
                   NameCase{"RTX 4090 Laptop", "8.9", ""}, NameCase{"RTX 3050 Laptop", "8.6", ""}})
    {
        auto g = resolve_gpu(m, c.query);
        ASSERT_TRUE(g) << c.query << ": " << render(g.error().message, Lang::En);
        EXPECT_EQ(g->cc.to_string(), c.cc) << c.query;
        if (*c.name) {
            EXPECT_EQ(g->name, c.name) << c.query;
        }
    }
}

TEST(GpuNames, CapabilitiesPciIdsAndChips) {
    const Matrix& m = test::real_matrix();
    struct Case { const char* q; const char* cc; };
    for (auto c : {Case{"8.9", "8.9"}, Case{"sm_61", "6.1"}, Case{"SM_120", "12.0"}, Case{"compute_90", "9.0"}, Case{"89", "8.9"},
                   Case{"120", "12.0"}, Case{"10de:2b85", "12.0"}, Case{"0x2684", "8.9"}, Case{"AD102", "8.9"},
                   Case{"gb202", "12.0"}, Case{"GA100", "8.0"}, Case{"9.9", "9.9"}}) {
        auto g = resolve_gpu(m, c.q);
        ASSERT_TRUE(g) << c.q;
        EXPECT_EQ(g->cc.to_string(), c.cc) << c.q;
    }
    // Bare numbers are model numbers unless they are a known architecture.
    EXPECT_FALSE(parse_capability(m, "4090"));
    EXPECT_FALSE(parse_capability(m, "750"));
    EXPECT_EQ(resolve_gpu(m, "750")->cc.to_string(), "5.0");  // GeForce GTX 750
    EXPECT_EQ(resolve_gpu(m, "10de:2b85")->pci_id, 0x2b85);
}

TEST(GpuNames, AmbiguousAndUnknownNamesAreErrors) {
    const Matrix& m = test::real_matrix();
    auto amb = resolve_gpu(m, "RTX 6000");  // Quadro RTX 6000 (Turing) or RTX 6000D (Blackwell)
    ASSERT_FALSE(amb);
    EXPECT_EQ(amb.error().code, ExitCode::BadInput);
    EXPECT_EQ(amb.error().message.key, "plan.gpu_ambiguous");
    std::string text = render(amb.error().message, Lang::En);
    EXPECT_NE(text.find("(7.5)"), std::string::npos) << text;
    EXPECT_NE(text.find("(12.0)"), std::string::npos) << text;

    auto unknown = resolve_gpu(m, "Voodoo 5 6000");
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, ExitCode::BadInput);
    EXPECT_EQ(render(unknown.error().message, Lang::En),
              "no GPU named \"Voodoo 5 6000\" in the GPU table; give its compute capability instead (for example --gpu 8.9)");
    EXPECT_FALSE(resolve_gpu(m, ""));
    EXPECT_FALSE(resolve_gpu(m, "10de:zzzz"));
}

TEST(GpuNames, TokensAndCandidates) {
    EXPECT_EQ(name_tokens("NVIDIA GeForce RTX 5090 D"), (std::vector<std::string>{"rtx", "5090", "d"}));
    EXPECT_EQ(name_tokens("rtx5090"), (std::vector<std::string>{"rtx", "5090"}));
    EXPECT_EQ(name_tokens("GTX 1080Ti"), (std::vector<std::string>{"gtx", "1080", "ti"}));
    EXPECT_EQ(name_tokens("H100-SXM5 80GB"), (std::vector<std::string>{"h", "100", "sxm", "5", "80", "gb"}));
    auto found = find_gpus(test::real_matrix(), "5090", 5);
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found.front().name, "GeForce RTX 5090");
    for (const auto& g : found) EXPECT_EQ(g.cc.to_string(), "12.0") << g.name;
    EXPECT_EQ(gpu_label(found.front()), "GeForce RTX 5090 (sm_120)");
}
