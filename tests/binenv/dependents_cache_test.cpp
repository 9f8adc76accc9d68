// The torch-dependents cache: answers only for the state it was saved with, survives damage,
// versioned, keeps what another process saved.
#include <gtest/gtest.h>

#include "envfix/probe/dependents_cache.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::probe;
namespace stdfs = std::filesystem;

namespace {

DependentLibraries some(const stdfs::path& sp) {
    return {{"legacy_ops"}, {{sp / "kernops_impl/deep/_C.so", "kernops_impl"}, {sp / "_top.so", "_top"}}};
}

TEST(DependentsCache, RoundTripsForTheSameStateOnly) {
    test::TempDir dir;
    const auto sp = dir / "site-packages";
    stdfs::create_directories(sp);
    {
        auto cache = DependentsCache::load(dir / "c.json");
        EXPECT_EQ(cache.size(), 0u);
        cache.put(sp, "1:2:3:4:200:abc", some(sp));
        ASSERT_TRUE(cache.save());
    }
    auto cache = DependentsCache::load(dir / "c.json");
    auto hit = cache.find(sp, "1:2:3:4:200:abc");
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->walk, std::vector<std::string>{"legacy_ops"});
    ASSERT_EQ(hit->listed.size(), 2u);
    EXPECT_EQ(hit->listed[0].path, sp / "kernops_impl/deep/_C.so");
    EXPECT_EQ(hit->listed[0].package, "kernops_impl");
    EXPECT_EQ(hit->listed[1].package, "_top");
    EXPECT_FALSE(cache.find(sp, "1:2:3:5:200:abc"));  // the folder changed since
    EXPECT_FALSE(cache.find(dir / "other", "1:2:3:4:200:abc"));
    EXPECT_NE(test::read_text(dir / "c.json").find("\"version\":1"), std::string::npos);
}

TEST(DependentsCache, DamagedOrOtherVersionFilesReadAsEmpty) {
    test::TempDir dir;
    for (const std::string text : {"{not json", "[]", R"({"version": 99, "entries": {}})",
                                   R"({"version": 1, "entries": {"/x": {"state": "s", "walk": [1], "listed": []}}})",
                                   R"({"version": 1, "entries": {"/x": {"state": "s", "walk": [], "listed": [["/x/a.so"]]}}})"}) {
        test::write_text(dir / "c.json", text);
        EXPECT_EQ(DependentsCache::load(dir / "c.json").size(), 0u) << text;
    }
    EXPECT_EQ(DependentsCache::load(dir / "nope" / "c.json").size(), 0u);
}

TEST(DependentsCache, SaveDropsFoldersThatAreGoneAndKeepsAnotherProcesssEntries) {
    test::TempDir dir;
    const auto a = dir / "a", b = dir / "b";
    stdfs::create_directories(a);
    stdfs::create_directories(b);
    auto first = DependentsCache::load(dir / "deep" / "c.json");
    auto second = DependentsCache::load(dir / "deep" / "c.json");  // both loaded the same (absent) file
    first.put(a, "sa", some(a));
    first.put(dir / "gone", "sg", some(dir / "gone"));
    second.put(b, "sb", some(b));
    ASSERT_TRUE(first.save());
    ASSERT_TRUE(second.save());
    auto merged = DependentsCache::load(dir / "deep" / "c.json");
    EXPECT_EQ(merged.size(), 2u);
    EXPECT_TRUE(merged.find(a, "sa"));
    EXPECT_TRUE(merged.find(b, "sb"));
}

TEST(DependentsCache, DefaultPathIsVersionedUnderTheCacheDir) {
    setenv("ENVFIX_CACHE_DIR", "/tmp/envfix-cache-test", 1);
    EXPECT_EQ(DependentsCache::default_path(), stdfs::path("/tmp/envfix-cache-test/torch-dependents-v1.json"));
    unsetenv("ENVFIX_CACHE_DIR");
}

}  // namespace
