// The small pure pieces: entry names, the journal, ._pth, venv scripts, PEP 610, RECORD paths,
// a RECORD row's absolute path.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include "envfix/installer/install.hpp"
#include "envfix/installer/journal.hpp"
#include "envfix/installer/uninstall.hpp"
#include "envfix/installer/venv.hpp"
#include "envfix/installer/wheel.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "file_ops.hpp"
#include "path_under.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::installer;

TEST(EntryNames, PathRules) {
    for (const char* ok : {"pkg/mod.py", "pkg/", "a.dist-info/METADATA", "x.data/scripts/tool", "caf\xc3\xa9.py", ".hidden/x",
                           "pkg/.envfix/x", "a/b/c/"})
        EXPECT_FALSE(unsafe_entry_name(ok)) << ok;
    for (const char* bad : {"/etc/passwd", "../x", "a/../../x", "a/./b", "a//b", "a\\b", "C:/x", "c:x", "x:stream", "",
                            ".envfix-tx-1/x", ".envfix/lock", "./a", "a//", "a/..", "..", "a/b/.", "/"})
        EXPECT_TRUE(unsafe_entry_name(bad)) << bad;
}

TEST(JoinGeneric, SameAsOperatorSlash) {
    // A plan's 17 000 destinations are joined from one string: the very paths operator/ gives.
    namespace stdfs = std::filesystem;
    for (const char* dir : {"/v/lib/python3.12/site-packages", "/v/lib/", "/", "", "rel/dir"})
        for (const char* rel : {"torch/lib/x.so", "a", ".hidden/x"}) {
            EXPECT_EQ(join_generic(dir, rel), stdfs::path(dir) / rel) << dir << " + " << rel;
            EXPECT_EQ(join_generic(dir, rel).native(), (stdfs::path(dir) / rel).native()) << dir << " + " << rel;
            EXPECT_EQ(join_generic_text(dir, rel), (stdfs::path(dir) / rel).native()) << dir << " + " << rel;
        }
}

TEST(RecordRowText, SameAsLexicallyNormalWhateverTheRow) {
    // The fast join must give exactly what lexically_normal gives, or paths stop matching.
    namespace stdfs = std::filesystem;
    for (const char* base : {"/v/lib/python3.12/site-packages", "/v/./lib//site-packages", "/v/lib/../lib/site-packages", "/"})
        for (const char* row : {"torch/lib/x.so", "../../../bin/torchrun", "./torch/x.py", "torch//x.py", "torch/./x", "torch/..",
                                "a/b/../c", "torch/", ".hidden/x", "..a/b", "x..", "/etc/passwd"}) {
            auto expected = (stdfs::path(base) / stdfs::path(row)).lexically_normal();
            EXPECT_EQ(record_row_text(base, row), expected.native()) << base << " + " << row;
        }
}

TEST(PathUnder, PrefixEndsAtASeparator) {
    struct Case {
        const char* p;
        const char* dir;
        bool strictly, or_equal;
    };
    for (const auto& c : std::vector<Case>{{"/v/lib/x", "/v/lib", true, true},
                                           {"/v/lib", "/v/lib", false, true},
                                           {"/v/lib", "/v/lib/", false, true},
                                           {"/v/libx/y", "/v/lib", false, false},
                                           {"/v", "/v/lib", false, false},
                                           {"/v/lib/x", "/", true, true},
                                           {"/", "/", false, true},
                                           {"/v/lib/x", "", false, false}}) {
        EXPECT_EQ(path_under(c.p, c.dir, false), c.strictly) << c.p << " under " << c.dir;
        EXPECT_EQ(path_under(c.p, c.dir, true), c.or_equal) << c.p << " under or " << c.dir;
    }
}

TEST(PathUnder, NormalPathAndRelativeGenericAgreeWithTheStandardLibrary) {
    namespace stdfs = std::filesystem;
    for (const char* p : {"/v/lib/x.py", "/v/lib/../x", "/v/./lib", "/v//lib", "/v/lib/", "v/lib", "/", "..", "a/b/..", "/v/.hidden/x"}) {
        stdfs::path path(p);
        EXPECT_EQ(normal_path(path), path.lexically_normal()) << p;
        if (plainly_normal(p)) {
            EXPECT_EQ(path.lexically_normal().native(), path.native()) << p;  // never wrong; may say no
        }
    }
    for (const char* dir : {"/v", "/v/", "/", "/v/lib"})
        for (const char* p : {"/v/lib/x.py", "/v/lib", "/v", "/vx/lib", "/w/x", "/v/lib/sub/y"}) {
            auto rel = stdfs::path(p).lexically_relative(dir);
            bool strictly = !rel.empty() && rel != "." && *rel.begin() != "..";
            EXPECT_EQ(relative_generic_text(stdfs::path(p).native(), stdfs::path(dir)), strictly ? rel.generic_string() : "") << p << " in " << dir;
        }
}

// plainly_normal against its definition, part by part, on every string of up to 11 characters
// of '/', '.' and 'a' (the word-at-a-time scan has a boundary every 8 bytes), and on long ones.
TEST(PathUnder, PlainlyNormalFindsEveryEmptyOrDotPart) {
    auto by_parts = [](std::string_view s) {
        if (s.empty() || s.back() == '/') return false;
        size_t start = 0;
        for (size_t i = 0; i <= s.size(); ++i) {
            if (i < s.size() && s[i] != '/') continue;
            const std::string_view part = s.substr(start, i - start);
            if ((part.empty() && i > 0) || part == "." || part == "..") return false;
            start = i + 1;
        }
        return true;
    };
    std::string s;
    size_t checked = 0;
    std::function<void()> grow = [&] {
        ASSERT_EQ(plainly_normal(s), by_parts(s)) << s;
        ++checked;
        if (s.size() == 11) return;
        for (char c : {'/', '.', 'a'}) {
            s.push_back(c);
            grow();
            s.pop_back();
        }
    };
    grow();
    EXPECT_EQ(checked, 265720u);  // (3^12 - 1) / 2
    const std::string base = "/tmp/venv/lib/python3.12/site-packages/torch/include/ATen/native/cpu";
    for (size_t at = 0; at < base.size(); ++at)
        for (const char* insert : {"/", "/.", "/..", "./", "../"}) {
            std::string t = base;
            t.insert(at, insert);
            EXPECT_EQ(plainly_normal(t), by_parts(t)) << t;
        }
    EXPECT_TRUE(plainly_normal(base + "/.hidden/x..y/z."));
}

TEST(Journal, RoundTripsAndKeepsAnyFileName) {
    Journal j;
    j.id = "20261129T164000Z-1-abc";
    j.state = Journal::State::Prepared;
    j.pid = 42;
    j.created = "2026-11-29T16:40:00Z";
    j.summary = "install torch 2.11.0; remove torch 2.7.0";
    j.areas = {"/venv/lib/python3.12/site-packages", "/v\xe9nv/bin"};  // Latin-1: not UTF-8
    j.ops = {{JournalOp::Kind::Out, 0, "torch"}, {JournalOp::Kind::In, 0, "torch"}, {JournalOp::Kind::In, 1, "100%/x,\"y\""}};
    auto text = journal_to_json(j);
    for (unsigned char c : text) ASSERT_LT(c, 0x80);
    auto back = parse_journal(text, "tx.json");
    ASSERT_TRUE(back) << render(back.error().message, Lang::En);
    EXPECT_EQ(back->id, j.id);
    EXPECT_EQ(back->state, Journal::State::Prepared);
    EXPECT_EQ(back->areas, j.areas);
    EXPECT_EQ(back->ops, j.ops);
    EXPECT_EQ(back->summary, j.summary);
}

TEST(Journal, RefusesWhatItCannotTrust) {
    for (const char* bad : {"", "{\"version\": 1", "[]", "{\"version\": 2, \"id\": \"x\", \"state\": \"prepared\", \"areas\": [], \"ops\": []}",
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"odd\", \"areas\": [], \"ops\": []}",
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"prepared\", \"areas\": [\"/a\"], \"ops\": [[\"in\", 1, \"p\"]]}",
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"prepared\", \"areas\": [\"/a\"], \"ops\": [[\"in\", 0, \"../p\"]]}",
                            "{\"version\": 1, \"id\": \"../x\", \"state\": \"prepared\", \"areas\": [], \"ops\": []}",
                            // Read back from environments made elsewhere: relative areas, paths with
                            // backslashes or drive letters, numbers of the wrong kind (fuzz_journal).
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"prepared\", \"areas\": [\"a\"], \"ops\": []}",
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"prepared\", \"areas\": [\"/a\"], \"ops\": [[\"in\", 0, \"p\\\\..\\\\q\"]]}",
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"prepared\", \"areas\": [\"/a\"], \"ops\": [[\"in\", 0, \"C:x\"]]}",
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"prepared\", \"pid\": 1e30, \"areas\": [], \"ops\": []}",
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"prepared\", \"areas\": [\"/a\"], \"ops\": [[\"in\", 1e30, \"p\"]]}",
                            "{\"version\": 1, \"id\": \"x\", \"state\": \"prepared\", \"areas\": [\"/a\"], \"ops\": [[\"in\", -1, \"p\"]]}"}) {
        auto j = parse_journal(bad, "tx.json");
        ASSERT_FALSE(j) << bad;
        EXPECT_EQ(j.error().message.key, "journal.invalid");
        EXPECT_EQ(j.error().code, ExitCode::BadInput);
    }
}

TEST(Pth, ImportSiteIsUncommentedOrAppended) {
    EXPECT_EQ(enable_import_site("python312.zip\n.\n\n# Uncomment to run site.main() automatically\n#import site\n"),
              "python312.zip\n.\n\n# Uncomment to run site.main() automatically\nimport site\n");
    EXPECT_EQ(enable_import_site("python310.zip\r\n.\r\n#import site\r\n"), "python310.zip\r\n.\r\nimport site\r\n");
    EXPECT_EQ(enable_import_site("python311.zip\n."), "python311.zip\n.\nimport site\n");
    EXPECT_EQ(enable_import_site(""), "import site\n");
}

TEST(Venv, ScriptsQuoteValuesWhereTheTemplateExpectsIt) {
    VenvScriptValues v{"/srv/my env", "my env", "(my env) ", "bin", "/srv/my env/bin/python3"};
    // A template written for quoting (gh-124651) gets shell-quoted values ...
    EXPECT_EQ(render_venv_script("VIRTUAL_ENV=__VENV_DIR__\nPS1=__VENV_PROMPT__\"${PS1:-}\"\n", "activate", v),
              "VIRTUAL_ENV='/srv/my env'\nPS1='(my env) '\"${PS1:-}\"\n");
    // ... an older one, which quotes itself, the raw value.
    EXPECT_EQ(render_venv_script("VIRTUAL_ENV=\"__VENV_DIR__\"\n", "activate", v), "VIRTUAL_ENV=\"/srv/my env\"\n");
    EXPECT_EQ(render_venv_script("$VenvDir = __VENV_DIR__\n", "Activate.ps1", v), "$VenvDir = '/srv/my env'\n");
    VenvScriptValues plain{"/srv/v", "v", "(v) ", "bin", "/srv/v/bin/python3"};
    EXPECT_EQ(render_venv_script("A=__VENV_DIR__ B=__VENV_BIN_NAME__ C=__VENV_PYTHON__\n", "activate.fish", plain),
              "A=/srv/v B=bin C=/srv/v/bin/python3\n");
}

TEST(Venv, PyvenvCfgAsVenvWritesIt) {
    probe::PythonFacts f;
    f.version = "3.12.3";
    f.major = 3;
    f.minor = 12;
    EXPECT_EQ(pyvenv_cfg_text(f, "/usr/bin/python3", "/usr/bin/python3.12", ""),
              "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\nexecutable = /usr/bin/python3.12\n");
    f.version = "3.10.13";
    f.minor = 10;
    EXPECT_EQ(pyvenv_cfg_text(f, "/opt/py/bin/python3.10", "/opt/py/bin/python3.10", "0.1.0"),
              "home = /opt/py/bin\ninclude-system-site-packages = false\nversion = 3.10.13\nenvfix = 0.1.0\n");
}

TEST(DirectUrl, WrittenAsPipWritesIt) {
    EXPECT_EQ(file_url("/usr/share/python-wheels/pip-23.0.1-py3-none-any.whl"),
              "file:///usr/share/python-wheels/pip-23.0.1-py3-none-any.whl");
    EXPECT_EQ(file_url("/tmp/a b/t+1%.whl"), "file:///tmp/a%20b/t%2B1%25.whl");
    EXPECT_EQ(file_url("C:/Users/x/w.whl"), "file:///C:/Users/x/w.whl");
    // pip 24.2's document for the same file, byte for byte.
    EXPECT_EQ(direct_url_json("file:///usr/share/python-wheels/pip-23.0.1-py3-none-any.whl",
                              "da59ca7250b6284ac0e77a9d287004ea090bb0e30e0c9451c0e34398d45596ba"),
              "{\"archive_info\": {\"hash\": \"sha256=da59ca7250b6284ac0e77a9d287004ea090bb0e30e0c9451c0e34398d45596ba\", "
              "\"hashes\": {\"sha256\": \"da59ca7250b6284ac0e77a9d287004ea090bb0e30e0c9451c0e34398d45596ba\"}}, "
              "\"url\": \"file:///usr/share/python-wheels/pip-23.0.1-py3-none-any.whl\"}");
    EXPECT_NE(direct_url_json("https://h/\xc3\xa9.whl", "00").find("\\u00e9"), std::string::npos);
}

TEST(RecordPaths, RelativeToTheLibraryFolder) {
    EXPECT_EQ(record_path_for("/v/lib/python3.12/site-packages/pip/__init__.py", "/v/lib/python3.12/site-packages"), "pip/__init__.py");
    EXPECT_EQ(record_path_for("/v/bin/pip", "/v/lib/python3.12/site-packages"), "../../../bin/pip");
}

#ifdef __linux__
TEST(OutFile, ALargeFileHasItsWriteBackStartedAsItIsWrittenAndEndsWhole) {
    // Every 32 MiB and at the close a descriptor of the file goes to the thread that starts its
    // write-back (file_ops_posix.cpp): the file is whole, and the descriptors are all given back.
    namespace stdfs = std::filesystem;
    auto open_fds = [] {
        size_t n = 0;
        for ([[maybe_unused]] const auto& e : stdfs::directory_iterator("/proc/self/fd")) ++n;
        return n;
    };
    const auto dir = stdfs::temp_directory_path() / ("envfix-outfile-" + std::to_string(::getpid()));
    stdfs::create_directories(dir);
    const size_t before = open_fds();
    auto f = fileops::OutFile::create(dir / "big.so");
    ASSERT_TRUE(f);
    std::string piece(1u << 20, '\0');
    for (size_t i = 0; i < 80; ++i) {
        piece[0] = static_cast<char>(i);
        ASSERT_TRUE(f->write(piece));
    }
    ASSERT_TRUE(f->finish(fileops::FileMode::Regular));
    EXPECT_EQ(stdfs::file_size(dir / "big.so"), 80u << 20);
    std::string back(1, '\0');
    std::FILE* in = std::fopen((dir / "big.so").c_str(), "rb");
    ASSERT_TRUE(in);
    std::fseek(in, 79l << 20, SEEK_SET);
    EXPECT_EQ(std::fread(back.data(), 1, 1, in), 1u);
    std::fclose(in);
    EXPECT_EQ(back[0], static_cast<char>(79));
    // The starter's thread stays (one descriptor-free thread); its duplicates are closed once used.
    auto waited = std::chrono::steady_clock::now();
    while (open_fds() > before && std::chrono::steady_clock::now() - waited < std::chrono::seconds(10))
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(open_fds(), before);
    stdfs::remove_all(dir);
}
#endif

#ifdef __linux__
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

TEST(SpreadNewFolders, SetsExt4TopOfHierarchyWhereTheFilesystemHasIt) {
    // On ext4 the staging and unpacked-cache folders get chattr +T (their new subfolders placed in
    // a block group of their own); elsewhere nothing changes and nothing fails.
    namespace stdfs = std::filesystem;
    const auto dir = stdfs::temp_directory_path() / ("envfix-spread-" + std::to_string(::getpid()));
    stdfs::create_directories(dir);
    auto flags_of = [](const stdfs::path& p) -> std::optional<int> {
        int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY);
        if (fd < 0) return std::nullopt;
        int flags = 0;
        const bool ok = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
        ::close(fd);
        return ok ? std::optional<int>(flags) : std::nullopt;
    };
    auto before = flags_of(dir);
    fileops::spread_new_folders(dir);
    fileops::spread_new_folders(dir / "missing");  // best effort: no error, no folder made
    EXPECT_FALSE(stdfs::exists(dir / "missing"));
    auto after = flags_of(dir);
    stdfs::remove_all(dir);
    if (!before || !after) GTEST_SKIP() << "no inode flags on this filesystem";
    const bool ext4_like = (*after & FS_TOPDIR_FL) != 0;
    if (!ext4_like) GTEST_SKIP() << "the filesystem keeps no top-of-hierarchy flag";
    EXPECT_EQ(*after & ~FS_TOPDIR_FL, *before & ~FS_TOPDIR_FL);  // no other flag touched
}
#endif

TEST(WheelPlan, ADataFileOverARootFileWinsAndRootFilesAreOnceEach) {
    // pip's rule, a later file over an earlier one on the same path: a .data/purelib file lands on
    // a root file. Without a .data folder the root files take no lookup: each is planned once.
    namespace stdfs = std::filesystem;
    const auto dir = stdfs::temp_directory_path() / ("envfix-plan-" + std::to_string(::getpid()));
    stdfs::remove_all(dir);
    const InstallScheme scheme{dir / "v/lib/python3.12/site-packages", dir / "v/lib/python3.12/site-packages", dir / "v/bin", dir / "v",
                               dir / "v/include/site/python3.12"};
    const ScriptTarget target{(dir / "v/bin/python").string(), {}, 3, 12, ""};
    auto plan_of = [&](const nlohmann::ordered_json& spec) {
        auto wheel = open_wheel(test::build_wheel(spec, dir / "wheels"));
        EXPECT_TRUE(wheel);
        auto plan = plan_wheel(*wheel, scheme, target, {});
        EXPECT_TRUE(plan);
        return std::pair{std::move(*wheel), std::move(*plan)};
    };
    auto [over_wheel, over] = plan_of({{"name", "over"}, {"version", "1.0"}, {"files", {{"over/x.py", "root\n"}, {"over/y.py", "y\n"}}},
                                       {"data", {{"purelib/over/x.py", "data\n"}}}});
    size_t x = 0;
    for (const auto& f : over.files)
        if (f.dest == scheme.purelib / "over/x.py") {
            ++x;
            EXPECT_NE(over_wheel.zip.entries[f.entry].name.find(".data/purelib"), std::string::npos);
            EXPECT_EQ(f.record_path, "over/x.py");
        }
    EXPECT_EQ(x, 1u);
    auto [plain_wheel, plain] = plan_of({{"name", "plain"}, {"version", "1.0"},
                                         {"files", {{"plain/a.py", "a\n"}, {"plain/b/c.py", "c\n"}}},
                                         {"entry_points", {{"console_scripts", {{"plain-cli", "plain:main"}}}}}});
    std::set<stdfs::path> dests;
    for (const auto& f : plain.files) EXPECT_TRUE(dests.insert(f.dest).second) << f.dest;
    EXPECT_TRUE(dests.count(scheme.purelib / "plain/b/c.py"));
    EXPECT_TRUE(dests.count(plain.dist_info / "INSTALLER"));
    EXPECT_TRUE(dests.count(scheme.scripts / "plain-cli"));
    // A wheel of many root files is planned in pieces on several threads: the same plan, in the
    // archive's order, an INSTALLER it carries (repacked from an installation) still left out.
    nlohmann::ordered_json many{{"name", "many"}, {"version", "1.0"}, {"files", nlohmann::ordered_json::object()}};
    for (int i = 0; i < 5000; ++i) many["files"]["many/m" + std::to_string(i % 37) + "/f" + std::to_string(i) + ".py"] = "x\n";
    many["files"]["many-1.0.dist-info/INSTALLER"] = "pip\n";
    auto [many_wheel, many_plan] = plan_of(many);
    std::vector<size_t> planned_entries;
    for (const auto& f : many_plan.files) {
        if (f.kind != PlannedFile::Kind::Extracted) continue;
        planned_entries.push_back(f.entry);
        const auto& name = many_wheel.zip.entries[f.entry].name;
        EXPECT_EQ(f.dest, scheme.purelib / name);
        EXPECT_EQ(f.record_path, name);
    }
    std::vector<size_t> expected;
    for (size_t idx : many_wheel.files)
        if (!many_wheel.zip.entries[idx].name.ends_with("/INSTALLER")) expected.push_back(idx);
    EXPECT_EQ(planned_entries, expected);
    EXPECT_GE(expected.size(), 5000u);
    // Root files under a normal library folder are marked normal (the install checks them no
    // more), and only those: a folder written with "." or ".." in it, as a scheme may give it, is not.
    for (const auto& f : many_plan.files) {
        if (f.kind == PlannedFile::Kind::Extracted) {
            EXPECT_EQ(f.dest_normal, f.dest == stdfs::path(f.dest).lexically_normal().native()) << f.dest;
        }
    }
    const InstallScheme odd{dir / "v/lib/./python3.12/site-packages", dir / "v/lib/./python3.12/site-packages", dir / "v/bin", dir / "v",
                            dir / "v/include/site/python3.12"};
    auto odd_plan = plan_wheel(plain_wheel, odd, target, {});
    ASSERT_TRUE(odd_plan);
    for (const auto& f : odd_plan->files) EXPECT_FALSE(f.dest_normal) << f.dest;
    stdfs::remove_all(dir);
}

TEST(FolderStats, SameAsStatOfTheWholePathFolderByFolder) {
    // A ready tree's files are looked at folder by folder, each folder opened once: the same
    // answers as an lstat of each whole path, a missing file or folder none, a link not followed.
    namespace stdfs = std::filesystem;
    test::TempDir dir;
    const auto base = dir.path() / "t";
    test::write_texts(base, {{"top.py", "t\n"}, {"pkg/a.py", "a\n"}, {"pkg/b.py", "bb\n"}, {"pkg/sub/c.py", "ccc\n"}, {"other/d.py", "dddd\n"}});
    stdfs::create_symlink("a.py", base / "pkg/link.py");
    const auto other_base = dir.path() / "u";
    test::write_text(other_base / "pkg/a.py", "other\n");
    storeops::FolderStats folders;
    for (const auto& [root, rel] : std::vector<std::pair<stdfs::path, std::string>>{
             {base, "top.py"}, {base, "pkg/a.py"}, {base, "pkg/b.py"}, {base, "pkg/link.py"}, {base, "pkg/missing.py"},
             {base, "pkg/sub/c.py"}, {base, "gone/x.py"}, {base, "other/d.py"}, {other_base, "pkg/a.py"}, {base, "pkg/a.py"}}) {
        const auto want = storeops::stat_path(root / rel);
        const auto got = folders.stat(root, rel);
        ASSERT_EQ(got.has_value(), want.has_value()) << root << " " << rel;
        if (!want) continue;
        EXPECT_EQ(std::tie(got->inode, got->size, got->regular, got->mtime_ns), std::tie(want->inode, want->size, want->regular, want->mtime_ns))
            << root << " " << rel;
    }
}

TEST(ListFolder, EachEntryWithTheTypeLstatGivesAndRemoveText) {
    // A folder's listing as text: every entry but "." and "..", each with symlink_status's type
    // (a link not followed, a fifo as such); a missing folder none. remove_text removes a file,
    // a link (not what it points to) and an empty folder, and says when it could not.
    namespace stdfs = std::filesystem;
    test::TempDir dir;
    const auto base = dir.path() / "t";
    test::write_texts(base, {{"a.py", "a\n"}, {".hidden", "h\n"}, {"sub/b.py", "b\n"}});
    stdfs::create_symlink("sub", base / "to_sub");
    stdfs::create_symlink("nowhere", base / "dangling");
    ASSERT_EQ(::mkfifo((base / "pipe").c_str(), 0600), 0);
    auto listed = storeops::list_folder(base.native());
    ASSERT_TRUE(listed);
    std::map<std::string, stdfs::file_type> got, want;
    for (const auto& e : *listed) got[e.name] = e.type;
    for (const auto& e : stdfs::directory_iterator(base)) want[e.path().filename().string()] = e.symlink_status().type();
    EXPECT_EQ(got, want);
    EXPECT_EQ(got.size(), 6u);
    EXPECT_EQ(got["to_sub"], stdfs::file_type::symlink);
    EXPECT_EQ(got["pipe"], stdfs::file_type::fifo);
    EXPECT_FALSE(storeops::list_folder((base / "missing").native()));
    EXPECT_TRUE(storeops::list_folder((base / "sub").native()));
    EXPECT_TRUE(storeops::remove_text((base / "to_sub").native(), false));
    EXPECT_TRUE(stdfs::exists(base / "sub/b.py"));
    EXPECT_FALSE(storeops::remove_text((base / "sub").native(), true)) << "not empty";
    EXPECT_TRUE(storeops::remove_text((base / "sub/b.py").native(), false));
    EXPECT_TRUE(storeops::remove_text((base / "sub").native(), true));
    EXPECT_FALSE(storeops::remove_text((base / "sub").native(), true)) << "gone";
}

