#include <gtest/gtest.h>

#include "envfix/probe/arch.hpp"

using namespace envfix::probe;

TEST(Arch, ParsesComputeCapabilities) {
    struct Case { const char* in; int major, minor; };
    for (auto c : {Case{"8.9", 8, 9}, Case{"sm_89", 8, 9}, Case{"compute_120", 12, 0}, Case{"120", 12, 0},
                   Case{"12.1", 12, 1}, Case{"50", 5, 0}}) {
        auto cc = ComputeCapability::parse(c.in);
        ASSERT_TRUE(cc) << c.in;
        EXPECT_EQ(cc->major, c.major) << c.in;
        EXPECT_EQ(cc->minor, c.minor) << c.in;
    }
    for (const char* bad : {"", "sm_", "x", "8.", ".9", "sm_90a", "8.10", "5"}) EXPECT_FALSE(ComputeCapability::parse(bad)) << bad;
}

TEST(Arch, TargetsKeepVariants) {
    auto t = ArchTarget::parse("sm_90a");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->cc, (ComputeCapability{9, 0}));
    EXPECT_EQ(t->variant, 'a');
    EXPECT_EQ(t->sm_tag(), "sm_90a");
    EXPECT_EQ(ArchTarget::parse("sm_100f")->compute_tag(), "compute_100f");
    EXPECT_EQ(ArchTarget::parse("12.0")->sm_tag(), "sm_120");
}

TEST(Arch, CudaVersionEncodings) {
    EXPECT_EQ(CudaVersion::decode(12080).to_string(), "12.8");
    EXPECT_EQ(CudaVersion::decode(13000).variant_tag(), "cu130");
    EXPECT_EQ(CudaVersion::parse("cu118")->to_string(), "11.8");
    EXPECT_EQ(CudaVersion::parse("12.6.3")->to_string(), "12.6");
    EXPECT_EQ(CudaVersion::parse("12080")->to_string(), "12.8");
    EXPECT_EQ((CudaVersion{12, 8}).encoded(), 12080);
    EXPECT_LT((CudaVersion{12, 9}), (CudaVersion{13, 0}));
}

TEST(Arch, DriverVersions) {
    auto v = DriverVersion::parse("580.159.04");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->branch(), 580);
    EXPECT_EQ(v->to_string(), "580.159.04");
    EXPECT_LT(*DriverVersion::parse("570.133.07"), *v);
    EXPECT_LT(*DriverVersion::parse("525.60.13"), *DriverVersion::parse("525.85.12"));
    EXPECT_LT(*DriverVersion::parse("572.61"), *DriverVersion::parse("576.02"));
    EXPECT_FALSE(DriverVersion::parse("abc"));
    EXPECT_FALSE(DriverVersion::parse("580..1"));
}
