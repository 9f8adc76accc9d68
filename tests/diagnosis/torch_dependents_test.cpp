// Finding the distributions built against torch, and the cache of that answer per site-packages
// folder: valid for one state of the folder's list of distributions, stored only once it settled.
#include <gtest/gtest.h>

#include "envfix/diagnosis/torch_dependents.hpp"
#include "envfix/standards/installed.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::standards;
using namespace envfix::diagnosis;
namespace stdfs = std::filesystem;

namespace {

void dist(const stdfs::path& sp, const std::string& name, const std::string& requirements, const std::string& record = "") {
    const auto d = sp / (name + "-1.0.dist-info");
    test::write_text(d / "METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: 1.0\n" + requirements + "\nlong text\n");
    test::write_text(d / "INSTALLER", "pip\n");
    if (!record.empty()) test::write_text(d / "RECORD", record);
}

void age(const stdfs::path& p, std::chrono::seconds by) { stdfs::last_write_time(p, stdfs::file_time_type::clock::now() - by); }

TEST(TorchDependents, FolderKeyIsTheIdentityAndTheSetOfNames) {
    const fs::FileIdentity id{1, 2, 4096, 1700000000123456789};
    const auto k = dist_folder_key(id, {"b-1.dist-info", "a-1.dist-info"});
    EXPECT_EQ(k, dist_folder_key(id, {"a-1.dist-info", "b-1.dist-info"}));  // any order
    EXPECT_TRUE(k.starts_with("1:2:4096:1700000000123456789:2:")) << k;
    EXPECT_NE(k, dist_folder_key(id, {"a-1.dist-info", "b-2.dist-info"}));
    EXPECT_NE(k, dist_folder_key(id, {"a-1.dist-info"}));
    EXPECT_NE(k, dist_folder_key({1, 2, 4096, 1700000000123456790}, {"a-1.dist-info", "b-1.dist-info"}));
    // Names are separated, so two lists never join into the same text.
    EXPECT_NE(dist_folder_key(id, {"ab", "c"}), dist_folder_key(id, {"a", "bc"}));
}

TEST(TorchDependents, DetailsLeftUnreadWhenNotAsked) {
    test::TempDir d;
    dist(d.path(), "kern-ops", "Requires-Dist: torch\n");
    auto full = read_installed({d.path()});
    auto bare = read_installed({d.path()}, {.details = false});
    ASSERT_TRUE(full && bare);
    EXPECT_EQ(full->dists.at(0).installer, "pip");
    EXPECT_EQ(bare->dists.at(0).installer, "");
    EXPECT_EQ(bare->dists.at(0).metadata.requires_dist, std::vector<std::string>{"torch"});
}

TEST(TorchDependents, AFolderSettlesOnlyOnceItsListStoodStill) {
    test::TempDir d;
    dist(d.path(), "a", "");
    auto now = dist_folder_state(d.path());
    ASSERT_TRUE(now);
    EXPECT_FALSE(now->settled);  // just written: an installer may still be filling a dist-info
    age(d.path(), std::chrono::seconds(60));
    auto later = dist_folder_state(d.path());
    ASSERT_TRUE(later);
    EXPECT_TRUE(later->settled);
    EXPECT_NE(later->key, now->key);  // the time is part of it
    stdfs::last_write_time(d.path(), stdfs::file_time_type::clock::now() + std::chrono::hours(1));
    EXPECT_FALSE(dist_folder_state(d.path())->settled);  // a clock gone back: never trusted
    EXPECT_FALSE(dist_folder_state(d / "missing"));
    EXPECT_FALSE(dist_folder_state(d / "a-1.0.dist-info" / "METADATA"));  // a file
}

TEST(TorchDependents, ReadOnceThenFromTheCacheUntilTheFolderChanges) {
    test::TempDir d;
    const auto sp = d / "site-packages";
    dist(sp, "torch", "Requires-Dist: filelock\n");
    dist(sp, "kern-ops", "Requires-Dist: Torch (>=2.0)\n",
         "kernops_impl/deep/_C.so,sha256=x,1\nkern_ops/__init__.py,,\n../../bin/tool.so,,\n");
    dist(sp, "near-miss", "Requires-Dist: torch_extras\n", "near_miss/_x.so,,\n");
    dist(sp, "transformers", "Requires-Dist: torch>=2; extra == \"torch\"\n", "transformers/__init__.py,,\n");
    test::write_text(sp / "legacy_ops-0.1-py3.11.egg-info/PKG-INFO", "Metadata-Version: 1.1\nName: legacy-ops\nVersion: 0.1\n");
    test::write_text(sp / "legacy_ops-0.1-py3.11.egg-info/requires.txt", "torch\n");
    age(sp, std::chrono::seconds(60));
    auto cache = probe::DependentsCache::in_memory();

    auto first = dependents_of_torch({sp, sp}, &cache);  // purelib == platlib: read once
    ASSERT_TRUE(first);
    EXPECT_EQ(first->folders_read, 1u);
    EXPECT_EQ(first->folders_cached, 0u);
    EXPECT_EQ(first->dists_read, 4u);  // torch is the stack's, read elsewhere
    EXPECT_EQ(first->walk, (std::vector<std::string>{"legacy_ops"}));
    ASSERT_EQ(first->listed.size(), 1u);
    EXPECT_EQ(first->listed[0].first, sp);
    EXPECT_EQ(first->listed[0].second.path, sp / "kernops_impl/deep/_C.so");
    EXPECT_EQ(first->listed[0].second.package, "kernops_impl");
    EXPECT_EQ(cache.size(), 1u);

    auto warm = dependents_of_torch({sp}, &cache);
    ASSERT_TRUE(warm);
    EXPECT_EQ(warm->folders_cached, 1u);
    EXPECT_EQ(warm->dists_read, 0u);
    EXPECT_EQ(warm->walk, first->walk);
    ASSERT_EQ(warm->listed.size(), 1u);
    EXPECT_EQ(warm->listed[0].second.path, first->listed[0].second.path);

    // A new distribution built against torch: the folder's state changed, so it is read again,
    // and, changed just now, not cached yet.
    dist(sp, "kern-two", "Requires-Dist: torch\n", "kern_two/_k.so,,\n");
    auto after = dependents_of_torch({sp}, &cache);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->folders_read, 1u);
    EXPECT_EQ(after->listed.size(), 2u);
    auto again = dependents_of_torch({sp}, &cache);
    EXPECT_EQ(again->folders_read, 1u);  // not settled: still read
    age(sp, std::chrono::seconds(60));
    EXPECT_EQ(dependents_of_torch({sp}, &cache)->folders_read, 1u);
    EXPECT_EQ(dependents_of_torch({sp}, &cache)->folders_cached, 1u);
}

TEST(TorchDependents, WithoutACacheEveryRunReads) {
    test::TempDir d;
    dist(d.path(), "kern-ops", "Requires-Dist: torch\n", "kern_ops/_C.so,,\n");
    age(d.path(), std::chrono::seconds(60));
    for (int i = 0; i < 2; ++i) {
        auto s = dependents_of_torch({d.path(), d / "missing"}, nullptr);
        ASSERT_TRUE(s);
        EXPECT_EQ(s->folders_read, 1u);
        EXPECT_EQ(s->listed.size(), 1u);
    }
}

}  // namespace
