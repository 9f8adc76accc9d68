// The primary / extra rule on assembled counts (docs/binaries.md, "Primary architectures").
#include <gtest/gtest.h>

#include "envfix/probe/binary_archs.hpp"

using namespace envfix::probe;

namespace {

struct Row {
    std::string arch;
    int containers;
};

BinaryArchs assemble(int code_containers, const std::vector<Row>& sass, const std::vector<Row>& ptx = {}) {
    BinaryArchs a;
    a.code_containers = code_containers;
    for (const auto& r : sass) a.sass.push_back({*ArchTarget::parse(r.arch), r.containers, r.containers, false});
    for (const auto& r : ptx) a.ptx.push_back({*ArchTarget::parse(r.arch), PtxIsa{9, 0}, r.containers, r.containers, false});
    classify_targets(a);
    return a;
}

std::vector<std::string> primaries(const BinaryArchs& a) { return a.arch_list(); }

TEST(Classify, TorchShapedLibraryKeepsTheGencodeList) {
    // torch 2.11.0+cu130 libtorch_cuda.so (cuobjdump counts): 444 per main arch plus extras.
    auto a = assemble(444 + 59 + 4 + 2, {{"sm_75", 444}, {"sm_80", 444}, {"sm_86", 444}, {"sm_89", 1}, {"sm_90", 444},
                                         {"sm_90a", 4}, {"sm_100", 444}, {"sm_100a", 59}, {"sm_103a", 59},
                                         {"sm_120", 444}, {"sm_120a", 1}, {"sm_121a", 1}});
    EXPECT_EQ(primaries(a), (std::vector<std::string>{"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"}));
    EXPECT_EQ(a.extra_sass().size(), 6u);
}

TEST(Classify, PtxForEveryKernelIsPrimaryPtxForOneIsNot) {
    auto a = assemble(100, {{"sm_80", 100}, {"sm_90", 100}}, {{"compute_90", 100}});
    EXPECT_EQ(primaries(a), (std::vector<std::string>{"sm_80", "sm_90", "compute_90"}));
    auto b = assemble(100, {{"sm_80", 100}}, {{"compute_80", 1}});
    EXPECT_EQ(primaries(b), (std::vector<std::string>{"sm_80"}));
}

TEST(Classify, PerArchitectureFilesKeepEveryRealArchitecture) {
    // Vendor libraries build each architecture in its own files: no target reaches half of
    // the containers, so counts are compared within the kind (1/20 of the largest).
    auto a = assemble(1000, {{"sm_70", 80}, {"sm_75", 120}, {"sm_80", 300}, {"sm_90", 480}, {"sm_90a", 12}});
    EXPECT_EQ(primaries(a), (std::vector<std::string>{"sm_70", "sm_75", "sm_80", "sm_90"}));
}

TEST(Classify, SmallLibrariesAndEdgeCases) {
    EXPECT_EQ(primaries(assemble(1, {{"sm_86", 1}})), std::vector<std::string>{"sm_86"});
    EXPECT_EQ(primaries(assemble(2, {{"sm_80", 1}, {"sm_90a", 1}})), (std::vector<std::string>{"sm_80", "sm_90a"}));
    EXPECT_TRUE(primaries(assemble(0, {})).empty());
    EXPECT_TRUE(primaries(assemble(5, {{"sm_80", 0}})).empty());
}

}  // namespace
