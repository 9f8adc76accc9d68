// The coverage rule on its own: which SASS/PTX entry serves which GPU, and why not.
#include <gtest/gtest.h>

#include "envfix/matrix/coverage.hpp"

using namespace envfix;
using namespace envfix::matrix;
using probe::ArchTarget;
using probe::ComputeCapability;

namespace {

std::vector<ArchTarget> targets(std::initializer_list<const char*> list) {
    std::vector<ArchTarget> out;
    for (const char* s : list) out.push_back(*ArchTarget::parse(s));
    return out;
}

ComputeCapability cc(const char* s) { return *ComputeCapability::parse(s); }

struct CoverCase {
    const char* gpu;
    std::initializer_list<const char*> sass;
    std::initializer_list<const char*> ptx;
    CoverageKind kind;
    const char* target;  // "" when none
};

}  // namespace

TEST(Coverage, TableOfRules) {
    const CoverCase cases[] = {
        {"8.9", {"8.0", "8.6", "9.0"}, {}, CoverageKind::SameMajor, "sm_86"},   // RTX 40 on sm_86 SASS
        {"8.6", {"8.0", "8.6", "9.0"}, {}, CoverageKind::Native, "sm_86"},
        {"6.1", {"5.0", "6.0", "7.0"}, {}, CoverageKind::SameMajor, "sm_60"},   // GTX 10 on sm_60
        {"6.1", {"7.5", "8.0"}, {}, CoverageKind::None, ""},                    // Pascal on cu130
        {"10.3", {"9.0", "10.0", "12.0"}, {}, CoverageKind::SameMajor, "sm_100"},  // B300
        {"12.1", {"10.0", "12.0"}, {}, CoverageKind::SameMajor, "sm_120"},         // GB10
        {"12.0", {"8.6", "9.0"}, {}, CoverageKind::None, ""},                      // RTX 50 on cu126
        {"12.0", {"8.6", "9.0"}, {"9.0"}, CoverageKind::Jit, "sm_90"},             // ... with compute_90
        {"12.0", {"8.6", "9.0"}, {"12.1"}, CoverageKind::None, ""},               // PTX newer than the GPU
        {"9.0", {"9.0a"}, {}, CoverageKind::Native, "sm_90a"},                     // 'a' on its exact arch
        {"10.3", {"10.0a"}, {}, CoverageKind::None, ""},                           // 'a' nowhere else
        {"10.3", {"10.0f"}, {}, CoverageKind::Family, "sm_100f"},                  // 'f' within the family
        {"10.0", {"10.3f"}, {}, CoverageKind::None, ""},                           // not to lower minors
        {"12.0", {"10.0f"}, {}, CoverageKind::None, ""},                           // not across majors
        {"3.7", {"5.0", "6.0"}, {}, CoverageKind::None, ""},                       // K80 on cu121
        {"7.5", {"3.7"}, {"3.7"}, CoverageKind::Jit, "sm_37"},                     // Windows cu118 3.7+PTX
    };
    for (const auto& c : cases) {
        BinaryTargets bin{targets(c.sass), targets(c.ptx)};
        GpuCoverage cov = cover(bin, cc(c.gpu));
        EXPECT_EQ(cov.kind, c.kind) << c.gpu;
        if (*c.target) {
            ASSERT_TRUE(cov.target) << c.gpu;
            EXPECT_EQ(cov.target->sm_tag(), c.target) << c.gpu;
        }
    }
}

TEST(Coverage, TegraRunsOnlyItsOwnSass) {
    BinaryTargets bin{targets({"8.0", "8.6", "9.0"}), {}};
    CoverageOptions tegra;
    tegra.tegra = true;
    EXPECT_EQ(cover(bin, cc("8.7"), tegra).kind, CoverageKind::None);           // Orin on desktop SASS
    EXPECT_EQ(cover(BinaryTargets{targets({"8.7"}), {}}, cc("8.7"), tegra).kind, CoverageKind::Native);
    EXPECT_EQ(cover(BinaryTargets{targets({"8.0"}), targets({"8.0"})}, cc("8.7"), tegra).kind, CoverageKind::Jit);
    EXPECT_EQ(render(describe(cover(bin, cc("8.7"), tegra), bin, "Orin", tegra), Lang::En),
              "Orin: a Tegra GPU runs only sm_87 SASS, which this build lacks");
}

TEST(Coverage, JitNeedsADriverThatCompilesThePtx) {
    BinaryTargets bin{targets({"9.0"}), targets({"9.0"})};
    CoverageOptions opt;
    opt.ptx_isa = probe::PtxIsa{8, 7};
    opt.driver_max_isa = probe::PtxIsa{8, 7};
    EXPECT_EQ(cover(bin, cc("12.0"), opt).kind, CoverageKind::Jit);
    opt.driver_max_isa = probe::PtxIsa{8, 4};
    auto blocked = cover(bin, cc("12.0"), opt);
    EXPECT_EQ(blocked.kind, CoverageKind::None);
    EXPECT_TRUE(blocked.jit_blocked);
    EXPECT_EQ(render(describe(blocked, bin, "sm_120", opt), Lang::En),
              "sm_120: only PTX compute_90 (ISA 8.7), newer than this driver compiles (up to 8.4)");
    CoverageOptions compat;
    compat.minor_compat = true;  // minor-version compatibility: PTX JIT does not work
    auto c2 = cover(bin, cc("12.0"), compat);
    EXPECT_FALSE(c2.served());
    EXPECT_TRUE(c2.jit_blocked);
    EXPECT_EQ(describe(c2, bin, "x", compat).key, "plan.cover.jit_blocked_compat");
}

TEST(Coverage, ReasonsSayWhatServesOrWhatIsMissing) {
    BinaryTargets cu130{targets({"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}), {}};
    BinaryTargets cu126{targets({"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}), {}};
    auto text = [](const BinaryTargets& b, const char* gpu, const char* label) {
        return render(describe(cover(b, cc(gpu)), b, label), Lang::En);
    };
    EXPECT_EQ(text(cu126, "8.9", "RTX 4090"), "RTX 4090: sm_86 kernels run on compute capability 8.9 (same major version)");
    EXPECT_EQ(text(cu130, "12.0", "RTX 5090"), "RTX 5090: native sm_120 kernels");
    EXPECT_EQ(text(cu126, "12.0", "RTX 5090"), "RTX 5090: no kernels; the newest SASS is sm_90 and there is no PTX");
    EXPECT_EQ(text(cu130, "6.1", "GTX 1080 Ti"), "GTX 1080 Ti: no kernels; the oldest SASS is sm_75");
    EXPECT_EQ(text(BinaryTargets{targets({"8.0", "9.0", "10.0", "12.0"}), {}}, "11.0", "Thor"),
              "Thor: no kernels for this architecture (SASS: sm_80 sm_90 sm_100 sm_120) and no PTX");
    BinaryTargets ptx{targets({"9.0"}), targets({"12.0"})};
    EXPECT_EQ(text(ptx, "12.1", "GB10"), "GB10: only PTX compute_120, compiled by the driver at first use (JIT)");
    EXPECT_EQ(text(BinaryTargets{}, "8.6", "x"), "x: the build holds no GPU code");
}

TEST(Coverage, EveryGpuOfAMachineMustBeServed) {
    BinaryTargets cu128{targets({"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}), {}};
    auto both = cover_all(cu128, {{cc("8.6"), false}, {cc("12.0"), false}});
    EXPECT_TRUE(both.all_served());
    EXPECT_TRUE(both.all_native());
    auto mixed = cover_all(cu128, {{cc("6.1"), false}, {cc("12.0"), false}});
    EXPECT_FALSE(mixed.all_served());
    EXPECT_FALSE(mixed.gpus[0].served());
    EXPECT_TRUE(mixed.gpus[1].served());
    auto tegra = cover_all(cu128, {{cc("8.7"), true}});
    EXPECT_FALSE(tegra.all_served());
}
