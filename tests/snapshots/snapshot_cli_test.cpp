// Snapshots, history and rollback end to end: the built binary, real venvs, test wheels. Every
// rollback is compared byte for byte (paths, types, modes, contents) with the tree recorded
// when the snapshot was taken; rollbacks run without network and with an empty wheel cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "envfix/common/hash.hpp"
#include "install_fixtures.hpp"
#include "support.hpp"

using namespace envfix::test;
namespace stdfs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

class SnapshotCli : public ::testing::Test {
protected:
    TempDir dir{"snap"};
    stdfs::path venv = dir / "venv";
    stdfs::path home = dir / "home";
    stdfs::path sp;

    void SetUp() override {
        make_bare_venv(venv);
        sp = site_packages(venv);
    }
    RunResult envfix(std::vector<std::string> args) {
        args.insert(args.end(), {"--env", venv.string()});
        return run_envfix(args, {}, home);
    }
    // The environment without envfix's own folder (snapshots and store live there).
    Tree state() { return snapshot(venv, {".envfix"}); }
    stdfs::path wheel(const std::string& name, const std::string& version, const Json& files, const Json& extra = Json::object()) {
        Json spec = {{"name", name}, {"version", version}, {"files", files}};
        spec.update(extra);
        return build_wheel(spec, dir / "wheels");
    }
    void install(const stdfs::path& w) {
        auto r = envfix({"install", w.string()});
        ASSERT_EQ(r.code, 0) << r.err;
    }
};

}  // namespace

TEST_F(SnapshotCli, RollbackToPreviousAndNamedByteForByteAndUndo) {
    auto empty = state();
    auto w1 = wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}, {"demo/old.py", "old = True\n"}},
                    {{"entry_points", {{"console_scripts", {{"demo", "demo:main"}}}}}});
    install(w1);
    auto one = state();
    ASSERT_EQ(envfix({"snapshot", "--name", "good"}).code, 0);
    auto w2 = wheel("demo", "2.0", {{"demo/__init__.py", "v = 2\n"}, {"demo/new.py", "new = True\n"}});
    auto w3 = wheel("extra-pkg", "0.1", {{"extra_pkg/__init__.py", ""}});
    ASSERT_EQ(envfix({"install", w2.string(), w3.string()}).code, 0);
    auto two = state();
    ASSERT_NE(tree_diff(one, two), "");

    // No network, no wheel cache, no wheel files: the snapshot's own store is enough.
    stdfs::remove_all(dir / "wheels");
    stdfs::remove_all(home);

    auto r = envfix({"rollback", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(tree_diff(one, state()), "");
    auto j = r.json();
    std::string before = j["snapshot_before"];
    EXPECT_GT(j["files_in"].get<int>(), 0);
    EXPECT_EQ(j["distributions_out"].size(), 2u);  // demo 2.0 and extra-pkg

    // The rollback is undone like any change: by rolling back to the snapshot it took.
    ASSERT_EQ(envfix({"rollback", before}).code, 0);
    EXPECT_EQ(tree_diff(two, state()), "");
    // With no id again: the newest snapshot that differs (the one before the undo).
    ASSERT_EQ(envfix({"rollback"}).code, 0);
    EXPECT_EQ(tree_diff(one, state()), "");

    ASSERT_EQ(envfix({"install", "--force-reinstall", (dir / "none.whl").string()}).code, 3);  // missing file: nothing changes
    ASSERT_EQ(envfix({"rollback", before}).code, 0);
    ASSERT_EQ(envfix({"rollback", "good"}).code, 0);
    EXPECT_EQ(tree_diff(one, state()), "");
    ASSERT_EQ(envfix({"rollback", "1"}).code, 0);  // before the first install
    EXPECT_EQ(tree_diff(empty, state()), "");
    EXPECT_FALSE(stdfs::exists(sp / "demo"));

    auto again = envfix({"rollback", "1"});
    EXPECT_EQ(again.code, 0);
    EXPECT_NE(again.out.find("already equals snapshot 1"), std::string::npos) << again.out;
}

TEST_F(SnapshotCli, ASnapshotWhoseLinesAreOutOfOrderRollsBackTheSame) {
    // A rollback walks the present and the snapshot side by side in path order; a snapshot file
    // edited by hand, its lines in another order, is put in order first.
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}, {"demo/a.py", "a\n"}, {"demo/z.py", "z\n"}, {"demo/sub/m.py", "m\n"}}));
    auto one = state();
    install(wheel("demo", "2.0", {{"demo/__init__.py", "v = 2\n"}, {"demo/b.py", "b\n"}, {"demo/sub/m.py", "m\n"}}));
    const auto file = venv / ".envfix" / "snapshots" / "2.snap";
    auto text = read_text(file);
    const auto head_end = text.find('\n') + 1;
    std::vector<std::string> lines;
    for (size_t at = head_end; at < text.size();) {
        const auto eol = text.find('\n', at);
        lines.push_back(text.substr(at, eol - at + 1));
        at = eol + 1;
    }
    ASSERT_GE(lines.size(), 4u);
    std::reverse(lines.begin(), lines.end());
    std::string reordered = text.substr(0, head_end);
    for (const auto& l : lines) reordered += l;
    ASSERT_NE(reordered, text);
    write_text(file, reordered);
    auto r = envfix({"rollback", "--json", "2"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(tree_diff(one, state()), "");
    EXPECT_EQ(r.json()["files_unchanged"].get<int>(), 1) << "demo/sub/m.py";
}

TEST_F(SnapshotCli, ARollbackTakesTheBytecodeOfWhatGoesAndLeavesTheRest) {
    // Bytecode is no snapshot's: a file that goes takes its __pycache__ entries with it; one the
    // snapshot still has keeps them.
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}, {"demo/m.py", "m\n"}}));
    install(wheel("demo", "2.0", {{"demo/__init__.py", "v = 2\n"}, {"demo/m.py", "m\n"}, {"demo/b.py", "b\n"}}));
    for (const char* stem : {"b", "m"}) write_text(sp / "demo/__pycache__" / (std::string(stem) + ".cpython-311.pyc"), "bytecode");
    auto r = envfix({"rollback"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(stdfs::exists(sp / "demo/b.py"));
    EXPECT_FALSE(stdfs::exists(sp / "demo/__pycache__/b.cpython-311.pyc"));
    EXPECT_TRUE(stdfs::exists(sp / "demo/__pycache__/m.cpython-311.pyc"));
    EXPECT_EQ(read_text(sp / "demo/__init__.py"), "v = 1\n");
}

TEST_F(SnapshotCli, ASnapshotDamagedInItsLinesIsRefusedByNameOrIdAndChangesNothing) {
    // Found by its header (a name) or its file (an id), a snapshot is read whole before anything
    // moves: a damaged line is a damaged snapshot (3, naming the file), not a missing one.
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}}));
    ASSERT_EQ(envfix({"snapshot", "--name", "good"}).code, 0);  // 2
    install(wheel("demo", "2.0", {{"demo/__init__.py", "v = 2\n"}}));
    const auto file = venv / ".envfix" / "snapshots" / "2.snap";
    write_text(file, read_text(file) + "not a file line\n");
    const auto before = snapshot(venv);
    for (const char* which : {"good", "2"}) {
        auto r = envfix({"rollback", which});
        EXPECT_EQ(r.code, 3) << which << ": " << r.err;
        EXPECT_NE(first_error_line(r).find("2.snap"), std::string::npos) << r.err;
        EXPECT_EQ(tree_diff(before, snapshot(venv)), "") << which;
    }
    auto h = envfix({"history"});  // the headers alone: listed
    EXPECT_EQ(h.code, 0);
    EXPECT_NE(h.out.find("[good]"), std::string::npos) << h.out;
}

TEST_F(SnapshotCli, WhenNoSnapshotCanBeReadTheJsonErrorSaysWhichWereSkipped) {
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}}));  // snapshot 1: before it
    write_text(venv / ".envfix" / "snapshots" / "1.snap", "{\"version\": 99}\n");
    const auto before = snapshot(venv);
    auto r = envfix({"rollback", "--json"});
    EXPECT_EQ(r.code, 66) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["error"]["key"], "snapshot.none");
    EXPECT_NE(j["warnings"].dump().find("1.snap"), std::string::npos) << r.out;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
}

TEST_F(SnapshotCli, HistoryListsWhyAndWhatChanged) {
    auto h0 = envfix({"history"});
    EXPECT_EQ(h0.code, 0);
    EXPECT_NE(h0.out.find("no snapshots"), std::string::npos);
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}}));
    install(wheel("demo", "2.0", {{"demo/__init__.py", "v = 2\n"}}));
    ASSERT_EQ(envfix({"snapshot", "--name", "mine"}).code, 0);
    auto h = envfix({"--json", "history"});
    ASSERT_EQ(h.code, 0) << h.err;
    auto list = h.json()["snapshots"];
    ASSERT_EQ(list.size(), 3u);
    EXPECT_EQ(list[0]["id"], "1");
    EXPECT_NE(list[0]["reason"].get<std::string>().find("demo-1.0"), std::string::npos);
    EXPECT_EQ(list[0]["changes_after"], Json::array({"+demo 1.0"}));
    EXPECT_EQ(list[1]["changes_after"], Json::array({"-demo 1.0", "+demo 2.0"}));
    EXPECT_EQ(list[2]["name"], "mine");
    EXPECT_EQ(list[2]["reason"], "snapshot");
    EXPECT_EQ(list[2]["changes_after"], Json::array());
    auto text = envfix({"history"});
    EXPECT_NE(text.out.find("[mine]"), std::string::npos) << text.out;
    // history reads the headers alone; a snapshot from before the header held its bytes is read
    // whole for them.
    const auto bytes = list[1]["bytes"].get<uint64_t>();
    EXPECT_GT(bytes, 0u);
    const auto file = venv / ".envfix" / "snapshots" / "2.snap";
    auto snap_text = read_text(file);
    const auto at = snap_text.find(",\"bytes\":");
    ASSERT_NE(at, std::string::npos);
    snap_text.erase(at, snap_text.find(',', at + 1) - at);
    write_text(file, snap_text);
    auto older = envfix({"--json", "history"});
    ASSERT_EQ(older.code, 0) << older.err;
    EXPECT_EQ(older.json()["snapshots"][1]["bytes"].get<uint64_t>(), bytes);
}

TEST_F(SnapshotCli, GcKeepsTheNewestAndNamedAndWhatTheyNeed) {
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}, {"demo/big.py", std::string(5000, '#')}}));
    ASSERT_EQ(envfix({"snapshot", "--name", "first"}).code, 0);  // 2
    auto first = state();
    install(wheel("demo", "2.0", {{"demo/__init__.py", "v = 2\n"}}));  // 3
    install(wheel("demo", "3.0", {{"demo/__init__.py", "v = 3\n"}}));  // 4: demo 2.0
    install(wheel("demo", "4.0", {{"demo/__init__.py", "v = 4\n"}}));  // 5: demo 3.0
    auto r = envfix({"--json", "snapshot", "gc", "--keep", "1"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.json()["removed"], Json::array({"1", "3", "4"}));
    // demo 2.0's files: no kept snapshot needs them (demo 1.0's stay for "first").
    EXPECT_GT(r.json()["objects_removed"].get<int>(), 0);
    auto h = envfix({"--json", "history"}).json()["snapshots"];
    ASSERT_EQ(h.size(), 2u);
    EXPECT_EQ(h[0]["id"], "2");
    EXPECT_EQ(h[1]["id"], "5");
    ASSERT_EQ(envfix({"rollback", "first"}).code, 0);
    EXPECT_EQ(tree_diff(first, state()), "");
    EXPECT_EQ(envfix({"rollback", "3"}).code, 66);
}

TEST_F(SnapshotCli, LockedEnvironmentIsLeftAlone) {
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}}));
    install(wheel("demo", "2.0", {{"demo/__init__.py", "v = 2\n"}}));
    auto before = snapshot(venv);
    {
        HeldLock lock(venv);
        for (auto args : {std::vector<std::string>{"rollback"}, {"snapshot"}, {"snapshot", "gc", "--keep", "0"}}) {
            auto r = envfix(args);
            EXPECT_EQ(r.code, 64) << args[0] << r.err;
            EXPECT_NE(first_error_line(r).find("process"), std::string::npos) << r.err;
        }
    }
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
}

TEST_F(SnapshotCli, DamagedStoreOrUnknownIdChangesNothing) {
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}, {"demo/data.txt", "precious data\n"}}));
    install(wheel("demo", "2.0", {{"demo/__init__.py", "v = 2\n"}}));
    auto before = snapshot(venv);
    auto r = envfix({"rollback", "nope"});
    EXPECT_EQ(r.code, 66);
    EXPECT_NE(first_error_line(r).find("no snapshot \"nope\""), std::string::npos) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");

    // The stored copy of data.txt (an object no longer linked from the environment; the
    // unpacked-wheel cache may hold another link) is cut short.
    bool cut = false;
    const auto data_sha = envfix::sha256_hex("precious data\n");
    for (const auto& e : stdfs::recursive_directory_iterator(venv / ".envfix" / "store"))
        if (e.is_regular_file() && e.path().filename().string() == data_sha) {
            stdfs::resize_file(e.path(), 3);
            cut = true;
        }
    ASSERT_TRUE(cut);
    before = snapshot(venv);
    auto d = envfix({"rollback", "2"});
    EXPECT_EQ(d.code, 3) << d.err;
    EXPECT_NE(first_error_line(d).find("demo/data.txt"), std::string::npos) << d.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");

    // A snapshot file that cannot be read is skipped with a warning naming it.
    write_text(venv / ".envfix" / "snapshots" / "9.snap", "{\"version\": 99}\n");
    auto h = envfix({"history"});
    EXPECT_EQ(h.code, 0);
    EXPECT_NE(h.err.find("9.snap"), std::string::npos) << h.err;
    // Named by its id it is no snapshot; with no id, a rollback reads the newest first, skips
    // it with the same warning and goes to the newest readable one that differs.
    before = snapshot(venv);
    auto named = envfix({"rollback", "9"});
    EXPECT_EQ(named.code, 66) << named.err;
    EXPECT_NE(named.err.find("9.snap"), std::string::npos) << named.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
    stdfs::resize_file(venv / ".envfix" / "snapshots" / "2.snap", 40);  // and the one it would take
    auto newest = envfix({"rollback", "--json"});
    ASSERT_EQ(newest.code, 0) << newest.err;
    const auto warned = newest.json()["warnings"].dump();  // with --json, in the document
    EXPECT_NE(warned.find("9.snap"), std::string::npos) << warned;
    EXPECT_NE(warned.find("2.snap"), std::string::npos) << warned;
    EXPECT_EQ(newest.json()["to"], "1");  // before the first install: nothing of demo
    EXPECT_FALSE(stdfs::exists(sp / "demo"));
}

TEST_F(SnapshotCli, EveryCommandFinishesAnInterruptedTransactionFirst) {
    install(wheel("demo", "1.0", {{"demo/__init__.py", "v = 1\n"}}));
    auto before = state();
    // What an envfix killed while staging leaves: a journal, and a staged file beside its area.
    auto state_dir = venv / ".envfix";
    auto stage = sp / ".envfix-tx-20261129T000000-1";
    write_text(stage / "new" / "demo" / "half.py", "partial");
    Json journal = {{"version", 1}, {"id", "20261129T000000-1"}, {"state", "staging"}, {"pid", 1},
                    {"created", "2026-11-29T00:00:00Z"}, {"summary", "install demo 9"}, {"areas", {sp.string()}},
                    {"ops", Json::array()}};
    for (auto args : {std::vector<std::string>{"history"}, {"doctor"}, {"check"}, {"archs"}, {"snapshot"}}) {
        write_text(state_dir / "tx-20261129T000000-1.json", journal.dump());
        write_text(stage / "new" / "demo" / "half.py", "partial");
        auto r = envfix(args);
        EXPECT_FALSE(stdfs::exists(state_dir / "tx-20261129T000000-1.json")) << args[0] << ": " << r.err;
        EXPECT_FALSE(stdfs::exists(stage)) << args[0];
        EXPECT_NE(r.err.find("install demo 9"), std::string::npos) << args[0] << ": " << r.err;
        EXPECT_EQ(tree_diff(before, state()), "") << args[0];
    }
}
