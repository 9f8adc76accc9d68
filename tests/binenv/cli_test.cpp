// `envfix envs` and `envfix archs` end to end: the built binary, real venvs, an isolated HOME.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "layouts.hpp"
#include "support.hpp"

using namespace envfix;
namespace stdfs = std::filesystem;

namespace {

// PATH with only a python3 link to Debian's interpreter (and nothing of the developer's).
std::string python_only_path(const stdfs::path& dir) {
    stdfs::create_directories(dir);
    std::error_code ec;
    stdfs::create_symlink(test::test_python(), dir / "python3", ec);
    return dir.string();
}

void place(const stdfs::path& to, const std::string& fixture) {
    stdfs::create_directories(to.parent_path());
    stdfs::copy_file(test::fatbin_fixture(fixture), to, stdfs::copy_options::overwrite_existing);
}

TEST(EnvsCli, JsonListsEveryEnvironmentOnce) {
    test::TempDir dir;
    auto home = dir / "home";
    test::make_venv(home / ".virtualenvs" / "sd", true);
    test::make_venv(home / ".virtualenvs" / "llm", true);
    auto conda = test::make_conda_prefix(dir / "miniconda3" / "envs" / "comfy", test::test_python(), "3.11.2");
    test::write_text(home / ".conda" / "environments.txt", conda.string() + "\n");
    auto portable = dir / "ComfyUI_windows_portable";
    test::make_embedded(portable / "python_embeded", "python312.zip\n.\nLib/site-packages\nimport site\n");
    auto r = test::run_envfix({"envs", "--json", "--app", "comfyui", "--path", portable.string()},
                              {{"PATH", python_only_path(dir / "bin")}, {"VIRTUAL_ENV", (home / ".virtualenvs" / "sd").string()}},
                              home);
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    auto& envs = j["environments"];
    ASSERT_EQ(envs.size(), 4u) << j.dump(2);
    EXPECT_EQ(envs[0]["found_as"], "active");
    EXPECT_EQ(envs[0]["default"], true);
    EXPECT_EQ(envs[0]["kind"], "venv");
    EXPECT_EQ(envs[0]["status"], "ok");
    EXPECT_EQ(envs[0]["python"]["ran"], true);
    EXPECT_EQ(envs[0]["site_packages"].size(), 1u);
    EXPECT_EQ(envs[1]["found_as"], "app");
    EXPECT_EQ(envs[1]["app"], "comfyui");
    EXPECT_EQ(envs[1]["kind"], "embedded");
    EXPECT_EQ(envs[1]["layout_os"], "windows");
    EXPECT_EQ(envs[1]["status"], "files-only");
    EXPECT_EQ(envs[1]["problem"]["name"], "env-broken");
    EXPECT_EQ(envs[1]["python"]["minor"], 12);
    EXPECT_EQ(envs[1]["python"]["ran"], false);
    EXPECT_EQ(envs[2]["found_as"], "virtualenvs");
    EXPECT_EQ(stdfs::path(envs[2]["root"].get<std::string>()).filename(), "llm");
    EXPECT_EQ(envs[3]["found_as"], "conda");
    EXPECT_EQ(envs[3]["kind"], "conda");
}

TEST(EnvsCli, SecondRunTakesFactsFromTheCache) {
    test::TempDir dir;
    auto venv = dir / "venv";
    test::write_text(venv / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
    stdfs::create_directories(venv / "lib" / "python3.11" / "site-packages");
    test::write_recording_python(venv / "bin" / "python", dir / "runs.log", test::test_python());
    const test::EnvList env = {{"PATH", python_only_path(dir / "bin")}, {"VIRTUAL_ENV", venv.string()}};
    for (int i = 0; i < 3; ++i) {
        auto r = test::run_envfix({"envs", "--no-home"}, env, dir / "home");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find(venv.string()), std::string::npos) << r.out;
    }
    EXPECT_EQ(test::count_lines(dir / "runs.log"), 1);
}

TEST(EnvsCli, TextTableAndChinese) {
    test::TempDir dir;
    test::make_venv(dir / "venv", true);
    const test::EnvList env = {{"PATH", python_only_path(dir / "bin")}, {"VIRTUAL_ENV", (dir / "venv").string()}};
    auto r = test::run_envfix({"envs", "--no-home"}, env, dir / "home");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("LOCATION"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("*  venv"), std::string::npos) << r.out;
    auto zh = test::run_envfix({"envs", "--no-home", "--lang", "zh"}, env, dir / "home");
    ASSERT_EQ(zh.code, 0);
    EXPECT_NE(zh.out.find("位置"), std::string::npos) << zh.out;
    EXPECT_NE(zh.out.find("正常"), std::string::npos) << zh.out;
}

TEST(EnvsCli, NothingFoundIsNotAnError) {
    test::TempDir dir;
    stdfs::create_directories(dir / "empty");
    auto r = test::run_envfix({"envs"}, {{"PATH", (dir / "empty").string()}}, dir / "home");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("no Python environment found"), std::string::npos) << r.out;
}

TEST(ArchsCli, FilesThenTheCache) {
    test::TempDir dir;
    auto lib = test::fatbin_fixture("torch211_cu130_like.so").string();
    for (bool cached : {false, true}) {
        auto r = test::run_envfix({"archs", "--json", lib}, {}, dir / "home");
        ASSERT_EQ(r.code, 0) << r.err;
        auto j = r.json();
        ASSERT_EQ(j["libraries"].size(), 1u);
        auto& l = j["libraries"][0];
        EXPECT_EQ(l["from_cache"], cached);
        EXPECT_EQ(l["arch_list"], nlohmann::ordered_json::parse(R"(["sm_75","sm_80","sm_86","sm_90","sm_100","sm_120"])"));
        EXPECT_EQ(l["sass"].size(), 11u);
        EXPECT_EQ(l["compression"]["zstd"], 41);
        EXPECT_TRUE(j["environment"].is_null());
    }
    EXPECT_TRUE(stdfs::exists(dir / "home" / ".cache" / "envfix" / "binary-archs-v1.json"));
    auto text = test::run_envfix({"archs", lib}, {}, dir / "home");
    EXPECT_NE(text.out.find("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("sm_100a\xC3\x97" "1"), std::string::npos) << text.out;
}

// Read page by page (ENVFIX_SCATTERED_READS=1) or with the system's read-ahead (0), every kind
// of file gives the same answer: only how much of it comes from the disk differs.
TEST(ArchsCli, PageByPageOrReadAheadGiveTheSameArchs) {
    test::TempDir dir;
    std::vector<std::string> args = {"archs", "--json", "--all"};
    for (const char* f : {"torch211_cu130_like.so", "zstd_90_100a_103a_120f_ptx120.so", "lz4_80_90a_ptx80.so",
                          "raw_86_ptx86.fatbin", "relocatable_86.so", "win_short_names_86.dll", "host_only.so"})
        args.push_back(test::fatbin_fixture(f).string());
    std::vector<std::string> answers;
    for (const char* how : {"1", "0"}) {
        auto r = test::run_envfix(args, {{"ENVFIX_SCATTERED_READS", how}}, dir / (std::string("home") + how));
        ASSERT_EQ(r.code, 0) << r.err;
        auto j = r.json();
        ASSERT_EQ(j["libraries"].size(), 7u);
        for (const auto& l : j["libraries"]) EXPECT_EQ(l["from_cache"], false);
        answers.push_back(j.dump());
    }
    EXPECT_EQ(answers[0], answers[1]);
    EXPECT_NE(answers[0].find("sm_120f"), std::string::npos) << answers[0];
}

TEST(ArchsCli, BadFilesGiveOneLineAndExitCode3) {
    test::TempDir dir;
    test::write_text(dir / "notes.txt", "not a library");
    auto r = test::run_envfix({"archs", (dir / "notes.txt").string()}, {}, dir / "home");
    EXPECT_EQ(r.code, 3);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find((dir / "notes.txt").string()), std::string::npos) << r.err;
    auto j = test::run_envfix({"archs", "--json", (dir / "missing.so").string()}, {}, dir / "home");
    EXPECT_EQ(j.code, 3);
    EXPECT_EQ(j.json()["error"]["name"], "bad-input");
    // One good file and one bad: the good one is listed, the exit code still says 3.
    auto mixed = test::run_envfix({"archs", (dir / "notes.txt").string(), test::fatbin_fixture("sass_90a.so").string()}, {},
                                  dir / "home");
    EXPECT_EQ(mixed.code, 3);
    EXPECT_NE(mixed.out.find("sm_90a"), std::string::npos);
}

TEST(ArchsCli, LibrariesOfAVenv) {
    test::TempDir dir;
    test::make_venv(dir / "venv", true);
    auto out = test::run_program({(dir / "venv/bin/python").string(), "-c",
                                  "import sysconfig; print(sysconfig.get_paths()['purelib'])"})
                   .out;
    auto site = stdfs::path(out.substr(0, out.find('\n')));
    place(site / "torch/lib/libtorch_cuda.so", "torch211_cu130_like.so");
    place(site / "torch/lib/libc10.so", "host_only.so");
    place(site / "nvidia/cublas/lib/libcublas.so.12", "rewritten_torch26_cu124_like.so");
    auto r = test::run_envfix({"archs", "--json", "--env", (dir / "venv").string()}, {}, dir / "home");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["environment"]["kind"], "venv");
    ASSERT_EQ(j["libraries"].size(), 3u) << j.dump(2);
    EXPECT_EQ(j["libraries"][0]["package"], "nvidia/cublas");
    EXPECT_EQ(j["libraries"][2]["package"], "torch");
    auto text = test::run_envfix({"archs", "--env", (dir / "venv").string()}, {}, dir / "home");
    EXPECT_NE(text.out.find("torch/lib/libtorch_cuda.so"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("libc10.so"), std::string::npos) << "no GPU code: hidden without --all";
    auto all = test::run_envfix({"archs", "--all", "--env", (dir / "venv").string()}, {}, dir / "home");
    EXPECT_NE(all.out.find("libc10.so"), std::string::npos) << all.out;
}

TEST(ArchsCli, WindowsPortableReadOnLinux) {
    test::TempDir dir;
    auto portable = dir / "ComfyUI_windows_portable";
    auto root = test::make_embedded(portable / "python_embeded", "python312.zip\n.\nLib/site-packages\n../ComfyUI\nimport site\n");
    place(root / "Lib/site-packages/torch/lib/torch_cuda.dll", "win_short_names_86.dll");
    place(root / "Lib/site-packages/xformers/_C.pyd", "win_long_names_86.dll");
    auto r = test::run_envfix({"archs", "--json", "--app", "comfyui", "--path", portable.string()}, {}, dir / "home");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["environment"]["status"], "files-only");
    ASSERT_EQ(j["libraries"].size(), 2u) << j.dump(2);
    for (const auto& l : j["libraries"]) {
        EXPECT_EQ(l["format"], "pe");
        EXPECT_EQ(l["arch_list"], nlohmann::ordered_json::parse(R"(["sm_86","compute_86"])"));
    }
}

TEST(ArchsCli, TargetErrors) {
    test::TempDir dir;
    auto missing = test::run_envfix({"archs", "--env", (dir / "nope").string()}, {}, dir / "home");
    EXPECT_EQ(missing.code, 23);
    EXPECT_NE(missing.err.find((dir / "nope").string()), std::string::npos);
    // --app without --path looks in the current folder and the usual places (tests/apps covers it).
    auto none = test::run_envfix({"archs", "--app", "comfyui"}, {}, dir / "home");
    EXPECT_EQ(none.code, 23) << none.err;
    auto conflict = test::run_envfix({"archs", "--python", "python3", "--env", dir.path().string()}, {}, dir / "home");
    EXPECT_EQ(conflict.code, 2);
    auto both = test::run_envfix({"archs", "x.so", "--env", dir.path().string()}, {}, dir / "home");
    EXPECT_EQ(both.code, 2);
    stdfs::create_directories(dir / "empty");
    auto no_python = test::run_envfix({"archs"}, {{"PATH", (dir / "empty").string()}}, dir / "home");
    EXPECT_EQ(no_python.code, 23);
    EXPECT_NE(no_python.err.find("python3"), std::string::npos);
}

}  // namespace
