// The binary-archs cache: hits by identity, misses on any change, survives damage, versioned.
#include <gtest/gtest.h>

#include <thread>

#include "envfix/probe/arch_cache.hpp"
#include "fixtures.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::probe;
namespace stdfs = std::filesystem;

namespace {

TEST(ArchCache, RoundTripsEveryField) {
    test::TempDir dir;
    auto lib = dir / "libx.so";
    stdfs::copy_file(test::fatbin_fixture("zstd_90_100a_103a_120f_ptx120.so"), lib);
    auto read = read_binary_archs(lib);
    ASSERT_TRUE(read);
    read->partial = true;
    read->problems.push_back(msg("binary.problem.more", {{"path", "p"}, {"count", "3"}}));
    auto id = fs::identity(lib);
    ASSERT_TRUE(id);
    {
        auto cache = ArchCache::load(dir / "c.json");
        EXPECT_EQ(cache.size(), 0u);
        cache.put(lib, *id, *read);
        ASSERT_TRUE(cache.save());
    }
    auto cache = ArchCache::load(dir / "c.json");
    auto hit = cache.find(lib, *id);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->arch_list(), read->arch_list());
    EXPECT_EQ(hit->zstd_entries, 5);
    EXPECT_EQ(hit->ptx.at(0).isa.to_string(), "9.0");
    EXPECT_EQ(hit->sass.size(), read->sass.size());
    EXPECT_TRUE(hit->partial);
    ASSERT_EQ(hit->problems.size(), 1u);
    EXPECT_EQ(hit->problems[0].arg("count"), "3");
    EXPECT_EQ(hit->format, BinaryFormat::Elf);
    EXPECT_NE(test::read_text(dir / "c.json").find("\"version\":1"), std::string::npos);
}

TEST(ArchCache, ChangedFileMisses) {
    test::TempDir dir;
    auto lib = dir / "libx.so";
    stdfs::copy_file(test::fatbin_fixture("sass_90a.so"), lib);
    auto cache = ArchCache::in_memory();
    auto id = fs::identity(lib);
    cache.put(lib, *id, *read_binary_archs(lib));
    EXPECT_TRUE(cache.find(lib, *id));
    // Same size, new content and mtime (a reinstall of the same version).
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stdfs::copy_file(test::fatbin_fixture("sass_120_ptx_120.so"), lib, stdfs::copy_options::overwrite_existing);
    auto id2 = fs::identity(lib);
    EXPECT_FALSE(cache.find(lib, *id2));
}

TEST(ArchCache, DamagedOrOtherVersionFilesReadAsEmpty) {
    test::TempDir dir;
    for (const std::string text : {"{not json", "[]", R"({"version": 99, "entries": {}})",
                                   R"({"version": 1, "entries": {"/x": {"identity": "1:2:3:4", "archs": {"format": 7}}}})"}) {
        test::write_text(dir / "c.json", text);
        auto cache = ArchCache::load(dir / "c.json");
        EXPECT_EQ(cache.size(), 0u) << text;
    }
    auto missing = ArchCache::load(dir / "nope" / "c.json");
    EXPECT_EQ(missing.size(), 0u);
}

TEST(ArchCache, SaveDropsFilesThatAreGoneAndCreatesTheFolder) {
    test::TempDir dir;
    auto lib = dir / "libx.so";
    stdfs::copy_file(test::fatbin_fixture("sass_90a.so"), lib);
    auto cache = ArchCache::load(dir / "deep" / "cache" / "c.json");
    cache.put(lib, *fs::identity(lib), *read_binary_archs(lib));
    cache.put(dir / "gone.so", fs::FileIdentity{1, 2, 3, 4}, BinaryArchs{});
    ASSERT_TRUE(cache.save());
    EXPECT_FALSE(cache.dirty());
    auto again = ArchCache::load(dir / "deep" / "cache" / "c.json");
    EXPECT_EQ(again.size(), 1u);
}

TEST(ArchCache, TwoProcessesKeepEachOthersEntries) {
    test::TempDir dir;
    auto a = dir / "liba.so", b = dir / "libb.so";
    stdfs::copy_file(test::fatbin_fixture("sass_90a.so"), a);
    stdfs::copy_file(test::fatbin_fixture("sass_75_80_86.so"), b);
    auto first = ArchCache::load(dir / "c.json");
    auto second = ArchCache::load(dir / "c.json");  // both loaded the same (empty) file
    first.put(a, *fs::identity(a), *read_binary_archs(a));
    second.put(b, *fs::identity(b), *read_binary_archs(b));
    ASSERT_TRUE(first.save());
    ASSERT_TRUE(second.save());
    auto merged = ArchCache::load(dir / "c.json");
    EXPECT_EQ(merged.size(), 2u);
    EXPECT_TRUE(merged.find(a, *fs::identity(a)));
}

TEST(ArchCache, DefaultPathIsVersionedUnderTheCacheDir) {
    setenv("ENVFIX_CACHE_DIR", "/tmp/envfix-cache-test", 1);
    EXPECT_EQ(ArchCache::default_path(), stdfs::path("/tmp/envfix-cache-test/binary-archs-v1.json"));
    unsetenv("ENVFIX_CACHE_DIR");
}

}  // namespace
