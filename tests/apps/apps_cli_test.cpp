// `envfix apps` and --app / --path on other commands, end to end with the built binary.
#include <gtest/gtest.h>

#include <algorithm>

#include "app_trees.hpp"
#include "support.hpp"

namespace envfix {
namespace {

namespace stdfs = std::filesystem;

test::RunResult envfix_in(const stdfs::path& cwd, const stdfs::path& home, const std::vector<std::string>& args) {
    std::vector<std::string> argv{test::envfix_binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_program(argv,
                             {{"HOME", home.string()},
                              {"ENVFIX_CACHE_DIR", (home / ".cache/envfix").string()},
                              {"ENVFIX_CONFIG_DIR", (home / ".config/envfix").string()},
                              {"ENVFIX_DATA_DIR", (home / ".local/share/envfix").string()}},
                             120, cwd);
}

TEST(AppsCli, ListsTheKnownApps) {
    test::TempDir dir;
    auto r = test::run_envfix({"apps"}, {}, dir / "home");
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* n : {"comfyui", "a1111", "forge", "sdnext", "invokeai", "fooocus", "kohya_ss"})
        EXPECT_NE(r.out.find(n), std::string::npos) << n;
    EXPECT_NE(r.out.find("--search"), std::string::npos);
    auto j = test::run_envfix({"apps", "--json"}, {}, dir / "home").json();
    EXPECT_EQ(j["schema_version"], 2);
    ASSERT_EQ(j["apps"].size(), 7u);
    EXPECT_FALSE(j.contains("found"));
    const auto& comfy = j["apps"][1];
    EXPECT_EQ(comfy["name"], "comfyui");
    EXPECT_EQ(comfy["framework"]["torch"], ">=2.7");
    EXPECT_EQ(comfy["layouts"][0]["name"], "portable");
    EXPECT_EQ(comfy["layouts"][0]["environments"][0], "python_embeded");
    EXPECT_EQ(comfy["layouts"][0]["pip_may_be_missing"], true);
    EXPECT_EQ(comfy["places"]["linux"][0], "~/ComfyUI");
    EXPECT_EQ(comfy["file"], "profiles/apps/comfyui.yaml");
    auto one = test::run_envfix({"apps", "--json", "--app", "Comfy"}, {}, dir / "home").json();
    ASSERT_EQ(one["apps"].size(), 1u);
    auto unknown = test::run_envfix({"apps", "--app", "photoshop"}, {}, dir / "home");
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("photoshop"), std::string::npos);
    auto zh = test::run_envfix({"--lang", "zh", "apps"}, {}, dir / "home");
    EXPECT_NE(zh.out.find("应用"), std::string::npos);
}

TEST(AppsCli, SearchShowsFoldersAndTheirEnvironment) {
    test::TempDir dir;
    auto home = dir / "home";
    test::make_comfyui_git(home / "ComfyUI");
    test::make_a1111_git(home / "stable-diffusion-webui");
    stdfs::create_directories(dir / "cwd");
    auto r = envfix_in(dir / "cwd", home, {"apps", "--search", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    ASSERT_EQ(j["found"].size(), 2u) << j.dump(2);
    EXPECT_EQ(j["found"][0]["app"], "a1111");
    EXPECT_EQ(j["found"][1]["app"], "comfyui");
    EXPECT_EQ(j["found"][1]["layout"], "git");
    EXPECT_EQ(j["found"][1]["folder"], (home / "ComfyUI").string());
    EXPECT_EQ(j["found"][1]["environment"]["root"], (home / "ComfyUI/.venv").string());
    EXPECT_EQ(j["found"][1]["environment"]["status"], "ok");
    EXPECT_EQ(j["found"][1]["start"][1], "main.py");
    auto text = envfix_in(dir / "cwd", home, {"apps", "--search"});
    EXPECT_NE(text.out.find("App folders found"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find((home / "ComfyUI/.venv").string()), std::string::npos);
    // Nothing there.
    auto none = envfix_in(dir / "cwd", dir / "empty-home", {"apps", "--search"});
    EXPECT_EQ(none.code, 0);
    EXPECT_NE(none.out.find("No app folders found"), std::string::npos);
}

TEST(AppsCli, PortablePackageReadFromFiles) {
    test::TempDir dir;
    auto portable = test::make_comfyui_portable(dir / "ComfyUI_windows_portable");
    auto r = test::run_envfix({"apps", "--json", "--path", portable.string()}, {}, dir / "home");
    ASSERT_EQ(r.code, 0) << r.err;
    auto f = r.json()["found"][0];
    EXPECT_EQ(f["app"], "comfyui");
    EXPECT_EQ(f["layout"], "portable");
    EXPECT_EQ(f["launcher"], "run_nvidia_gpu.bat");
    EXPECT_EQ(f["pip_may_be_missing"], true);
    EXPECT_EQ(f["environment"]["kind"], "embedded");
    EXPECT_EQ(f["environment"]["status"], "files-only");
    EXPECT_EQ(f["environment"]["python"]["minor"], 12);
    auto text = test::run_envfix({"apps", "--path", portable.string()}, {}, dir / "home");
    EXPECT_NE(text.out.find("embeddable Python"), std::string::npos) << text.out;
    // A folder of no known app, and a missing one.
    stdfs::create_directories(dir / "photos");
    auto not_app = test::run_envfix({"apps", "--path", (dir / "photos").string()}, {}, dir / "home");
    EXPECT_EQ(not_app.code, 23);
    EXPECT_NE(not_app.err.find((dir / "photos").string()), std::string::npos);
    auto gone = test::run_envfix({"apps", "--path", (dir / "gone").string()}, {}, dir / "home");
    EXPECT_EQ(gone.code, 23);
}

TEST(AppsCli, TorchCheckBeforeAnythingChanges) {
    test::TempDir dir;
    auto kohya = test::make_kohya_git(dir / "kohya_ss");
    auto r = test::run_envfix({"apps", "--json", "--path", kohya.string(), "--torch", "2.8.0+cu128"}, {}, dir / "home");
    EXPECT_EQ(r.code, 30) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["planned"]["torch"], "2.8.0+cu128");
    const auto& check = j["found"][0]["check"];
    EXPECT_EQ(check["conflicts"], true);
    EXPECT_EQ(check["checked_files"], nlohmann::ordered_json::parse(R"(["requirements_linux.txt","requirements.txt"])"));
    EXPECT_EQ(check["findings"][0]["kind"], "conflict");
    EXPECT_EQ(check["findings"][0]["source"], "requirements_linux.txt:1");
    EXPECT_EQ(check["companions"][0]["package"], "torchvision");
    EXPECT_EQ(check["companions"][0]["needed"], "0.23.0+cu128");
    auto text = test::run_envfix({"apps", "--path", kohya.string(), "--torch", "2.8.0+cu128"}, {}, dir / "home");
    EXPECT_EQ(text.code, 30);
    EXPECT_NE(text.out.find("if torch becomes 2.8.0+cu128"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("conflict: requirements_linux.txt:1: torch==2.1.2+cu118 does not allow torch 2.8.0+cu128"),
              std::string::npos)
        << text.out;
    // The torch kohya's files pin: nothing in the way.
    auto same = test::run_envfix({"apps", "--path", kohya.string(), "--torch", "2.1.2+cu118"}, {}, dir / "home");
    EXPECT_EQ(same.code, 0) << same.out << same.err;
    auto with = test::run_envfix({"apps", "--path", kohya.string(), "--torch", "2.1.2+cu118", "--with", "torchvision==0.17.0"}, {},
                                 dir / "home");
    EXPECT_EQ(with.code, 30);
    for (const std::vector<std::string>& bad : {std::vector<std::string>{"--torch", "two"},
                                                 std::vector<std::string>{"--with", "torchvision==0.23.0"},
                                                 std::vector<std::string>{"--torch", "2.8.0", "--with", "torchvision"}}) {
        std::vector<std::string> args{"apps", "--path", kohya.string()};
        args.insert(args.end(), bad.begin(), bad.end());
        auto u = test::run_envfix(args, {}, dir / "home");
        EXPECT_EQ(u.code, 2) << bad[0] << " " << bad[1] << ": " << u.err;
    }
}

TEST(AppsCli, EnvsReadsAppFoldersWithTheirLayout) {
    test::TempDir dir;
    auto portable = test::make_comfyui_portable(dir / "ComfyUI_windows_portable");
    // The ComfyUI folder inside the package: its Python is ../python_embeded.
    auto r = test::run_envfix({"envs", "--json", "--no-home", "--app", "comfyui", "--path", (portable / "ComfyUI").string()}, {},
                              dir / "home");
    ASSERT_EQ(r.code, 0) << r.err;
    bool seen = false;
    const auto j = r.json();
    for (const auto& e : j["environments"])
        if (e["found_as"] == "app") {
            seen = true;
            EXPECT_EQ(e["root"], (portable / "python_embeded").string());
            EXPECT_EQ(e["app"], "comfyui");
            EXPECT_EQ(e["kind"], "embedded");
        }
    EXPECT_TRUE(seen) << r.out;
    // --app alone: the usual places.
    auto home = dir / "home2";
    test::make_comfyui_git(home / "ComfyUI");
    auto found = test::run_envfix({"envs", "--json", "--no-home", "--app", "comfyui"}, {}, home);
    ASSERT_EQ(found.code, 0) << found.err;
    bool listed = false;
    const auto jf = found.json();
    for (const auto& e : jf["environments"])
        if (e["found_as"] == "app") listed = e["root"] == (home / "ComfyUI/.venv").string();
    EXPECT_TRUE(listed) << found.out;
    EXPECT_EQ(test::run_envfix({"envs", "--app", "photoshop"}, {}, home).code, 2);
}

// --app on a command that takes the target options (archs here; doctor, plan, install the same).
TEST(AppsCli, AppTargetFoundAskedOrRefused) {
    test::TempDir dir;
    auto home = dir / "home";
    auto comfy = test::make_comfyui_git(home / "ComfyUI");
    stdfs::create_directories(dir / "elsewhere");
    auto one = envfix_in(dir / "elsewhere", home, {"archs", "--json", "--app", "comfyui"});
    ASSERT_EQ(one.code, 0) << one.err;
    EXPECT_EQ(one.json()["environment"]["root"], (comfy / ".venv").string());
    // The current folder counts too: no usual place needed.
    auto local = test::make_comfyui_git(dir / "work/MyComfy");
    auto here = envfix_in(local, dir / "empty-home", {"archs", "--json", "--app", "comfyui"});
    ASSERT_EQ(here.code, 0) << here.err;
    EXPECT_EQ(here.json()["environment"]["root"], (local / ".venv").string());
    // --path alone: the app is recognised.
    auto by_path = envfix_in(dir / "elsewhere", home, {"archs", "--json", "--path", comfy.string()});
    ASSERT_EQ(by_path.code, 0) << by_path.err;
    EXPECT_EQ(by_path.json()["environment"]["app"], "comfyui");
    // Two of them: --yes refuses to pick one, so does a run without a terminal.
    test::make_comfyui_git(home / "comfy/ComfyUI");
    for (const std::vector<std::string>& args : {std::vector<std::string>{"archs", "--app", "comfyui", "--yes"},
                                                  std::vector<std::string>{"archs", "--app", "comfyui"}}) {
        auto several = envfix_in(dir / "elsewhere", home, args);
        EXPECT_EQ(several.code, 2) << several.err;
        EXPECT_NE(several.err.find((home / "ComfyUI").string()), std::string::npos) << several.err;
        EXPECT_NE(several.err.find((home / "comfy/ComfyUI").string()), std::string::npos) << several.err;
        EXPECT_NE(several.err.find("--path"), std::string::npos);
    }
    auto none = envfix_in(dir / "elsewhere", home, {"archs", "--app", "invokeai"});
    EXPECT_EQ(none.code, 23);
    EXPECT_NE(none.err.find("InvokeAI"), std::string::npos) << none.err;
}

// A portable package whose python_embeded is a Linux venv (the package copied to Linux).
stdfs::path make_portable_with_venv(const stdfs::path& dir) {
    stdfs::create_directories(dir / "ComfyUI/comfy");
    stdfs::create_directories(dir / "ComfyUI/custom_nodes/some-node");
    test::write_text(dir / "ComfyUI/main.py", "");
    test::write_text(dir / "ComfyUI/nodes.py", "");
    test::make_venv(dir / "python_embeded", true);
    return dir;
}

TEST(AppsCli, BareCommandInAnAppFolderMeansThatApp) {
    test::TempDir dir;
    auto portable = make_portable_with_venv(dir / "ComfyUI_windows_portable");
    const auto embedded = (portable / "python_embeded").string();
    for (const auto& cwd : {portable, portable / "ComfyUI/custom_nodes/some-node"}) {
        auto r = envfix_in(cwd, dir / "home", {"archs", "--json"});
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.json()["environment"]["root"], embedded) << cwd;
        EXPECT_EQ(r.json()["environment"]["app"], "comfyui");
        EXPECT_EQ(r.json()["environment"]["app_path"], portable.string());
    }
    auto text = envfix_in(portable / "ComfyUI", dir / "home", {"archs"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.err.find("using the environment of ComfyUI at " + portable.string() + ": the current folder belongs to it"),
              std::string::npos)
        << text.err;
    // --app alone finds it from inside too.
    auto named = envfix_in(portable / "ComfyUI", dir / "home", {"archs", "--json", "--app", "comfyui"});
    ASSERT_EQ(named.code, 0) << named.err;
    EXPECT_EQ(named.json()["environment"]["root"], embedded);
    // An active venv is what the user chose.
    auto other = dir / "other-venv";
    test::make_venv(other, true);
    auto active = test::run_program({test::envfix_binary().string(), "archs", "--json"},
                                    {{"HOME", (dir / "home").string()}, {"VIRTUAL_ENV", other.string()}}, 120, portable);
    ASSERT_EQ(active.code, 0) << active.err;
    EXPECT_EQ(active.json()["environment"]["root"], other.string());
}

TEST(AppsCli, PrintedNextCommandsNameTheTargetTheUserGave) {
    test::TempDir dir;
    auto portable = make_portable_with_venv(dir / "ComfyUI_windows_portable");
    auto site = test::venv_site_packages(portable / "python_embeded");
    auto snap = envfix_in(portable, dir / "home", {"snapshot", "--name", "before"});
    ASSERT_EQ(snap.code, 0) << snap.err;
    test::add_dist(site, "extra", "1.0");
    stdfs::create_directories(dir / "elsewhere");
    auto back = envfix_in(dir / "elsewhere", dir / "home", {"rollback", "before", "--app", "comfyui", "--path", portable.string()});
    ASSERT_EQ(back.code, 0) << back.err;
    // The undo command works from any folder: it names the package, not the system Python.
    EXPECT_NE(back.out.find("--app comfyui --path " + portable.string() + "`"), std::string::npos) << back.out;
    test::add_dist(site, "extra", "1.0");
    auto bare = envfix_in(portable / "ComfyUI", dir / "home", {"rollback", "before"});
    ASSERT_EQ(bare.code, 0) << bare.err;
    EXPECT_NE(bare.out.find("--app comfyui --path " + portable.string() + "`"), std::string::npos) << bare.out;
}

// The package copied to Linux with its ComfyUI folder incomplete (no comfy/): named as ComfyUI, its
// requirement files are read where ComfyUI keeps them, and what does not fit is said once.
TEST(AppsCli, APortableFoldersRequirementFilesAreReadInItsComfyUIFolder) {
    test::TempDir dir;
    auto portable = make_portable_with_venv(dir / "ComfyUI_windows_portable");
    stdfs::remove_all(portable / "ComfyUI/comfy");
    test::write_text(portable / "ComfyUI/requirements.txt", "torch\ntorchvision\n");
    test::write_text(portable / "ComfyUI/custom_nodes/some-node/requirements.txt", "torch==2.1.2\n");
    auto r = envfix_in(portable, dir / "home", {"apps", "--app", "comfyui", "--path", portable.string(), "--torch", "2.8.0"});
    EXPECT_EQ(r.code, 30) << r.out << r.err;
    EXPECT_NE(r.out.find("conflict: ComfyUI/custom_nodes/some-node/requirements.txt:1: torch==2.1.2 does not allow torch 2.8.0"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("requirement files checked: ComfyUI/requirements.txt, ComfyUI/custom_nodes/some-node/requirements.txt"),
              std::string::npos)
        << r.out;
    EXPECT_EQ((r.out + r.err).find("cannot read"), std::string::npos) << r.out << r.err;
    const std::string odd = "does not look like ComfyUI";
    auto at = r.err.find(odd);
    EXPECT_NE(at, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(odd, at + 1), std::string::npos) << r.err;
}

TEST(AppsCli, BrokenProfilesAreOneLineErrors) {
    test::TempDir dir;
    test::write_text(dir / "profiles/apps/demo.yaml", "schema_version: 1\nname: demo\ndisplay: [Demo\n");
    auto r = test::run_envfix({"apps", "--profiles", (dir / "profiles").string()}, {}, dir / "home");
    EXPECT_EQ(r.code, 41);
    EXPECT_NE(r.err.find((dir / "profiles/apps/demo.yaml").string() + ":"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    // ENVFIX_PROFILES_DIR reaches --app on the other commands too.
    auto via_env = test::run_envfix({"archs", "--app", "comfyui", "--path", dir.path().string()},
                                    {{"ENVFIX_PROFILES_DIR", (dir / "profiles").string()}}, dir / "home");
    EXPECT_EQ(via_env.code, 41) << via_env.err;
    auto no_apps = test::run_envfix({"apps", "--profiles", (dir / "nothing").string()}, {}, dir / "home");
    EXPECT_EQ(no_apps.code, 3);
}

}  // namespace
}  // namespace envfix
