// Crash consistency: envfix install killed at every fault point (ENVFIX_FAULT_AFTER=N: SIGKILL,
// as a power cut or `kill -9` would), Ctrl-C raised at fault points, and real `kill -9` at
// random moments. After each, the next envfix run (`envfix recover`, or the next install) must
// leave the environment byte for byte the old one or the new one: paths, contents, modes.
#include <gtest/gtest.h>
#include <signal.h>

#include <random>
#include <regex>
#include <thread>

#include "install_fixtures.hpp"

using namespace envfix;
using namespace envfix::test;
using Json = nlohmann::ordered_json;

namespace {

Json alpha(int version) {
    Json files = {{"alpha/__init__.py", "VERSION = " + std::to_string(version) + "\n"},
                  {"alpha/core.py", "def f():\n    return " + std::to_string(version * 10) + "\n"},
                  {"alpha/data/table.bin", {{"size", 20000}, {"seed", version}}},
                  {"ns/alpha_part.py", "part = 'alpha'\n"}};
    Json data = {{"data/share/alpha/" + std::string(version == 1 ? "a" : "b") + ".txt", "v" + std::to_string(version) + "\n"},
                 {"scripts/alpha-tool", {{"text", "#!python\nprint('alpha')\n"}, {"mode", 493}}}};
    Json eps = {{"alpha-cli", "alpha.core:f"}};
    if (version == 1) {
        files["alpha/sub/x.py"] = "x = 1\n";
    } else {
        files["alpha/new.py"] = "n = 2\n";
        eps["alpha-two"] = "alpha.core:f";
    }
    return {{"name", "alpha"}, {"version", std::to_string(version) + ".0"}, {"files", files}, {"data", data},
            {"entry_points", {{"console_scripts", eps}}}};
}

Json beta() {
    Json files = {{"beta/__init__.py", ""}, {"beta/big.bin", {{"size", 200000}, {"seed", 7}}}, {"ns/beta_part.py", "part = 'beta'\n"}};
    for (int i = 0; i < 12; ++i) files["beta/mods/m" + std::to_string(i) + ".py"] = "i = " + std::to_string(i) + "\n";
    return {{"name", "beta"},
            {"version", "1.0"},
            {"files", files},
            {"data", {{"headers/beta.h", "#pragma once\n"}}},
            {"entry_points", {{"console_scripts", {{"beta-cli", "beta:main"}}}}}};
}

class Crash : public ::testing::Test {
protected:
    void SetUp() override {
        home = dir / "home";
        venv = dir / "venv";
        make_bare_venv(venv);
        auto w1 = build_wheel(alpha(1), dir / "wheels");
        auto r = envfix_run({"install", "--env", venv.string(), w1.string()}, {});
        ASSERT_EQ(r.code, 0) << r.err;
        write_text(site_packages(venv) / "ns" / "user.txt", "not from any wheel\n");
        old_model = dir / "old-model";
        copy_tree(venv, old_model);
        old_tree = env_tree();
        new_args = {"install", "--env", venv.string(), build_wheel(alpha(2), dir / "wheels").string(),
                    build_wheel(beta(), dir / "wheels").string()};
        auto n = envfix_run(with(new_args, "-v"), {});
        ASSERT_EQ(n.code, 0) << n.err;
        new_tree = env_tree();
        std::smatch m;
        ASSERT_TRUE(std::regex_search(n.err, m, std::regex(R"((\d+) fault points passed)"))) << n.err;
        fault_points = std::stoi(m[1]);
        ASSERT_GT(fault_points, 30);
        ASSERT_NE(tree_diff(old_tree, new_tree), "");
    }

    // envfix with the ready-tree mode of the test (`trees`) and `extra`, the caches in `home`.
    RunResult envfix_run(const std::vector<std::string>& args, const EnvList& extra = {}) {
        EnvList env = trees;
        env.insert(env.end(), extra.begin(), extra.end());
        return run_envfix(args, env, home);
    }

    // Killed at each of `points` fault points (and once after the last), then recovered by
    // `envfix recover` or by the next install, alternately.
    void kill_at_every_point(int points) {
        std::map<std::string, int> seen;
        for (int n = 1; n <= points + 1; ++n) {
            SCOPED_TRACE("ENVFIX_FAULT_AFTER=" + std::to_string(n));
            restore_tree(venv, old_model);
            ASSERT_EQ(which(), "old");
            make_ready();
            auto killed = envfix_run(new_args, {{"ENVFIX_FAULT_AFTER", std::to_string(n)}});
            EXPECT_EQ(killed.code, n <= points ? 128 + SIGKILL : 0) << killed.err;
            // Every other time the next install does the recovery, and must then install.
            if (n % 2 == 1) {
                auto r = envfix_run({"recover", "--env", venv.string()});
                ASSERT_EQ(r.code, 0) << r.err;
                auto state = which();
                ASSERT_TRUE(state == "old" || state == "new") << state;
                seen[state]++;
            } else {
                auto r = envfix_run(new_args);
                ASSERT_EQ(r.code, 0) << r.err;
                ASSERT_EQ(which(), "new");
                seen["reinstalled"]++;
            }
        }
        // Both outcomes happen: killed before the commit point (old) and after it (new).
        EXPECT_GT(seen["old"], 0);
        EXPECT_GT(seen["new"], 0);
        EXPECT_GT(seen["reinstalled"], 0);
    }

    // With ready trees on: the ones a killed run took, made again (it asked for them first).
    void make_ready() {
        if (trees.front().second == "0") return;
        auto r = envfix_run({"cache", "ready"});
        ASSERT_EQ(r.code, 0) << r.err;
    }

    static std::vector<std::string> with(std::vector<std::string> args, const std::string& extra) {
        args.push_back(extra);
        return args;
    }

    // The environment without envfix's snapshots and store (their contents depend on where the
    // install stopped; docs/snapshots.md), plus the journals, which must be gone after recovery.
    Tree env_tree() {
        return snapshot(venv, {".envfix/snapshots", ".envfix/store"});
    }

    // "old", "new", or the difference from the nearer one.
    std::string which() {
        auto now = env_tree();
        if (now == old_tree) return "old";
        if (now == new_tree) return "new";
        return "neither; against old:\n" + tree_diff(old_tree, now) + "against new:\n" + tree_diff(new_tree, now);
    }

    TempDir dir;
    stdfs::path home, venv, old_model;
    Tree old_tree, new_tree;
    std::vector<std::string> new_args;
    int fault_points = 0;
    // Ready trees off (the set-up and the tests but the one that turns them on): every run goes
    // the same way whatever the runs before it left in the cache.
    EnvList trees{{"ENVFIX_READY_TREES", "0"}};
};

}  // namespace

TEST_F(Crash, KilledAtEveryFaultPointRecoversToOldOrNew) {
    ASSERT_GE(fault_points + 1, 50) << "the crash test needs at least 50 kill points";
    std::printf("killing the install at each of its %d fault points\n", fault_points);
    kill_at_every_point(fault_points);
}

TEST_F(Crash, KilledAtEveryFaultPointWhileTakingAReadyTreeRecoversToOldOrNew) {
    // Trees made before envfix exits. From the old tree twice: beta's tree asked for and made
    // (its entry, made by the set-up's install, is on the disk), then taken (alpha 2 keeps alpha
    // 1's unchanged files in place, so gets none). Every killed run below takes it, made again
    // first (make_ready()).
    trees = {{"ENVFIX_READY_TREES", "wait"}};
    RunResult n;
    for (int k = 0; k < 2; ++k) {
        restore_tree(venv, old_model);
        n = envfix_run(with(new_args, "-vv"));
        ASSERT_EQ(n.code, 0) << n.err;
        ASSERT_EQ(env_tree(), new_tree);
    }
    ASSERT_NE(n.err.find("ready trees used: 1 wheels'"), std::string::npos) << n.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(n.err, m, std::regex(R"((\d+) fault points passed)"))) << n.err;
    const int points = std::stoi(m[1]);
    ASSERT_GE(points, 30);
    std::printf("killing the install at each of its %d fault points, taking a ready tree\n", points);
    kill_at_every_point(points);
}

TEST_F(Crash, CtrlCAtFaultPointsLeavesOldOrNewWithoutRecovery) {
    std::mt19937 rng(12345);
    for (int k = 0; k < 12; ++k) {
        int n = 1 + static_cast<int>(rng() % static_cast<unsigned>(fault_points));
        SCOPED_TRACE("ENVFIX_FAULT_AFTER=" + std::to_string(n) + ":int");
        restore_tree(venv, old_model);
        auto r = envfix_run(new_args, {{"ENVFIX_FAULT_AFTER", std::to_string(n) + ":int"}});
        EXPECT_EQ(r.code, 130) << r.err;
        auto state = which();
        ASSERT_TRUE(state == "old" || state == "new") << state;
        if (state == "old") {
            EXPECT_NE(r.err.find("interrupted; the environment was left as it was"), std::string::npos) << r.err;
        }
    }
}

TEST_F(Crash, RealKillNineAtRandomMomentsRecoversToOldOrNew) {
    // How long an install takes here, to spread the kills over it.
    restore_tree(venv, old_model);
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(envfix_run(new_args, {}).code, 0);
    auto span = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
    std::mt19937 rng(424242);
    std::map<std::string, int> seen;
    for (int k = 0; k < 15; ++k) {
        restore_tree(venv, old_model);
        auto pid = spawn_envfix(new_args, trees, home, dir / "kill.log");
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % static_cast<unsigned>(span)));
        ::kill(pid, SIGKILL);
        int code = wait_exit(pid);
        auto r = envfix_run({"recover", "--env", venv.string()}, {});
        ASSERT_EQ(r.code, 0) << r.err;
        auto state = which();
        ASSERT_TRUE(state == "old" || state == "new") << "exit " << code << ": " << state;
        seen[state]++;
    }
    EXPECT_EQ(seen["old"] + seen["new"], 15);
}
