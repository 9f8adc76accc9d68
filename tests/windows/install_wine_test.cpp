// envfix.exe changing a ComfyUI_windows_portable install under Wine: plan and install from the
// test index of win_amd64 wheels served on 127.0.0.1 into python_embeded (no python.exe run),
// history, rollback to the files as they were.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <regex>
#include <thread>

#include "fixtures.hpp"
#include "index_fixtures.hpp"
#include "install_fixtures.hpp"
#include "layouts.hpp"
#include "pip_envs.hpp"
#include "verify_fixtures.hpp"
#include "wine_fixture.hpp"

namespace envfix::test::wine {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Installs : public WineTest {
protected:
    static void SetUpTestSuite() {
        index = new ServedIndex({"--variants", "cu126,cu128", "--torch", "2.7.0", "--pythons", "cp312", "--platforms", "win_amd64"});
    }
    static void TearDownTestSuite() {
        delete index;
        index = nullptr;
    }
    static ServedIndex* index;

    stdfs::path app = dir / "ComfyUI_windows_portable";
    stdfs::path site = app / "python_embeded/Lib/site-packages";

    void SetUp() override {
        WineTest::SetUp();
        if (IsSkipped()) return;
        make_embedded(app / "python_embeded", "python312.zip\n.\nLib/site-packages\n../ComfyUI\nimport site\n");
        write_text(app / "ComfyUI/main.py", "# ComfyUI\n");
    }
    std::vector<std::string> target() const { return {"--app", "comfyui", "--path", winpath(app)}; }
    std::vector<std::string> index_args(const std::string& variant) const {
        std::string root = index->server->url("/");
        return {"--pytorch-index", root,       "--index-url", root + variant + "/", "--gpu",
                "RTX 5090",        "--driver", "570.133.07",  "--variant",          variant};
    }
    std::vector<std::string> args(std::vector<std::string> head, const std::vector<std::string>& tail = {}) const {
        for (const auto& a : target()) head.push_back(a);
        head.insert(head.end(), tail.begin(), tail.end());
        return head;
    }
    // torch 2.6.0+cu124 in python_embeded, as pip put it there, its torch_cuda.dll a real PE DLL
    // with sm_86 code only.
    void install_old_torch() {
        pip_install_target(
            site, {build_wheel(
                      torch_wheel(
                          {.version = "2.6.0+cu124", .cuda = "12.4", .lib_fixture = "win_long_names_86.dll", .lib_name = "torch_cuda.dll"}),
                      dir / "wheels")});
    }
    static std::vector<std::string> with_verbose(std::vector<std::string> a) {
        a.push_back("-v");
        return a;
    }
    std::vector<std::string> dist_infos() const {
        std::vector<std::string> out;
        for (const auto& e : stdfs::directory_iterator(site))
            if (e.path().extension() == ".dist-info") out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
};
ServedIndex* Installs::index = nullptr;

TEST_F(Installs, PlanInstallHistoryRollbackOnComfyUiPortable) {
    auto before = snapshot(app);
    auto plan = envfix(args({"plan", "--json"}, index_args("cu128")));
    ASSERT_EQ(plan.code, 0) << plan.out << plan.err;
    EXPECT_TRUE(has(plan.out, "torch-2.7.0+cu128-cp312-cp312-win_amd64.whl")) << plan.out;

    // No verify: it runs the environment's python.exe, and no Windows Python runs here.
    auto r = envfix(args({"install", "--json", "--no-verify"}, index_args("cu128")), standin(rtx5090()), 300);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto d = dist_infos();
    EXPECT_NE(std::find(d.begin(), d.end(), "torch-2.7.0+cu128.dist-info"), d.end()) << ::testing::PrintToString(d);
    EXPECT_TRUE(stdfs::exists(site / "torch")) << "the wheel's files under Lib\\site-packages";
    for (const auto& name : d) EXPECT_FALSE(has(name, "nvidia_")) << name << ": Linux-only requirement installed";
    auto after = snapshot(app, {"python_embeded/.envfix"});

    auto h = envfix(args({"history", "--json"}));
    ASSERT_EQ(h.code, 0) << h.out << h.err;
    EXPECT_TRUE(has(h.out, "2.7.0+cu128")) << h.out;

    auto back = envfix(args({"rollback"}));
    ASSERT_EQ(back.code, 0) << back.out << back.err;
    EXPECT_EQ(tree_diff(before, snapshot(app, {"python_embeded/.envfix"})), "");
    ASSERT_EQ(envfix(args({"rollback"})).code, 0);  // the rollback undone
    EXPECT_EQ(tree_diff(after, snapshot(app, {"python_embeded/.envfix"})), "");
}

// fix-comfyui.bat double-clicked in the portable folder (cmd.exe runs it; nothing at stdin, as
// no one is at the pause): doctor finds torch 2.6.0+cu124 without sm_120 code, the install takes
// cu128 from the index the environment names, and its verification passes the driver check but
// cannot start python.exe (no Windows Python runs here), so the install is undone: the folder is
// as it was.
TEST_F(Installs, FixComfyUiBatInstallsAndUndoesWhatItsVerificationRefuses) {
    install_old_torch();
    stdfs::copy_file(exe(), app / "envfix.exe");
    stdfs::copy_file(source_dir() / "contrib/windows/fix-comfyui.bat", app / "fix-comfyui.bat");
    auto before = snapshot(app, {"python_embeded/.envfix"});
    auto env = standin(rtx5090());
    env.push_back({"ENVFIX_INDEX_URL", index->server->url("/")});
    env.push_back({"PIP_INDEX_URL", index->server->url("/cu128/")});
    auto r = wine({"cmd", "/c", "fix-comfyui.bat"}, env, app);
    const std::string all = r.out + r.err;
    EXPECT_TRUE(has(all, "gpu_not_served") || has(all, "has no ready kernels for your GeForce RTX 5090")) << all;
    EXPECT_TRUE(has(all, "installed torch 2.7.0+cu128")) << all;
    EXPECT_TRUE(has(all, "driver check passed")) << all;
    EXPECT_TRUE(has(all, "so it was undone")) << all;
    EXPECT_TRUE(has(all, "Press any key")) << all;
    EXPECT_EQ(tree_diff(before, snapshot(app, {"python_embeded/.envfix"})), "");
}

// holder.exe (tests/windows/dlls/holder.c) holding `file` until `stop` appears or `ms` have
// passed: a running ComfyUI ("load": a DLL loaded) or a scanner ("open": no moving or deleting).
class Holder {
public:
    Holder(WineTest& t, const std::string& how, const stdfs::path& file, const stdfs::path& dir, int ms = 0)
        : ready_(dir / "holder-ready"), stop_(dir / "holder-stop") {
        stdfs::remove(ready_);
        stdfs::remove(stop_);
        std::vector<std::string> argv{(build_dir() / "standin/holder.exe").string(), how, winpath(file), winpath(ready_), winpath(stop_)};
        if (ms) argv.push_back(std::to_string(ms));
        thread_ = std::thread([&t, argv, dir] { t.wine(argv, {}, dir, 150); });
        for (int i = 0; i < 300 && !stdfs::exists(ready_); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ~Holder() { release(); }
    bool holds() const { return stdfs::exists(ready_); }
    void release() {
        if (!thread_.joinable()) return;
        write_text(stop_, "");
        thread_.join();
    }

private:
    stdfs::path ready_, stop_;
    std::thread thread_;
};

// A ComfyUI left running holds torch's DLLs: the install that would replace them says which
// program holds which file and changes nothing; once the program has ended, it goes through.
TEST_F(Installs, FileLoadedByARunningProgramStopsTheChangeBeforeIt) {
    install_old_torch();
    auto before = snapshot(app);
    Holder holder(*this, "load", site / "torch/lib/torch_cuda.dll", dir.path());
    ASSERT_TRUE(holder.holds()) << "holder.exe did not load the DLL";

    auto r = envfix(args({"install", "--no-verify"}, index_args("cu128")), standin(rtx5090()), 300);
    holder.release();
    EXPECT_EQ(r.code, 64) << r.out << r.err;
    EXPECT_TRUE(has(r.err, "holder.exe (process ")) << r.err;
    EXPECT_TRUE(has(r.err, "torch_cuda.dll loaded")) << r.err;
    EXPECT_TRUE(has(r.err, "nothing was changed")) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(app, {"python_embeded/.envfix"})), "");

    auto again = envfix(args({"install", "--no-verify"}, index_args("cu128")), standin(rtx5090()), 300);
    EXPECT_EQ(again.code, 0) << again.out << again.err;
}

// A file a scanner holds for a moment is moved once it lets go; one held past the retries stops
// the change with the file named, and the moves made so far are undone.
TEST_F(Installs, FileHeldOpenIsWaitedForThenNamed) {
    auto v1 = build_wheel({{"name", "holdme"}, {"version", "1.0"}, {"files", {{"holdme.py", "v = 1\n"}}}}, dir / "wheels");
    auto v2 = build_wheel({{"name", "holdme"}, {"version", "2.0"}, {"files", {{"holdme.py", "v = 2\n"}}}}, dir / "wheels");
    auto v3 = build_wheel({{"name", "holdme"}, {"version", "3.0"}, {"files", {{"holdme.py", "v = 3\n"}}}}, dir / "wheels");
    pip_install_target(site, {v1});
    {
        Holder brief(*this, "open", site / "holdme.py", dir.path(), 1500);
        ASSERT_TRUE(brief.holds());
        auto r = envfix(args({"install", "--no-verify", "--no-deps", winpath(v2)}));
        EXPECT_EQ(r.code, 0) << r.out << r.err;
        EXPECT_EQ(read_text(site / "holdme.py"), "v = 2\n");
    }
    auto before = snapshot(app, {"python_embeded/.envfix"});
    Holder held(*this, "open", site / "holdme.py", dir.path());
    ASSERT_TRUE(held.holds());
    auto r = envfix(args({"install", "--no-verify", "--no-deps", winpath(v3)}));
    held.release();
    EXPECT_EQ(r.code, 64) << r.out << r.err;
    EXPECT_TRUE(has(r.err, "holdme.py is in use by another program")) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(app, {"python_embeded/.envfix"})), "");
}

// A console script goes in as pip writes it on Windows: Scripts\<name>.exe, the launcher of the
// environment's own pip (distlib's t64.exe; here holder.exe's bytes stand for it) with the shebang
// and the zipped body after it.
TEST_F(Installs, ConsoleScriptIsAnExeLauncherFromTheEnvironmentsPip) {
    const auto distlib = site / "pip/_vendor/distlib";
    stdfs::create_directories(distlib);
    stdfs::copy_file(build_dir() / "standin/holder.exe", distlib / "t64.exe");
    auto wheel = build_wheel({{"name", "demo-tool"},
                              {"version", "1.0"},
                              {"files", {{"demo_tool.py", "def main():\n    return 0\n"}}},
                              {"entry_points", {{"console_scripts", {{"demo-tool", "demo_tool:main"}}}}}},
                             dir / "wheels");
    auto r = envfix(args({"install", "--no-verify", "--no-deps", winpath(wheel)}));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    const auto exe = app / "python_embeded/Scripts/demo-tool.exe";
    ASSERT_TRUE(stdfs::exists(exe)) << r.out;
    EXPECT_FALSE(stdfs::exists(app / "python_embeded/Scripts/demo-tool.cmd"));
    const auto bytes = read_text(exe), launcher = read_text(distlib / "t64.exe");
    EXPECT_EQ(bytes.rfind(launcher, 0), 0u);
    const std::string shebang = "#!" + winpath(app / "python_embeded/python.exe") + "\n\r\n";
    EXPECT_EQ(bytes.compare(launcher.size(), shebang.size(), shebang), 0) << bytes.substr(launcher.size(), 200);
    EXPECT_TRUE(has(read_text(site / "demo_tool-1.0.dist-info/RECORD"), "../../Scripts/demo-tool.exe,sha256=") ||
                has(read_text(site / "demo_tool-1.0.dist-info/RECORD"), "Scripts/demo-tool.exe,sha256="))
        << read_text(site / "demo_tool-1.0.dist-info/RECORD");
}

// A conda environment as conda lays it out on Windows (conda-meta, python.exe and python312.dll
// at the top, Lib\site-packages, Library\): read from its files, planned, installed into and
// rolled back like the portable one.
TEST_F(Installs, CondaEnvironmentFromItsFiles) {
    const auto conda = dir / "miniconda3/envs/comfy";
    stdfs::create_directories(conda / "Lib/site-packages");
    stdfs::create_directories(conda / "Library/bin");
    stdfs::copy_file(fatbin_fixture("win_short_names_86.dll"), conda / "python.exe");
    write_text(conda / "python312.dll", "MZ");
    write_text(conda / "conda-meta/python-3.12.7-h14ffc60_0.json", R"({"name": "python", "version": "3.12.7", "build": "h14ffc60_0"})");
    write_text(conda / "conda-meta/history", "");
    const auto before = snapshot(conda);
    auto a = envfix({"archs", "--json", "--env", winpath(conda)});
    ASSERT_EQ(a.code, 0) << a.out << a.err;
    EXPECT_EQ(a.json()["environment"]["kind"], "conda");
    EXPECT_EQ(a.json()["environment"]["python"]["version"], "3.12.7") << a.out;

    auto install = index_args("cu128");
    install.insert(install.begin(), {"install", "--no-verify", "--env", winpath(conda)});
    auto r = envfix(install, standin(rtx5090()), 300);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(stdfs::exists(conda / "Lib/site-packages/torch-2.7.0+cu128.dist-info/RECORD"));
    auto back = envfix({"rollback", "--env", winpath(conda)});
    ASSERT_EQ(back.code, 0) << back.out << back.err;
    EXPECT_EQ(tree_diff(before, snapshot(conda, {".envfix"})), "");
}

// Verify after install runs the environment's python.exe (the stand-in: tests/windows/dlls/
// python_standin.c) on envfix's framework check: a torch whose operations pass is kept, one that
// fails with the seed's error is undone and the folder is as it was.
TEST_F(Installs, FrameworkCheckThroughTheEnvironmentsPythonKeepsOrUndoes) {
    stdfs::copy_file(build_dir() / "standin/python.exe", app / "python_embeded/python.exe", stdfs::copy_options::overwrite_existing);
    EnvList env = standin(rtx5090());
    env.push_back({"ENVFIX_STANDIN_PYTHON", winpath(ENVFIX_TEST_PYTHON)});
    env.push_back({"ENVFIX_STANDIN_PYTHON_RUNNER", winpath(source_dir() / "tests/windows/standin_python.py")});
    env.push_back({"ENVFIX_STANDIN_PYTHON_TEMP", winpath(dir / "python-tmp")});
    auto good = verify::fake_torch_wheel({.version = "2.7.0+cu128"}, dir / "good");
    auto r = envfix(args({"install", "--no-deps", winpath(good)}), env, 300);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(has(r.out + r.err, "framework check passed")) << r.out << r.err;
    EXPECT_TRUE(stdfs::exists(site / "torch-2.7.0+cu128.dist-info"));

    auto before = snapshot(app, {"python_embeded/.envfix"});
    auto bad = verify::fake_torch_wheel({.version = "2.7.1+cu128", .mode = "no_kernel_image"}, dir / "bad");
    auto undone = envfix(args({"install", "--no-deps", winpath(bad)}), env, 300);
    EXPECT_EQ(undone.code, 65) << undone.out << undone.err;
    EXPECT_TRUE(has(undone.out + undone.err, "no kernel image")) << undone.out << undone.err;
    EXPECT_EQ(tree_diff(before, snapshot(app, {"python_embeded/.envfix"})), "");
}

// A replaced file marked read-only (Wine: no write bit) goes like any other: the old copy is
// removed with its staging folder, nothing left behind.
TEST_F(Installs, ReadOnlyFilesAreReplacedAndTheirOldCopiesRemoved) {
    auto v1 = build_wheel({{"name", "holdme"}, {"version", "1.0"}, {"files", {{"holdme.py", "v = 1\n"}}}}, dir / "wheels");
    auto v2 = build_wheel({{"name", "holdme"}, {"version", "2.0"}, {"files", {{"holdme.py", "v = 2\n"}}}}, dir / "wheels");
    pip_install_target(site, {v1});
    stdfs::permissions(site / "holdme.py", stdfs::perms::owner_read | stdfs::perms::group_read | stdfs::perms::others_read);
    auto r = envfix(args({"install", "--no-verify", "--no-deps", winpath(v2)}));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(read_text(site / "holdme.py"), "v = 2\n");
    for (const auto& e : stdfs::directory_iterator(site)) EXPECT_FALSE(has(e.path().filename().string(), ".envfix-tx-")) << e.path();
}

// envfix.exe ended by TerminateProcess (ENVFIX_FAULT_AFTER, fault.hpp) at fault points spread
// over a switch of two wheels with folders, data and a console script, then `recover` or the
// same install again: the environment is the old one or the new one, never a mix.
TEST_F(Installs, TerminatedAtFaultPointsLeavesTheOldOrTheNewEnvironment) {
    auto wheel = [&](const std::string& name, const std::string& version, int files) {
        nlohmann::ordered_json f;
        for (int i = 0; i < files; ++i) f[name + "/m" + std::to_string(i) + ".py"] = "v = '" + version + "'\n";
        return build_wheel({{"name", name},
                            {"version", version},
                            {"files", f},
                            {"entry_points", {{"console_scripts", {{name + "-cli", name + ":main"}}}}}},
                           dir / "wheels");
    };
    ASSERT_EQ(envfix(args({"install", "--no-verify", "--no-deps", winpath(wheel("alpha", "1.0", 6))})).code, 0);
    const auto model = dir / "model";
    copy_tree(app, model);
    auto tree = [&] { return snapshot(app, {"python_embeded/.envfix/snapshots", "python_embeded/.envfix/store"}); };
    const auto old_tree = tree();
    const auto new_args =
        args({"install", "--no-verify", "--no-deps", winpath(wheel("alpha", "2.0", 8)), winpath(wheel("beta", "1.0", 5))});
    auto once = envfix(with_verbose(new_args));
    ASSERT_EQ(once.code, 0) << once.err;
    const auto new_tree = tree();
    std::smatch m;
    ASSERT_TRUE(std::regex_search(once.err, m, std::regex(R"((\d+) fault points passed)"))) << once.err;
    const int points = std::stoi(m[1]);
    ASSERT_GT(points, 10);

    std::map<std::string, int> seen;
    const int step = std::max(1, points / 8);
    for (int n = 1; n <= points; n += step) {
        SCOPED_TRACE("ENVFIX_FAULT_AFTER=" + std::to_string(n));
        restore_tree(app, model);
        auto killed = envfix(new_args, {{"ENVFIX_FAULT_AFTER", std::to_string(n)}});
        EXPECT_EQ(killed.code, 137) << killed.out << killed.err;
        auto after = n % 2 ? envfix(args({"recover"})) : envfix(new_args);
        ASSERT_EQ(after.code, 0) << after.out << after.err;
        const auto now = tree();
        const std::string state = now == old_tree ? "old" : now == new_tree ? "new" : "neither";
        ASSERT_NE(state, "neither") << tree_diff(old_tree, now) << "\nagainst new:\n" << tree_diff(new_tree, now);
        seen[state]++;
    }
    EXPECT_GT(seen["old"], 0);
    EXPECT_GT(seen["new"], 0);
}

// A portable folder under a Windows user's folder named in Chinese with a space, and the caches
// under that user's AppData: every path envfix makes from an argument, a variable or a file's text
// is UTF-8 turned into the same UTF-16 name (docs/windows.md, "Non-ASCII paths").
class InstallsUnderChineseNames : public Installs {
protected:
    InstallsUnderChineseNames() {
        app = dir / "用户 张三/下载/ComfyUI_windows_portable";
        site = app / "python_embeded/Lib/site-packages";
    }
    EnvList caches() const {
        const auto local = dir / "用户 张三/AppData/Local/envfix";
        return {{"ENVFIX_CACHE_DIR", winpath(local / "cache")},
                {"ENVFIX_CONFIG_DIR", winpath(local / "config")},
                {"ENVFIX_DATA_DIR", winpath(local / "data")}};
    }
};

TEST_F(InstallsUnderChineseNames, DoctorPlanInstallHistoryRollback) {
    auto before = snapshot(app);
    auto doctor = envfix(args({"doctor"}), caches());
    EXPECT_TRUE(has(doctor.out + doctor.err, "下载")) << doctor.out << doctor.err;
    EXPECT_FALSE(has(doctor.out + doctor.err, "no ComfyUI")) << doctor.out << doctor.err;

    auto env = caches();
    for (const auto& v : standin(rtx5090())) env.push_back(v);
    auto r = envfix(args({"install", "--no-verify"}, index_args("cu128")), env, 300);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(stdfs::exists(site / "torch-2.7.0+cu128.dist-info/RECORD"));
    EXPECT_TRUE(stdfs::exists(dir / "用户 张三/AppData/Local/envfix/cache")) << "the cache where the variable names it";

    auto h = envfix(args({"history"}), caches());
    ASSERT_EQ(h.code, 0) << h.out << h.err;
    EXPECT_TRUE(has(h.out, "2.7.0+cu128")) << h.out;
    auto back = envfix(args({"rollback"}), caches());
    ASSERT_EQ(back.code, 0) << back.out << back.err;
    EXPECT_EQ(tree_diff(before, snapshot(app, {"python_embeded/.envfix"})), "");
}

}  // namespace
}  // namespace envfix::test::wine
