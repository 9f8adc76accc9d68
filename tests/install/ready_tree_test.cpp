// Ready trees (installer/src/ready_tree.hpp): a want's text read back as written and nothing
// else; a tree merged into staging by whole-folder renames; taken by one install only.
#include <gtest/gtest.h>

#include "envfix/common/fs.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "ready_tree.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::installer;
using namespace envfix::test;
namespace stdfs = std::filesystem;

namespace {

const std::string kSha(64, 'a');

ready::Want want() {
    return {kSha, 5, {{0, 12, "pkg/__init__.py"}, {3, 0, "pkg/sub/empty.txt"}, {4, 70000, "pkg-1.0.dist-info/METADATA"}}};
}

void write(const stdfs::path& p, const std::string& text) {
    stdfs::create_directories(p.parent_path());
    ASSERT_TRUE(fs::write_file_atomic(p, text, fs::Sync::Cache));
}

}  // namespace

TEST(ReadyTree, AWantReadsBackAsWritten) {
    const auto text = ready::encode_want(want());
    auto back = ready::decode_want(text);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->sha256, kSha);
    EXPECT_EQ(back->entry_files, 5u);
    ASSERT_EQ(back->files.size(), 3u);
    EXPECT_EQ(back->files[1].entry, 3u);
    EXPECT_EQ(back->files[2].size, 70000u);
    EXPECT_EQ(back->files[2].rel, "pkg-1.0.dist-info/METADATA");
    EXPECT_EQ(ready::encode_want(*back), text);
    // The name: the wheel's sha256 and the layout's digest, different for another layout.
    const auto name = ready::tree_name(kSha, text);
    EXPECT_EQ(name.size(), 64u + 1 + 16);
    EXPECT_TRUE(name.starts_with(kSha + "-"));
    auto other = want();
    other.files[0].rel = "pkg/init.py";
    EXPECT_NE(ready::tree_name(kSha, ready::encode_want(other)), name);
}

TEST(ReadyTree, AWantWithAPathOutsideItsAreaOrAnyDamageReadsAsNothing) {
    for (const std::string rel : {"../escape.py", "/etc/passwd", "pkg//x.py", "pkg/./x.py", "pkg/", "a\\b.py", "C:x.py", "pkg/x\ty", ""}) {
        auto w = want();
        w.files[0].rel = rel;
        EXPECT_FALSE(ready::decode_want(ready::encode_want(w))) << rel;
    }
    const auto good = ready::encode_want(want());
    EXPECT_FALSE(ready::decode_want(good.substr(0, good.size() - 1))) << "cut short";
    EXPECT_FALSE(ready::decode_want("envfix-ready-want 2" + good.substr(good.find('\n'))));
    EXPECT_FALSE(ready::decode_want(good.substr(0, good.find("files")) + "files x\n"));
    std::string bad_number = good;
    bad_number.replace(bad_number.find("\t12\t"), 4, "\t1x\t");
    EXPECT_FALSE(ready::decode_want(bad_number));
}

TEST(ReadyTree, MergeRenamesWholeFoldersAndDescendsOnlyWhereStagingHasOne) {
    TempDir dir;
    const auto from = dir.path() / "tree", into = dir.path() / "new";
    write(from / "pkg/a.py", "a");
    write(from / "pkg/sub/b.py", "b");
    write(from / "pkg-1.0.dist-info/METADATA", "m");
    write(from / "pkg-1.0.dist-info/WHEEL", "w");
    write(from / "top.py", "t");
    // Staging made the dist-info folder for INSTALLER, and a namespace folder of another wheel.
    write(into / "pkg-1.0.dist-info/INSTALLER", "envfix\n");
    auto n = ready::merge(from, into);
    ASSERT_TRUE(n) << n.error().message.key;
    EXPECT_EQ(*n, 4u);  // pkg/, top.py, and the two files below the folder staging had
    EXPECT_EQ(read_text(into / "pkg/sub/b.py"), "b");
    EXPECT_EQ(read_text(into / "pkg-1.0.dist-info/METADATA"), "m");
    EXPECT_EQ(read_text(into / "pkg-1.0.dist-info/INSTALLER"), "envfix\n");
    EXPECT_EQ(read_text(into / "top.py"), "t");
    EXPECT_FALSE(stdfs::exists(from / "pkg"));
    // A file staging has already: refused, never replaced.
    write(from / "top.py", "other");
    EXPECT_FALSE(ready::merge(from, into));
    EXPECT_EQ(read_text(into / "top.py"), "t");
}

TEST(ReadyTree, OneInstallTakesATreeAndOneOfAnotherEntryIsDropped) {
    TempDir dir;
    const auto root = dir.path() / "unpacked";
    const auto ready_dir = ready::ready_dir(root);
    const auto state = ready::state_text("1:2:3:4", 5);
    write(ready_dir / "t1/state", state);
    write(ready_dir / "t1/t/pkg/a.py", "a");
    const auto holder = ready::new_holder(root), other = ready::new_holder(root);
    auto first = ready::claim(root, "t1", state, holder);
    ASSERT_TRUE(first);
    EXPECT_EQ(read_text(first->tree / "pkg/a.py"), "a");
    EXPECT_FALSE(ready::claim(root, "t1", state, other)) << "taken already";
    ready::discard(*first);
    EXPECT_FALSE(stdfs::exists(first->dir));
    // Made from the entry as it was before it was dropped and made again: not used, and gone.
    write(ready_dir / "t2/state", ready::state_text("1:2:3:4", 6));
    write(ready_dir / "t2/t/pkg/a.py", "a");
    EXPECT_FALSE(ready::claim(root, "t2", state, holder));
    EXPECT_FALSE(stdfs::exists(ready_dir / "t2"));
    std::error_code ec;
    EXPECT_TRUE(stdfs::is_empty(holder, ec));
    // The install's holder, its trees with it, out of claimed/ by one rename; the maker empties done/.
    write(ready_dir / "t3/state", state);
    write(ready_dir / "t3/t/pkg/a.py", "a");
    ASSERT_TRUE(ready::claim(root, "t3", state, holder));
    ready::release(holder);
    EXPECT_FALSE(stdfs::exists(holder));
    EXPECT_TRUE(stdfs::is_empty(ready_dir / "claimed", ec));
    EXPECT_FALSE(stdfs::is_empty(ready_dir / "done", ec));
    (void)make_ready_trees(root);
    EXPECT_TRUE(stdfs::is_empty(ready_dir / "done", ec));
}

TEST(ReadyTree, AWindowsManglingNameIsNoTreePath) {
    for (const std::string rel : {"pkg./x.py", "pkg/x.py ", "pkg /x.py"}) {
        auto w = want();
        w.files[0].rel = rel;
        EXPECT_FALSE(ready::decode_want(ready::encode_want(w))) << rel;
    }
}

TEST(ReadyTree, AWantIsWrittenOnceAndNotBesideItsTree) {
    TempDir dir;
    const auto root = dir.path() / "unpacked";
    const auto text = ready::encode_want(want());
    const auto name = ready::tree_name(kSha, text);
    EXPECT_TRUE(ready::ask(root, name, text));
    EXPECT_EQ(read_text(ready::ready_dir(root) / (name + ".want")), text);
    EXPECT_TRUE(ready::ask(root, name, text)) << "waiting still";
    stdfs::remove(ready::ready_dir(root) / (name + ".want"));
    stdfs::create_directories(ready::ready_dir(root) / name);
    EXPECT_FALSE(ready::ask(root, name, text)) << "its tree is there";
    EXPECT_FALSE(stdfs::exists(ready::ready_dir(root) / (name + ".want")));
    // A wheel's trees and wants go with its entry (--force-reinstall).
    EXPECT_TRUE(ready::ask(root, kSha + "-0000000000000000", text));
    ready::drop_trees(root, kSha);
    std::error_code ec;
    for (stdfs::directory_iterator it(ready::ready_dir(root), ec), end; !ec && it != end; it.increment(ec))
        EXPECT_FALSE(it->path().filename().string().starts_with(kSha)) << it->path();
}
