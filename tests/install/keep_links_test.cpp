// A switch keeps the files that do not change (docs/install.md, "A switch keeps unchanged files"):
// installing version B over A of one project links A's installed files whose path, RECORD hash
// and size B's RECORD repeats (hashed first), and writes the rest. The built binary, real venvs,
// wheels from tests/tools/mkwheel.py; every result compared byte for byte with a cold install.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <regex>

#include "envfix/common/hash.hpp"
#include "install_fixtures.hpp"
#include "keep_links.hpp"

using namespace envfix;
using namespace envfix::test;
using Json = nlohmann::ordered_json;

namespace {

TEST(KeepLinks, SameContentNeedsTheSameDigestAlgorithmAndSize) {
    using standards::RecordEntry;
    const RecordEntry wheel{"p/a.py", "sha256", "abc", 10};
    struct Case {
        const char* what;
        RecordEntry installed;
        uint64_t entry_size;
        bool same;
    };
    const Case cases[] = {
        {"equal rows", {"p/a.py", "sha256", "abc", 10}, 10, true},
        {"installed row without size", {"p/a.py", "sha256", "abc", std::nullopt}, 10, true},
        {"other digest", {"p/a.py", "sha256", "abd", 10}, 10, false},
        {"other algorithm, same text", {"p/a.py", "sha384", "abc", 10}, 10, false},
        {"other size", {"p/a.py", "sha256", "abc", 11}, 10, false},
        {"installed row size against the entry", {"p/a.py", "sha256", "abc", 10}, 11, false},
        {"no digest installed", {"p/a.py", "", "", 10}, 10, false},
    };
    for (const auto& c : cases) EXPECT_EQ(installer::same_content(c.installed, wheel, c.entry_size), c.same) << c.what;
    EXPECT_FALSE(installer::same_content({"p/a.py", "", "", 10}, {"p/a.py", "", "", 10}, 10)) << "no digest on either side";
}

TEST(KeepLinks, InPlaceNeedsTheSnapshotsDigestSizeAndModeAndAReplacedRow) {
    using standards::RecordEntry;
    namespace stdfs = std::filesystem;
    const stdfs::path root = "/venv";
    // One 32-byte digest, as the snapshot writes it (hex) and as RECORD does (urlsafe base64).
    const std::string hex = "2dc2ba6cd3bc1ed1fc8a7fe61c6e9d5cdf7d6ec2c1ea2cc7cbf6fcc4ab4a7d32";
    std::vector<uint8_t> raw;
    for (size_t i = 0; i < hex.size(); i += 2) raw.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    const std::string b64 = base64_urlsafe_nopad(raw.data(), raw.size());
    const RecordEntry row{"p/a.py", "sha256", b64, 5};
    installer::InstalledRows installed{{(root / "lib/p/a.py").native(), row}, {(root / "lib/p/b.py").native(), row},
                                       {(root / "lib/p/x.sh").native(), row}, {(root / "lib/p/ro.py").native(), row},
                                       {(root / "lib/p/big.py").native(), row}, {(root / "lib/p/384.py").native(), row}};
    std::vector<installer::SnapshotFile> files = {{"lib/p/a.py", hex, 5, 0644},  {"lib/p/b.py", std::string(64, '0'), 5, 0644},
                                                  {"lib/p/x.sh", hex, 5, 0644},  {"lib/p/ro.py", hex, 5, 0444},
                                                  {"lib/p/big.py", hex, 6, 0644}, {"lib/p/c.py", hex, 5, 0644},
                                                  {"lib/p/384.py", hex, 5, 0644}};
    installer::KnownFiles known;
    for (const auto& f : files) known.emplace(f.path, &f);
    const RecordEntry row384{"p/384.py", "sha384", b64, 5};
    const std::vector<stdfs::path> dests = {root / "lib/p/a.py", root / "lib/p/b.py",   root / "lib/p/x.sh", root / "lib/p/ro.py",
                                            root / "lib/p/big.py", root / "lib/p/c.py", root / "lib/p/384.py"};
    std::vector<installer::WantedFile> wanted;
    for (const auto& d : dests) wanted.push_back({&d.native(), &row, 5, false});
    wanted[2].executable = true;  // the wheel makes it executable; the installed copy is not
    wanted[6].row = &row384;
    auto same = installer::unchanged_in_place(installed, wanted, root, known);
    const std::vector<bool> expected = {true,    // same digest, size, mode
                                        false,   // other bytes
                                        false,   // exec bit differs
                                        false,   // read-only: a staged file would be writable
                                        false,   // other size
                                        false,   // no replaced distribution lists it
                                        false};  // not a sha256 row
    EXPECT_EQ(same, expected);
}

// Version 1 and 2 of one project: most files identical, some changed, one whose exec bit changes.
Json spec(int version) {
    const bool two = version == 2;
    Json files = {{"keep_pkg/__init__.py", "VERSION = " + std::to_string(version) + "\n"},
                  {"keep_pkg/same.py", "def same():\n    return 'same'\n"},
                  {"keep_pkg/types.pyi", "def same() -> str: ...\n"},
                  {"keep_pkg/edited.py", "EDIT = 1\n"},
                  {"keep_pkg/big.bin", {{"size", 300000}, {"seed", 5}}},
                  {"keep_pkg/lib.so", {{"size", 50000}, {"seed", version}}},
                  {"keep_pkg/run.sh", {{"text", "#!/bin/sh\necho run\n"}, {"mode", 493}}},
                  {"keep_pkg/mode.sh", {{"text", "#!/bin/sh\necho mode\n"}, {"mode", two ? 493 : 420}}}};
    if (!two) files["keep_pkg/only_one.py"] = "gone = True\n";
    Json data = {{"headers/keep.h", "#define KEEP 1\n"},
                 {"data/share/keep/readme.txt", "hello\n"},
                 {"scripts/keep-tool", {{"text", "#!python\nprint('tool')\n"}, {"mode", 493}}}};
    return {{"name", "keep-pkg"}, {"version", std::to_string(version) + ".0"}, {"files", files}, {"data", data},
            {"entry_points", {{"console_scripts", {{"keep-cli", "keep_pkg:main"}}}}}};
}

ino_t inode(const stdfs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_ino;
}

class KeepSwitch : public ::testing::Test {
protected:
    void SetUp() override {
        w1 = build_wheel(spec(1), dir / "wheels");
        w2 = build_wheel(spec(2), dir / "wheels");
        // The reference: version 2 installed cold, with caches of its own, at the same path.
        fresh_venv();
        ASSERT_EQ(run_envfix({"install", "--env", venv.string(), w2.string()}, {}, dir / "home-cold").code, 0);
        cold2 = state();
        fresh_venv();
        ASSERT_EQ(envfix({"install", w1.string()}).code, 0);
    }
    void fresh_venv() {
        std::error_code ec;
        stdfs::remove_all(venv, ec);
        make_bare_venv(venv);
        sp = site_packages(venv);
    }
    RunResult envfix(std::vector<std::string> args) {
        args.insert(args.begin() + 1, {"--env", venv.string()});
        return run_envfix(args, {}, home);
    }
    Tree state() { return snapshot(venv, {".envfix"}); }
    std::string pyver() { return sp.parent_path().filename().string(); }  // "python3.11"

    TempDir dir;
    stdfs::path venv = dir / "venv", home = dir / "home", sp, w1, w2;
    Tree cold2;
};

}  // namespace

TEST_F(KeepSwitch, UnchangedFilesAreLinkedOnlyWhereTheirBytesMatch) {
    // A file edited by hand, same size, so only its hash tells.
    write_text(sp / "keep_pkg/edited.py", "EDIT = 9\n");
    // A file made read-only: linking it would carry that mode into the new tree.
    stdfs::permissions(sp / "keep_pkg/types.pyi", stdfs::perms::owner_write | stdfs::perms::group_write | stdfs::perms::others_write,
                       stdfs::perm_options::remove);
    const std::vector<stdfs::path> same = {sp / "keep_pkg/same.py", sp / "keep_pkg/big.bin",
                                           sp / "keep_pkg/run.sh", venv / "include/site" / pyver() / "keep-pkg/keep.h",
                                           venv / "share/keep/readme.txt"};
    const std::vector<stdfs::path> rewritten = {sp / "keep_pkg/__init__.py", sp / "keep_pkg/lib.so", sp / "keep_pkg/edited.py",
                                                sp / "keep_pkg/types.pyi", sp / "keep_pkg/mode.sh", venv / "bin/keep-tool", venv / "bin/keep-cli"};
    std::map<stdfs::path, ino_t> before;
    for (const auto& p : same) before[p] = inode(p);
    for (const auto& p : rewritten) before[p] = inode(p);

    auto r = envfix({"install", "--json", w2.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["transaction"]["files_kept"], same.size()) << r.out;
    EXPECT_GT(j["transaction"]["files_written"].get<size_t>(), rewritten.size());
    // Byte for byte, mode for mode, what a cold install of version 2 writes.
    EXPECT_EQ(tree_diff(cold2, state()), "");
    for (const auto& p : same) EXPECT_EQ(inode(p), before[p]) << p << " was rewritten";
    for (const auto& p : rewritten) EXPECT_NE(inode(p), before[p]) << p << " was kept";
    EXPECT_EQ(read_text(sp / "keep_pkg/edited.py"), "EDIT = 1\n");
    EXPECT_FALSE(stdfs::exists(sp / "keep_pkg/only_one.py"));
}

TEST_F(KeepSwitch, TheSummarySaysWhatWasKept) {
    auto r = envfix({"install", w2.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("unchanged kept"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" 7 unchanged kept"), std::string::npos) << r.out;  // with edited.py, untouched here
}

TEST_F(KeepSwitch, RollbackRestoresTheFirstVersionExactly) {
    write_text(sp / "keep_pkg/edited.py", "EDIT = 9\n");
    auto one = state();
    ASSERT_EQ(envfix({"install", w2.string()}).code, 0);
    ASSERT_EQ(tree_diff(cold2, state()), "");
    auto r = envfix({"rollback"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(tree_diff(one, state()), "");
    // And forward again: the kept files are still the right bytes.
    ASSERT_EQ(envfix({"install", w2.string()}).code, 0);
    EXPECT_EQ(tree_diff(cold2, state()), "");
}

TEST_F(KeepSwitch, TheUnpackedCacheIsFilledFromKeptFilesAndUnchangedFilesStayInPlace) {
    ASSERT_EQ(envfix({"install", w2.string()}).code, 0);
    // The cache entry made from this switch (some of its files kept links) serves a new venv.
    auto other = dir / "other";
    make_bare_venv(other);
    auto r = run_envfix({"install", "--json", "--env", other.string(), w2.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(inode(site_packages(other) / "keep_pkg/big.bin"), inode(sp / "keep_pkg/big.bin"));
    // A switch whose wheel the cache has: the unchanged files still stay where they are (no
    // link, no move), the others are linked from the cache.
    fresh_venv();
    ASSERT_EQ(envfix({"install", w1.string()}).code, 0);
    const auto same_before = inode(sp / "keep_pkg/same.py");
    r = envfix({"install", "--json", w2.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.json()["transaction"]["files_kept"], 7) << r.out;
    EXPECT_EQ(inode(sp / "keep_pkg/same.py"), same_before);
    EXPECT_EQ(inode(sp / "keep_pkg/lib.so"), inode(site_packages(other) / "keep_pkg/lib.so"));
    EXPECT_EQ(tree_diff(cold2, state()), "");
}

// In place: an envfix-installed version's files that version 2 repeats are not touched at all.
TEST_F(KeepSwitch, UnchangedFilesStayInPlaceWithTheirBytecodeAndChangedOnesLoseTheirs) {
    // Bytecode as Python writes it on import: of an unchanged file, a changed one, a removed one.
    for (const char* stem : {"same", "__init__", "only_one"})
        write_text(sp / "keep_pkg/__pycache__" / (std::string(stem) + ".cpython-311.pyc"), "bytecode");
    write_text(sp / "keep_pkg/same.pyc", "legacy bytecode beside its source");
    auto r = envfix({"install", "--json", w2.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(stdfs::exists(sp / "keep_pkg/__pycache__/same.cpython-311.pyc"));
    EXPECT_TRUE(stdfs::exists(sp / "keep_pkg/same.pyc"));
    EXPECT_FALSE(stdfs::exists(sp / "keep_pkg/__pycache__/__init__.cpython-311.pyc"));
    EXPECT_FALSE(stdfs::exists(sp / "keep_pkg/__pycache__/only_one.cpython-311.pyc"));
    stdfs::remove_all(sp / "keep_pkg/__pycache__");
    stdfs::remove(sp / "keep_pkg/same.pyc");
    EXPECT_EQ(tree_diff(cold2, state()), "");
    // The new RECORD vouches for the files left in place: `envfix check` and a later switch read it.
    auto back = envfix({"install", "--json", w1.string()});
    ASSERT_EQ(back.code, 0) << back.err;
    EXPECT_EQ(back.json()["transaction"]["files_kept"], 7) << back.out;
}

// --force-reinstall trusts no mtime: a file changed behind the same size and an old mtime (which
// a plain switch would leave in place) is found by its hash and written again.
TEST_F(KeepSwitch, ForceReinstallChecksEveryFileByItsHash) {
    ASSERT_EQ(envfix({"install", w2.string()}).code, 0);
    write_text(sp / "keep_pkg/same.py", "def same():\n    return 'SAME'\n");
    stdfs::last_write_time(sp / "keep_pkg/same.py", stdfs::last_write_time(sp / "keep_pkg-2.0.dist-info/RECORD") - std::chrono::hours(1));
    auto r = envfix({"install", "--json", "--force-reinstall", w2.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(sp / "keep_pkg/same.py"), "def same():\n    return 'same'\n");
    EXPECT_EQ(tree_diff(cold2, state()), "");
}

// Another tool's install is not trusted by its mtimes: the snapshot of the present hashes its
// files, so a file changed behind the same size and an old mtime is written again, and the others
// stay in place.
TEST_F(KeepSwitch, AnotherInstallersFilesStayInPlaceOnlyWhereTheirHashMatches) {
    auto dist_info = sp / "keep_pkg-1.0.dist-info";
    write_text(dist_info / "INSTALLER", "pip\n");
    write_text(sp / "keep_pkg/same.py", "def same():\n    return 'SAME'\n");
    auto old = stdfs::last_write_time(dist_info / "RECORD") - std::chrono::hours(1);
    stdfs::last_write_time(sp / "keep_pkg/same.py", old);
    const auto big = inode(sp / "keep_pkg/big.bin");
    auto r = envfix({"install", "--json", w2.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(sp / "keep_pkg/same.py"), "def same():\n    return 'same'\n");
    EXPECT_EQ(r.json()["transaction"]["files_kept"], 6) << r.out;  // all seven but same.py
    EXPECT_EQ(inode(sp / "keep_pkg/big.bin"), big);
    EXPECT_EQ(tree_diff(cold2, state()), "");
}

// Killed at every fault point of a switch that leaves files in place, the next `envfix recover`
// leaves version 1 or version 2, byte for byte.
TEST_F(KeepSwitch, KilledAtEveryFaultPointOfAnInPlaceSwitchRecoversToOldOrNew) {
    auto one = state();
    auto v = envfix({"install", "-v", w2.string()});
    ASSERT_EQ(v.code, 0) << v.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(v.err, m, std::regex(R"((\d+) fault points passed)"))) << v.err;
    const int points = std::stoi(m[1]);
    std::map<std::string, int> seen;
    for (int n = 1; n <= points; ++n) {
        SCOPED_TRACE("ENVFIX_FAULT_AFTER=" + std::to_string(n));
        fresh_venv();
        ASSERT_EQ(envfix({"install", w1.string()}).code, 0);
        ASSERT_EQ(tree_diff(one, state()), "");
        auto killed = run_envfix({"install", "--env", venv.string(), w2.string()}, {{"ENVFIX_FAULT_AFTER", std::to_string(n)}}, home);
        ASSERT_EQ(killed.code, 128 + SIGKILL) << killed.err;
        auto r = envfix({"recover"});
        ASSERT_EQ(r.code, 0) << r.err;
        auto now = state();
        if (tree_diff(one, now).empty()) seen["old"]++;
        else if (tree_diff(cold2, now).empty()) seen["new"]++;
        else FAIL() << "neither; against old:\n" << tree_diff(one, now) << "against new:\n" << tree_diff(cold2, now);
    }
    EXPECT_GT(seen["old"], 0);
    EXPECT_GT(seen["new"], 0);
}

// A file two replaced distributions list may hold either one's bytes, and a link from the unpacked
// cache keeps the mtime of its unpacking, older than either RECORD: it is never left in place.
TEST_F(KeepSwitch, AFileTwoReplacedDistributionsListIsNotLeftInPlace) {
    Json other = {{"name", "other-pkg"}, {"version", "1.0"},
                  {"files", {{"keep_pkg/same.py", "def same():\n    return 'SAME'\n"}, {"other_pkg/__init__.py", ""}}}};
    auto other1 = build_wheel(other, dir / "other");
    other["version"] = "2.0";
    other["files"].erase("keep_pkg/same.py");
    auto other2 = build_wheel(other, dir / "other");
    // Unpacked into the shared cache first, so its link below carries an mtime older than the RECORDs.
    auto first = dir / "first";
    make_bare_venv(first);
    ASSERT_EQ(run_envfix({"install", "--env", first.string(), other1.string()}, {}, home).code, 0);
    fresh_venv();
    ASSERT_EQ(envfix({"install", w1.string()}).code, 0);
    ASSERT_EQ(envfix({"install", other1.string()}).code, 0);  // overwrites keep_pkg/same.py, with a warning
    ASSERT_EQ(read_text(sp / "keep_pkg/same.py"), "def same():\n    return 'SAME'\n");
    auto r = envfix({"install", "--json", w2.string(), other2.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(sp / "keep_pkg/same.py"), "def same():\n    return 'same'\n");
}
