// Which packages belong to the framework stack, and which variant a build is (framework.hpp).
#include <gtest/gtest.h>

#include "envfix/matrix/framework.hpp"

using namespace envfix::standards;
using namespace envfix::matrix;

namespace {
std::vector<Requirement> reqs(std::initializer_list<const char*> texts) {
    std::vector<Requirement> out;
    for (const char* t : texts) out.push_back(Requirement::parse(t).value());
    return out;
}
}  // namespace

TEST(PlanFramework, TorchPackagesAreUvsList) {
    for (const char* n : {"torch", "torchvision", "torchaudio", "triton", "pytorch-triton", "xformers", "torchao"})
        EXPECT_TRUE(is_torch_package(n)) << n;
    for (const char* n : {"filelock", "nvidia-cudnn-cu12", "cuda-toolkit", "numpy", "torchdata"}) EXPECT_FALSE(is_torch_package(n)) << n;
    EXPECT_TRUE(is_framework_package("xformers"));
    EXPECT_FALSE(is_framework_package("torchao"));  // the brief's stack: replaced together only these six
}

TEST(PlanFramework, RuntimeMajors) {
    struct Case {
        const char* name;
        const char* version;
        std::optional<int> major;
    } cases[] = {
        {"nvidia-cudnn-cu12", "9.5.1.17", 12},
        {"nvidia-cuda-runtime-cu11", "11.8.89", 11},
        {"nvidia-nccl-cu13", "2.28.9", 13},
        {"nvidia-cublas", "13.1.0.3", 13},
        {"nvidia-cufft", "12.0.0.61", 13},  // CUDA 13's names, cuFFT's own numbering
        {"cuda-toolkit", "13.0.2", 13},
        {"cuda-bindings", "12.9.0", 12},
        {"cuda-pathfinder", "1.8.1", std::nullopt},
        {"nvidia-ml-py", "12.570.86", std::nullopt},
        {"filelock", "3.16.1", std::nullopt},
    };
    for (const auto& c : cases) EXPECT_EQ(runtime_cuda_major(c.name, Version::parse(c.version).value()), c.major) << c.name;
}

TEST(PlanFramework, VariantFromLocalLabel) {
    EXPECT_EQ(variant_from_local(Version::parse("2.7.0+cu128").value()), "cu128");
    EXPECT_EQ(variant_from_local(Version::parse("2.7.0+cpu").value()), "cpu");
    EXPECT_EQ(variant_from_local(Version::parse("2.5.1+rocm6.2").value()), "rocm6.2");
    EXPECT_EQ(variant_from_local(Version::parse("2.7.0").value()), std::nullopt);
    EXPECT_EQ(variant_from_local(Version::parse("3.7.0+git3b1f5a0e").value()), std::nullopt);
}

TEST(PlanFramework, VariantFromRequirements) {
    // 2.11.0's PyPI METADATA (the H200's): cuda-toolkit pins the toolkit.
    EXPECT_EQ(variant_from_requirements(reqs({"filelock", "cuda-toolkit[cublas,cudart]==13.0.2; platform_system == \"Linux\"",
                                              "nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\""})),
              "cu130");
    EXPECT_EQ(variant_from_requirements(reqs({"nvidia-cuda-runtime-cu12==12.8.57; platform_system == \"Linux\""})), "cu128");
    EXPECT_EQ(variant_from_requirements(reqs({"nvidia-cuda-runtime-cu12==12.6.77"})), "cu126");
    EXPECT_EQ(variant_from_requirements(reqs({"nvidia-cuda-runtime==13.0.96"})), "cu130");
    EXPECT_EQ(variant_from_requirements(reqs({"nvidia-nccl-cu13==2.28.9"})), "cu13");  // the major only
    EXPECT_EQ(variant_from_requirements(reqs({"filelock", "sympy>=1.13.3"})), std::nullopt);
    EXPECT_TRUE(variant_matches("cu13", "cu130"));
    EXPECT_TRUE(variant_matches("cu128", "cu128"));
    EXPECT_FALSE(variant_matches("cu128", "cu126"));
    EXPECT_FALSE(variant_matches("cu12", "cu130"));
}
