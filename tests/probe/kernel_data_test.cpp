// The driver check's data, its expected results and the embedded PTX, without a GPU.
#include <gtest/gtest.h>

#include <vector>

#include "envfix/common/process.hpp"
#include "envfix/probe/kernel_check.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::probe;

namespace {
// What envfix_reduce_sum computes, step by step as the PTX does it: each thread's grid-stride
// sum, then the shared-memory tree within the block.
std::vector<float> reduce_like_the_kernel(const std::vector<float>& in, uint32_t grid, uint32_t block) {
    std::vector<float> partials(grid);
    for (uint32_t b = 0; b < grid; ++b) {
        std::vector<float> s(block, 0.0f);
        for (uint32_t t = 0; t < block; ++t)
            for (uint64_t i = uint64_t{b} * block + t; i < in.size(); i += uint64_t{grid} * block) s[t] += in[i];
        for (uint32_t half = block / 2; half > 0; half /= 2)
            for (uint32_t t = 0; t < half; ++t) s[t] += s[t + half];
        partials[b] = s[0];
    }
    return partials;
}

std::vector<float> ys(uint32_t n) {
    std::vector<float> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = kernel_data::y(i);
    return v;
}
}  // namespace

TEST(KernelData, SaxpyCheckFindsTheFirstWrongValue) {
    const uint32_t n = 100000;
    std::vector<float> out(n);
    for (uint32_t i = 0; i < n; ++i) out[i] = kernel_data::kA * kernel_data::x(i) + kernel_data::y(i);
    auto ok = kernel_data::check_saxpy(out.data(), n);
    EXPECT_EQ(ok.mismatches, 0u);
    EXPECT_FALSE(ok.first);
    out[4242] += 1.0f;
    out[99999] = 0.0f;
    auto bad = kernel_data::check_saxpy(out.data(), n);
    EXPECT_EQ(bad.mismatches, 2u);
    ASSERT_TRUE(bad.first);
    EXPECT_EQ(bad.first->index, 4242u);
    EXPECT_EQ(bad.first->expected, 3.0 * (4242 & 1023) + (4242 & 3));
    EXPECT_EQ(bad.first->got, bad.first->expected + 1);
}

TEST(KernelData, ReduceCheckAgreesWithTheKernelsOwnOrder) {
    for (auto [n, grid] : {std::pair<uint32_t, uint32_t>{100000, 7}, {65536, 16}, {1000, 64}, {257, 1}}) {
        auto partials = reduce_like_the_kernel(ys(n), grid, kBlockSize);
        EXPECT_EQ(kernel_data::check_reduce(partials.data(), grid, n).mismatches, 0u) << n << " " << grid;
        partials[grid - 1] += 2.0f;
        auto bad = kernel_data::check_reduce(partials.data(), grid, n);
        EXPECT_EQ(bad.mismatches, 1u);
        ASSERT_TRUE(bad.first);
        EXPECT_EQ(bad.first->index, grid - 1);
    }
}

TEST(KernelData, DefaultSizeStaysExactInFloat) {
    // Every partial sum is an integer below 2^24, so fp32 adds them exactly in any order: a
    // sequential float sum over the whole default array equals the exact total.
    const uint32_t n = KernelCheckOptions{}.elements;
    ASSERT_LE(n, kernel_data::max_elements());
    float f = 0;
    double exact = 0;
    for (uint32_t i = 0; i < n; ++i) {
        f += kernel_data::y(i);
        exact += kernel_data::y(i);
    }
    EXPECT_EQ(static_cast<double>(f), exact);
    EXPECT_LT(exact, 16777216.0);
    EXPECT_LT(3.0 * 1023 + 3, 16777216.0);
    // max_elements is the edge: four more elements push the total past 2^24 - 1.
    uint32_t m = kernel_data::max_elements();
    EXPECT_LE(m / 4 * 6.0, 16777215.0);
    EXPECT_GT((m / 4 + 1) * 6.0, 16777215.0);
}

TEST(KernelPtx, EmbeddedTextIsTheCheckedInFile) {
    std::string_view ptx = check_kernels_ptx();
    EXPECT_EQ(std::string(ptx), test::read_text(test::source_dir() / "probe/src/check_kernels.ptx"));
    EXPECT_EQ(ptx.data()[ptx.size()], '\0');  // cuModuleLoadDataEx reads a C string
    EXPECT_NE(ptx.find("\n.version 7.0\n"), std::string_view::npos);
    EXPECT_NE(ptx.find("\n.target sm_50\n"), std::string_view::npos);
    EXPECT_NE(ptx.find(".entry envfix_saxpy("), std::string_view::npos);
    EXPECT_NE(ptx.find(".entry envfix_reduce_sum("), std::string_view::npos);
    EXPECT_NE(ptx.find("s_sum[256]"), std::string_view::npos);  // kBlockSize
    EXPECT_EQ(kBlockSize, 256u);
}

// The real PTX assembler accepts the kernels for the oldest and newest targets nvcc 13 knows.
TEST(KernelPtx, PtxasAssemblesIt) {
    const char* ptxas = "/usr/local/cuda/bin/ptxas";
    if (!find_program(ptxas)) GTEST_SKIP() << "no " << ptxas << " on this machine";
    test::TempDir dir;
    auto file = dir / "check_kernels.ptx";
    test::write_text(file, std::string(check_kernels_ptx()));
    for (const char* arch : {"sm_75", "sm_90", "sm_120"}) {
        auto r = test::run_program({ptxas, std::string("-arch=") + arch, file.string(), "-o", (dir / "out.cubin").string()});
        EXPECT_EQ(r.code, 0) << arch << ": " << r.err;
    }
}
