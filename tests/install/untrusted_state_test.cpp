// What envfix reads back from an environment is input from outside (docs/security.md): an
// environment may have come from someone else (a portable app downloaded as a zip, a folder a
// colleague copied). Each case plants what such an environment could hold and checks that a
// canary folder outside it is unchanged, nothing private is read in, and the error is one line
// with its own exit code.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "envfix/common/hash.hpp"
#include "install_fixtures.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::test;

namespace {

constexpr int kUnsafeState = 69;
constexpr const char* kTxId = "20260101T000000Z-1-0000abcd";

WheelSpec demo(const std::string& version) {
    WheelSpec s;
    s.version = version;
    s.files = {{"demo/__init__.py", "x = '" + version + "'\n"}, {"demo/lib.py", std::string(3000, 'a') + "\n"}};
    return s;
}

class UntrustedState : public ::testing::Test {
protected:
    void SetUp() override {
        home = dir / "home";
        venv = dir / "venv";
        canary = dir / "canary";
        make_bare_venv(venv);
        write_texts(canary, {{"secret.txt", "private\n"}, {"sub/keep.txt", "keep\n"}});
        wheel1 = write_wheel(demo("1.0"), dir / "w");
        auto r = run_envfix({"install", "--env", venv.string(), wheel1.string()}, {}, home);
        ASSERT_EQ(r.code, 0) << r.err;
        canary_before = snapshot(canary);
    }
    stdfs::path sp() const { return site_packages(venv); }
    std::string sp_rel() const { return stdfs::relative(sp(), venv).generic_string(); }
    void plant_journal(const std::string& state, const std::vector<std::string>& areas, const std::string& ops) {
        std::string a;
        for (const auto& x : areas) a += std::string(a.empty() ? "" : ",") + "\"" + x + "\"";
        write_text(venv / ".envfix" / ("tx-" + std::string(kTxId) + ".json"),
                   "{\"version\":1,\"id\":\"" + std::string(kTxId) + "\",\"state\":\"" + state +
                       "\",\"pid\":1,\"created\":\"2026-01-01T00:00:00Z\",\"summary\":\"planted\",\"areas\":[" + a +
                       "],\"ops\":" + ops + "}\n");
    }
    // Runs `args`; expects `code`, one error line holding `text`, and the canary as it was.
    void refused(const std::vector<std::string>& args, int code, const std::string& text) {
        auto r = run_envfix(args, {}, home);
        EXPECT_EQ(r.code, code) << r.out << r.err;
        EXPECT_NE(first_error_line(r).find(text), std::string::npos) << r.err;
        EXPECT_EQ(tree_diff(canary_before, snapshot(canary)), "");
    }

    TempDir dir;
    stdfs::path home, venv, canary, wheel1;
    Tree canary_before;
};

}  // namespace

// A journal whose areas name a folder outside the environment: nothing is moved, created or
// removed there, whichever command looks at the environment first.
TEST_F(UntrustedState, AJournalNamingAFolderOutsideIsRefusedByEveryCommand) {
    write_text(canary / (".envfix-tx-" + std::string(kTxId)) / "new" / "evil.pth", "import os\n");
    for (const char* state : {"prepared", "staging", "committed"}) {
        SCOPED_TRACE(state);
        plant_journal(state, {canary.string()}, "[[\"in\",0,\"evil.pth\"],[\"out\",0,\"secret.txt\"]]");
        canary_before = snapshot(canary);
        const auto env_before = snapshot(venv);
        for (std::vector<std::string> cmd : {std::vector<std::string>{"history"}, {"recover"}, {"doctor"}}) {
            cmd.insert(cmd.end(), {"--env", venv.string()});
            refused(cmd, kUnsafeState, "tx-" + std::string(kTxId) + ".json");
        }
        EXPECT_EQ(tree_diff(env_before, snapshot(venv)), "");
    }
    EXPECT_FALSE(stdfs::exists(canary / "evil.pth"));
    EXPECT_TRUE(stdfs::exists(canary / "secret.txt"));
}

// A journal naming the environment's own site-packages, whose operations reach a file through a
// link inside it: undoing them would move a file from outside in, or one from inside out.
TEST_F(UntrustedState, AJournalWhoseOperationsGoThroughALinkIsRefused) {
    stdfs::create_directory_symlink(canary, sp() / "link");
    const std::string stage = ".envfix-tx-" + std::string(kTxId);
    write_text(sp() / stage / "old" / "link" / "planted.txt", "from the journal\n");
    for (const char* ops : {"[[\"out\",0,\"link/planted.txt\"]]", "[[\"in\",0,\"link/secret.txt\"]]"}) {
        SCOPED_TRACE(ops);
        plant_journal("prepared", {sp().string()}, ops);
        refused({"history", "--env", venv.string()}, kUnsafeState, "is a link");
    }
    EXPECT_FALSE(stdfs::exists(canary / "planted.txt"));
    EXPECT_EQ(read_text(canary / "secret.txt"), "private\n");
}

// An interrupted install of the environment's own still recovers: the checks refuse only what
// names something else.
TEST_F(UntrustedState, AJournalOfTheEnvironmentsOwnAreasStillRecovers) {
    const std::string stage = ".envfix-tx-" + std::string(kTxId);
    write_text(sp() / stage / "new" / "fresh.txt", "new\n");
    plant_journal("prepared", {sp().string(), venv.string()}, "[[\"in\",0,\"fresh.txt\"]]");
    auto r = run_envfix({"recover", "--env", venv.string()}, {}, home);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(stdfs::exists(venv / ".envfix" / ("tx-" + std::string(kTxId) + ".json")));
    EXPECT_FALSE(stdfs::exists(sp() / stage));
}

// A snapshot whose digest field is a path: refused as unreadable, nothing copied or linked in.
TEST_F(UntrustedState, ASnapshotWhoseDigestIsAPathIsRefused) {
    const std::string sha = "../../../../../canary/secret.txt";
    const std::string padded = sha + std::string(64 - sha.size(), '/');
    write_text(venv / ".envfix" / "snapshots" / "90.snap",
               "{\"version\":1,\"id\":\"90\",\"created\":\"2026-01-01T00:00:00Z\",\"name\":\"planted\",\"reason\":\"\",\"root\":\"\","
               "\"files\":1,\"bytes\":8,\"dists\":[]}\n" +
                   padded + " 8 644 " + sp_rel() + "/stolen.txt\n");
    const auto before = snapshot(venv, {".envfix"});
    refused({"rollback", "planted", "--env", venv.string()}, 3, "90.snap");
    EXPECT_EQ(tree_diff(before, snapshot(venv, {".envfix"})), "");
}

// A snapshot that puts a file through a link in the environment, with its object planted in the
// store: the rollback is refused before anything moves.
TEST_F(UntrustedState, ARollbackThroughALinkInTheEnvironmentIsRefused) {
    stdfs::create_directory_symlink(canary, sp() / "link");
    const std::string body = "import os\n";
    const std::string sha = sha256_hex(body);
    write_text(venv / ".envfix" / "store" / "v1" / sha.substr(0, 2) / sha, body);
    write_text(venv / ".envfix" / "snapshots" / "90.snap",
               "{\"version\":1,\"id\":\"90\",\"created\":\"2026-01-01T00:00:00Z\",\"name\":\"planted\",\"reason\":\"\",\"root\":\"\","
               "\"files\":1,\"bytes\":10,\"dists\":[]}\n" +
                   sha + " 10 644 " + sp_rel() + "/link/evil.pth\n");
    refused({"rollback", "planted", "--env", venv.string()}, kUnsafeState, "is a link");
    EXPECT_FALSE(stdfs::exists(canary / "evil.pth"));
}

// envfix's own folder, or its store, made a link to elsewhere: nothing is written, read or
// removed there; the link itself stays for the user to delete.
TEST_F(UntrustedState, AStateFolderThatIsALinkIsRefused) {
    stdfs::remove_all(venv / ".envfix");
    stdfs::create_directory_symlink(canary, venv / ".envfix");
    canary_before = snapshot(canary);
    refused({"install", "--env", venv.string(), write_wheel(demo("2.0"), dir / "w2").string()}, kUnsafeState, ".envfix");
    refused({"rollback", "--env", venv.string()}, kUnsafeState, ".envfix");
    EXPECT_TRUE(stdfs::is_symlink(venv / ".envfix"));
    stdfs::remove(venv / ".envfix");
    stdfs::create_directories(venv / ".envfix" / "store" / "v1");
    stdfs::create_directory_symlink(canary, venv / ".envfix" / "store" / "v1" / "ab");
    refused({"install", "--env", venv.string(), write_wheel(demo("3.0"), dir / "w3").string()}, kUnsafeState, "ab");
}

// A RECORD row of the environment's that reaches a private file through a link: the snapshot of
// the present neither reads nor links it into the environment's store.
TEST_F(UntrustedState, ASnapshotNeverTakesAFileThroughALinkThatLeadsOutside) {
    stdfs::create_directory_symlink(canary, sp() / "outside");
    const auto record = sp() / "demo-1.0.dist-info" / "RECORD";
    write_text(record, read_text(record) + "outside/secret.txt,,\n");
    auto r = run_envfix({"snapshot", "--env", venv.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string sha = sha256_hex("private\n");
    EXPECT_FALSE(stdfs::exists(venv / ".envfix" / "store" / "v1" / sha.substr(0, 2) / sha));
}

// A .pth file in the environment runs code at the interpreter's start: envfix learns the
// interpreter's facts without site processing, so looking at an environment runs none of it.
TEST_F(UntrustedState, LearningTheInterpretersFactsRunsNoPthFile) {
    const auto ran = dir / "pth-ran";
    write_text(sp() / "zz_planted.pth", "import os; open(" + std::string("'") + ran.string() + "', 'w').close()\n");
    auto fresh = dir / "fresh-home";
    auto r = run_envfix({"doctor", "--env", venv.string()}, {}, fresh);
    EXPECT_NE(r.code, 1) << r.err;
    EXPECT_FALSE(stdfs::exists(ran));
    r = run_envfix({"install", "--env", venv.string(), write_wheel(demo("2.0"), dir / "w2").string()}, {}, fresh);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(stdfs::exists(ran));
}

// The files that make the folder an environment are no wheel's to write.
TEST_F(UntrustedState, AWheelCannotOverwriteTheEnvironmentsOwnFiles) {
    const auto before = snapshot(venv, {".envfix"});
    for (const char* entry : {"demo-2.0.data/data/bin/python3", "demo-2.0.data/data/pyvenv.cfg", "demo-2.0.data/scripts/activate"}) {
        SCOPED_TRACE(entry);
        auto s = demo("2.0");
        s.files.push_back({entry, "#!/bin/sh\n"});
        auto r = run_envfix({"install", "--env", venv.string(), write_wheel(s, dir / "bad").string()}, {}, home);
        EXPECT_EQ(r.code, 60) << r.err;
        EXPECT_NE(first_error_line(r).find("demo-2.0-py3-none-any.whl"), std::string::npos) << r.err;
    }
    auto ep = demo("2.0");
    ep.entry_points = "[console_scripts]\nactivate = demo:main\n";
    auto r = run_envfix({"install", "--env", venv.string(), write_wheel(ep, dir / "bad").string()}, {}, home);
    EXPECT_EQ(r.code, 60) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv, {".envfix"})), "");
}

// A RECORD that lists the interpreter: neither the upgrade that removes its distribution nor a
// rollback deletes it.
TEST_F(UntrustedState, NoRecordOrSnapshotRemovesTheInterpreter) {
    const auto record = sp() / "demo-1.0.dist-info" / "RECORD";
    write_text(record, read_text(record) + "../../../bin/python3,,\n../../../pyvenv.cfg,,\n");
    auto r = run_envfix({"install", "--env", venv.string(), write_wheel(demo("2.0"), dir / "w2").string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(stdfs::exists(venv / "bin" / "python3"));
    EXPECT_TRUE(stdfs::exists(venv / "pyvenv.cfg"));
    r = run_envfix({"rollback", "--env", venv.string()}, {}, home);
    EXPECT_EQ(r.code, 0) << r.err;
    r = run_envfix({"rollback", "--env", venv.string()}, {}, home);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(stdfs::exists(venv / "bin" / "python3"));
    EXPECT_TRUE(stdfs::exists(venv / "pyvenv.cfg"));
    EXPECT_EQ(run_program({(venv / "bin" / "python3").string(), "-c", "print(1)"}).code, 0);
}

// A RECORD row into envfix's own folder is skipped like any row outside, not an error.
TEST_F(UntrustedState, ARecordRowIntoEnvfixsOwnFolderIsSkipped) {
    const auto record = sp() / "demo-1.0.dist-info" / "RECORD";
    write_text(record, read_text(record) + "../../../.envfix/snapshots/1.snap,,\n");
    auto r = run_envfix({"install", "--env", venv.string(), write_wheel(demo("2.0"), dir / "w2").string()}, {}, home);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(stdfs::exists(venv / ".envfix" / "snapshots" / "1.snap"));
}

// Odd entries no filesystem takes are a bad wheel (60), not a write error.
TEST_F(UntrustedState, EntriesNoFilesystemTakesAreABadWheel) {
    std::string deep = "demo";
    for (int i = 0; i < 200; ++i) deep += "/d";
    const std::vector<ZipItem> odd = {{"demo/clash", "file"}, {"demo/clash/inside.py", "x"}};
    for (const auto& items : {odd, std::vector<ZipItem>{{"demo/" + std::string(300, 'n') + ".py", "x"}},
                              std::vector<ZipItem>{{deep + "/x.py", "x"}}}) {
        auto s = demo("2.0");
        for (const auto& it : items) s.files.push_back(it);
        auto r = run_envfix({"install", "--env", venv.string(), write_wheel(s, dir / "bad").string()}, {}, home);
        EXPECT_EQ(r.code, 60) << r.err;
    }
}

// A METADATA that inflates to more than envfix reads of a metadata file: refused before it is
// read, whatever the wheel's size.
TEST_F(UntrustedState, AMetadataBombIsRefused) {
    auto s = demo("2.0");
    s.description = std::string(40u << 20, ' ');
    const auto wheel = write_wheel(s, dir / "bomb");
    EXPECT_LT(stdfs::file_size(wheel), 1u << 20);
    auto r = run_envfix({"install", "--env", venv.string(), wheel.string()}, {}, home);
    EXPECT_EQ(r.code, 60) << r.err;
    EXPECT_NE(first_error_line(r).find("METADATA"), std::string::npos) << r.err;
}

// The unpacked-wheel cache shares inodes with the environments that installed a wheel: a file
// edited in place in one (same size) does not reach the next environment.
TEST_F(UntrustedState, AnInPlaceEditOfAnInstalledFileDoesNotReachTheNextEnvironment) {
    const auto lib = sp() / "demo" / "lib.py";
    const std::string original = read_text(lib);
    ::usleep(20000);
    {
        std::fstream f(lib, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(0);
        f.write("b", 1);
    }
    ASSERT_NE(read_text(lib), original);
    const auto other = dir / "venv2";
    make_bare_venv(other);
    auto r = run_envfix({"install", "--env", other.string(), wheel1.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(site_packages(other) / "demo" / "lib.py"), original);
    // The cache's copy took the wheel's bytes again: a third environment links them.
    const auto third = dir / "venv3";
    make_bare_venv(third);
    r = run_envfix({"install", "--env", third.string(), wheel1.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(site_packages(third) / "demo" / "lib.py"), original);
}
