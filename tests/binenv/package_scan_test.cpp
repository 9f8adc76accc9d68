// Reading a whole site-packages: which files are candidates, parallel reads, the cache.
#include <gtest/gtest.h>

#include "envfix/common/interrupt.hpp"
#include "envfix/probe/arch_cache.hpp"
#include "fixtures.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::probe;
namespace stdfs = std::filesystem;

namespace {

void place(const stdfs::path& to, const std::string& fixture) {
    stdfs::create_directories(to.parent_path());
    stdfs::copy_file(test::fatbin_fixture(fixture), to, stdfs::copy_options::overwrite_existing);
}

// A site-packages laid out as pip leaves torch, its nvidia-* runtimes and extensions.
stdfs::path make_site_packages(const stdfs::path& root) {
    auto sp = root / "lib/python3.12/site-packages";
    place(sp / "torch/lib/libtorch_cuda.so", "torch211_cu130_like.so");
    place(sp / "torch/lib/libc10.so", "host_only.so");
    place(sp / "torch/lib/libtorch_cpu.so", "host_only.so");
    test::write_text(sp / "torch/lib/README.txt", "not a library");
    place(sp / "torch/_C.cpython-312-x86_64-linux-gnu.so", "host_only.so");  // not in torch/lib: skipped
    place(sp / "nvidia/cublas/lib/libcublas.so.13", "sass_75_80_86.so");
    place(sp / "nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9", "zstd_90_100a_103a_120f_ptx120.so");
    place(sp / "nvidia/cu13/bin/cublas64_13.dll", "win_short_names_86.dll");
    place(sp / "xformers/_C.so", "multi_container.so");
    place(sp / "xformers/ops/fmha/_deep/kernels.cpython-312-x86_64-linux-gnu.so", "sass_90a.so");
    place(sp / "flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so", "lz4_80_90a_ptx80.so");
    place(sp / "mypkg/ops.so", "sass_120_ptx_120.so");
    place(sp / "numpy/core/_multiarray_umath.so", "host_only.so");  // not a CUDA package: skipped
    std::error_code ec;
    stdfs::create_symlink("libc10.so", sp / "torch/lib/libc10.so.2", ec);
    return sp;
}

TEST(PackageScan, CandidatesOfASitePackages) {
    test::TempDir dir;
    auto sp = make_site_packages(dir.path());
    auto libs = gpu_library_candidates(sp, {"mypkg"});
    std::vector<std::string> rel;
    for (const auto& l : libs) rel.push_back(l.package + ":" + stdfs::relative(l.path, sp).generic_string());
    const std::vector<std::string> expect = {
        "flash_attn_2_cuda:flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so",
        "mypkg:mypkg/ops.so",
        "nvidia/cu13:nvidia/cu13/bin/cublas64_13.dll",
        "nvidia/cublas:nvidia/cublas/lib/libcublas.so.13",
        "nvidia/cudnn:nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9",
        "torch:torch/lib/libc10.so",
        "torch:torch/lib/libtorch_cpu.so",
        "torch:torch/lib/libtorch_cuda.so",
        "xformers:xformers/_C.so",
        "xformers:xformers/ops/fmha/_deep/kernels.cpython-312-x86_64-linux-gnu.so",
    };
    EXPECT_EQ(rel, expect);
    EXPECT_TRUE(gpu_library_candidates(dir / "nothing-here").empty());
}

TEST(PackageScan, ReadsInParallelThenFromTheCache) {
    test::TempDir dir;
    auto sp = make_site_packages(dir.path());
    std::vector<stdfs::path> paths;
    for (const auto& l : gpu_library_candidates(sp, {"mypkg"})) paths.push_back(l.path);
    paths.push_back(sp / "torch/lib/README.txt");  // an error in the middle stays in its place
    auto cache_file = dir / "cache/binary-archs-v1.json";
    auto cache = ArchCache::load(cache_file);
    auto first = scan_package_archs(paths, &cache, 4);
    ASSERT_EQ(first.size(), paths.size());
    for (size_t i = 0; i < first.size(); ++i) {
        EXPECT_EQ(first[i].path, paths[i]);
        EXPECT_FALSE(first[i].from_cache);
    }
    EXPECT_FALSE(first.back().archs);
    EXPECT_EQ(first.back().archs.error().message.key, "binary.not_a_library");
    const auto& torch = first[7];
    ASSERT_EQ(torch.path.filename(), "libtorch_cuda.so");
    ASSERT_TRUE(torch.archs);
    EXPECT_EQ(torch.archs->arch_list(), (std::vector<std::string>{"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"}));
    ASSERT_TRUE(cache.save());

    auto warm_cache = ArchCache::load(cache_file);
    auto second = scan_package_archs(paths, &warm_cache, 4);
    for (size_t i = 0; i + 1 < second.size(); ++i) {
        EXPECT_TRUE(second[i].from_cache) << second[i].path;
        ASSERT_TRUE(second[i].archs);
        EXPECT_EQ(second[i].archs->arch_list(), first[i].archs->arch_list());
    }
    EXPECT_FALSE(second.back().from_cache);  // errors are not cached: reading them is instant
    EXPECT_FALSE(warm_cache.dirty());
}

TEST(PackageScan, OneThreadAndNoCacheGiveTheSameAnswer) {
    test::TempDir dir;
    auto sp = make_site_packages(dir.path());
    std::vector<stdfs::path> paths;
    for (const auto& l : gpu_library_candidates(sp)) paths.push_back(l.path);
    auto a = scan_package_archs(paths, nullptr, 1);
    auto b = scan_package_archs(paths, nullptr, 0);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].archs->arch_list(), b[i].archs->arch_list());
    EXPECT_TRUE(scan_package_archs({}, nullptr).empty());
}

// In a child process: the interrupt flag cannot be cleared once set.
TEST(PackageScanDeathTest, InterruptedScansCacheNothingUnread) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    test::TempDir dir;
    auto sp = make_site_packages(dir.path());
    std::vector<stdfs::path> paths;
    for (const auto& l : gpu_library_candidates(sp)) paths.push_back(l.path);
    EXPECT_EXIT(
        {
            auto cache = ArchCache::in_memory();
            request_interrupt();
            bool all_interrupted = true;
            for (const auto& l : scan_package_archs(paths, &cache, 2))
                all_interrupted = all_interrupted && !l.archs && l.archs.error().code == ExitCode::Interrupted;
            std::exit(all_interrupted && cache.size() == 0 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

}  // namespace

TEST(PackageScan, LibraryFileNames) {
    for (const char* yes : {"_C.so", "libcudnn.so.9", "libnccl.so.2.28.9", "x.cpython-312-x86_64-linux-gnu.so", "_C.PYD", "cublas64_13.dll", "A.So.1"})
        EXPECT_TRUE(is_library_file_name(yes)) << yes;
    for (const char* no : {"", "so", ".s", "x.sox", "x.py", "libfoo.son", "x.dll.bak", "sopython.s"})
        EXPECT_FALSE(is_library_file_name(no)) << no;
}
