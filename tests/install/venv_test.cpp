// `envfix install --venv DIR --create`: the venv envfix makes against the one
// `python -m venv --without-pip` makes at the same path, for several interpreters; it runs,
// sys.prefix is right, activation works, the wheel is importable.
#include <gtest/gtest.h>

#include <sstream>

#include "install_fixtures.hpp"

using namespace envfix;
using namespace envfix::test;

namespace {

std::vector<stdfs::path> bases() {
    std::vector<stdfs::path> out{test_python()};
    for (const char* v : {"3.8.18", "3.13.0"}) {
        stdfs::path p = stdfs::path("/root/.pyenv/versions") / v / "bin" / "python3";
        if (stdfs::exists(p)) out.push_back(p);
    }
    return out;
}

std::map<std::string, std::string> cfg(const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        auto eq = line.find(" = ");
        if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 3);
    }
    return out;
}

}  // namespace

TEST(Venv, EnvfixMakesWhatVenvMakes) {
    for (const auto& base : bases()) {
        SCOPED_TRACE(base.string());
        TempDir dir;
        auto v = dir / "env one";  // a space, so quoting in the activation scripts matters
        auto wheel = build_wheel({{"name", "probe-mod"}, {"version", "1"}, {"files", {{"probe_mod.py", "X = 42\n"}}}}, dir / "w");

        auto made = run_program({base.string(), "-m", "venv", "--without-pip", v.string()});
        ASSERT_EQ(made.code, 0) << made.err;
        Tree by_venv = snapshot(v);
        stdfs::remove_all(v);

        auto r = run_envfix({"install", "--venv", v.string(), "--create", "--base-python", base.string(), wheel.string()}, {},
                            dir / "home");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.err.find("created the virtual environment"), std::string::npos) << r.err;
        auto sp = site_packages(v).lexically_relative(v).generic_string();
        // .envfix: the snapshot taken before the install (docs/snapshots.md).
        Tree by_envfix = snapshot(v, {sp + "/probe_mod.py", sp + "/probe_mod-1.dist-info", ".envfix"});

        for (const auto& [path, e] : by_venv) {
            auto it = by_envfix.find(path);
            ASSERT_NE(it, by_envfix.end()) << "envfix lacks " << path;
            EXPECT_EQ(it->second.type, e.type) << path;
            EXPECT_EQ(it->second.mode, e.mode) << path;
            if (path == "pyvenv.cfg") continue;
            EXPECT_TRUE(it->second.data == e.data) << "differs: " << path;
        }
        for (const auto& [path, e] : by_envfix) EXPECT_TRUE(by_venv.count(path)) << "envfix adds " << path;
        // pyvenv.cfg: the same keys but venv's "command" line; envfix names itself instead.
        auto a = cfg(by_venv.at("pyvenv.cfg").data), b = cfg(by_envfix.at("pyvenv.cfg").data);
        a.erase("command");
        EXPECT_EQ(b.count("envfix"), 1u);
        b.erase("envfix");
        EXPECT_EQ(a, b);

        // It runs, it is a venv of that base, the wheel is in it.
        auto py = run_program({(v / "bin" / "python").string(), "-c",
                               "import sys, probe_mod; print(sys.prefix); print(sys.base_prefix != sys.prefix); print(probe_mod.X)"});
        ASSERT_EQ(py.code, 0) << py.err;
        EXPECT_EQ(py.out, v.string() + "\nTrue\n42\n");
        auto act = run_program({"bash", "-c", ". \"$1/bin/activate\" && echo \"$VIRTUAL_ENV\" && command -v python", "-", v.string()});
        EXPECT_EQ(act.out, v.string() + "\n" + (v / "bin" / "python").string() + "\n") << act.err;
    }
}

TEST(Venv, CreateIsIdempotentAndRefusesABusyFolder) {
    TempDir dir;
    auto wheel = build_wheel({{"name", "m"}, {"version", "1"}, {"files", {{"m.py", ""}}}}, dir / "w");
    auto v = dir / "v";
    ASSERT_EQ(run_envfix({"install", "--venv", v.string(), "--create", wheel.string()}, {{"PATH", "/usr/bin:/bin"}}, dir / "h").code, 0);
    auto again = run_envfix({"install", "--venv", v.string(), "--create", wheel.string()}, {{"PATH", "/usr/bin:/bin"}}, dir / "h");
    EXPECT_EQ(again.code, 0) << again.err;
    EXPECT_NE(again.err.find("is a virtual environment already"), std::string::npos) << again.err;
    auto busy = dir / "busy";
    write_text(busy / "something.txt", "x");
    auto r = run_envfix({"install", "--venv", busy.string(), "--create", wheel.string()}, {{"PATH", "/usr/bin:/bin"}}, dir / "h");
    EXPECT_EQ(r.code, 3) << r.err;
    EXPECT_NE(first_error_line(r).find(busy.string()), std::string::npos);
    EXPECT_EQ(snapshot(busy).size(), 1u);
    // No temporary folder is left beside it.
    for (const auto& e : stdfs::directory_iterator(dir.path()))
        EXPECT_EQ(e.path().filename().string().find(".envfix-tmp-"), std::string::npos) << e.path();
    auto usage = run_envfix({"install", "--create", wheel.string()}, {}, dir / "h");
    EXPECT_EQ(usage.code, 2);
}
