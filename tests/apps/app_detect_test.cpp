// Recognising app folders laid out like each app's installs, finding their environment, searching
// the current folder and the usual places, and refusing to guess when several are found.
#include <gtest/gtest.h>

#include <functional>

#include "../binenv/layouts.hpp"
#include "app_trees.hpp"
#include "envfix/apps/app_profiles.hpp"
#include "envfix/apps/app_target.hpp"
#include "envfix/probe/app_folder.hpp"
#include "support.hpp"

namespace envfix {
namespace {

namespace stdfs = std::filesystem;
using probe::EnvKind;
using probe::EnvStatus;

const apps::AppCatalog& catalog() {
    static const apps::AppCatalog c = *apps::load_embedded_app_profiles();
    return c;
}

// Answers questions with `answer` (by the question's path argument) and keeps every note but the
// -vv ones (where the interpreter's facts came from ...).
class ChoosingReporter final : public Reporter {
public:
    void note(Severity sev, const Message& m) override {
        if (sev != Severity::Debug) (sev == Severity::Warning ? warnings : infos).push_back(m);
    }
    bool confirm(const Message& q, bool fallback) override {
        questions.push_back(q);
        return answer ? answer(std::string(q.arg("path"))) : fallback;
    }
    int task_begin(const Message&, uint64_t) override { return 0; }
    void task_advance(int, uint64_t) override {}
    void task_end(int, bool) override {}
    std::function<bool(const std::string&)> answer;
    std::vector<Message> warnings, infos, questions;
};

struct Detected {
    std::string app;
    std::string layout;
};

Detected detect(const stdfs::path& dir) {
    auto sigs = catalog().signatures();
    auto m = probe::match_app_folder(dir, sigs);
    if (m.empty()) return {};
    return {m.front().app->name, m.front().layout->name};
}

apps::AppTarget resolve(const apps::AppTargetSpec& spec, Reporter* rep = nullptr) {
    auto t = apps::resolve_app_target(catalog(), spec, {.reporter = rep});
    EXPECT_TRUE(t) << (t ? "" : render(t.error().message, Lang::En));
    return t ? std::move(*t) : apps::AppTarget{};
}

TEST(AppDetect, EachAppsLayoutIsRecognised) {
    test::TempDir dir;
    auto portable = test::make_comfyui_portable(dir / "ComfyUI_windows_portable");
    auto comfy = test::make_comfyui_git(dir / "ComfyUI", "");
    auto a1111 = test::make_a1111_git(dir / "stable-diffusion-webui", "");
    auto forge = test::make_forge_package(dir / "webui_forge_cu121_torch231");
    auto fooocus = test::make_fooocus_portable(dir / "Fooocus_win64_2-5-0");
    test::write_text(dir / "sdnext/installer.py", "");
    test::write_text(dir / "sdnext/launch.py", "");
    test::write_text(dir / "sdnext/modules/__init__.py", "");
    test::write_text(dir / "invokeai/invokeai.yaml", "schema_version: 4.0.2\n");
    test::write_text(dir / "kohya_ss/kohya_gui.py", "");
    // Forge from git: A1111's files plus modules_forge/.
    test::make_a1111_git(dir / "stable-diffusion-webui-forge", "");
    stdfs::create_directories(dir / "stable-diffusion-webui-forge/modules_forge");

    struct Case {
        stdfs::path folder;
        std::string app, layout;
    };
    const std::vector<Case> cases = {
        {portable, "comfyui", "portable"},
        {portable / "ComfyUI", "comfyui", "portable-code"},
        {comfy, "comfyui", "git"},
        {a1111, "a1111", "git"},
        {dir / "stable-diffusion-webui-forge", "forge", "git"},
        {forge, "forge", "package"},
        {dir / "sdnext", "sdnext", "git"},
        {dir / "invokeai", "invokeai", "root"},
        {fooocus, "fooocus", "portable"},
        {fooocus / "Fooocus", "fooocus", "portable-code"},
        {dir / "kohya_ss", "kohya_ss", "git"},
    };
    for (const auto& c : cases) {
        auto d = detect(c.folder);
        EXPECT_EQ(d.app, c.app) << c.folder;
        EXPECT_EQ(d.layout, c.layout) << c.folder;
    }
    stdfs::create_directories(dir / "photos");
    EXPECT_EQ(detect(dir / "photos").app, "");
    EXPECT_EQ(detect(dir / "not-there").app, "");
}

// A portable package whose ComfyUI folder lacks some of the layout's files (no comfy/): the app is
// named, its python_embeded still says it is the portable package, so its code and requirement
// files are in ComfyUI/, not in the package folder.
TEST(AppDetect, AnIncompletePortableFolderIsLaidOutByItsEnvironment) {
    test::TempDir dir;
    auto portable = test::make_comfyui_portable(dir / "ComfyUI_windows_portable");
    stdfs::remove_all(portable / "ComfyUI/comfy");
    test::write_text(portable / "ComfyUI/custom_nodes/old-node/requirements.txt", "torch==2.1.2\n");
    ChoosingReporter rep;
    auto t = resolve({.app = "comfyui", .path = portable}, &rep);
    ASSERT_TRUE(t.profile);
    ASSERT_TRUE(t.layout);
    EXPECT_EQ(t.layout->name, "portable");
    EXPECT_EQ(t.code_dir(), portable / "ComfyUI");
    ASSERT_EQ(rep.warnings.size(), 1u);
    EXPECT_EQ(rep.warnings[0].key, "apps.markers_missing");
    auto reqs = apps::read_app_requirements(*t.profile, t.folder, t.code_dir(), platform::Os::Windows);
    EXPECT_TRUE(reqs.problems.empty()) << (reqs.problems.empty() ? "" : render(reqs.problems[0].message, Lang::En));
    std::vector<std::string> read;
    for (const auto& f : reqs.files) read.push_back(f.source);
    EXPECT_EQ(read, (std::vector<std::string>{"ComfyUI/requirements.txt", "ComfyUI/custom_nodes/old-node/requirements.txt"}));
}

TEST(AppDetect, PortableComfyUIFromFiles) {
    test::TempDir dir;
    auto portable = test::make_comfyui_portable(dir / "ComfyUI_windows_portable");
    ChoosingReporter rep;
    // Given the package folder, and given the ComfyUI folder inside it: the same embedded Python.
    for (const auto& path : {portable, portable / "ComfyUI"}) {
        auto t = resolve({.app = "comfyui", .path = path}, &rep);
        ASSERT_TRUE(t.profile);
        EXPECT_EQ(t.profile->app.name, "comfyui");
        EXPECT_EQ(t.env.kind, EnvKind::Embedded);
        EXPECT_EQ(t.env.root, portable / "python_embeded");
        EXPECT_EQ(t.env.interpreter, portable / "python_embeded/python.exe");
        EXPECT_EQ(t.env.status, EnvStatus::FilesOnly);  // python.exe cannot run here
        ASSERT_TRUE(t.env.pth_file);
        EXPECT_EQ(t.env.pth_file->filename(), "python312._pth");
        EXPECT_EQ(t.env.facts.minor, 12);
        EXPECT_TRUE(t.env.facts.site_enabled);  // "import site" as the release workflow appends it
        EXPECT_EQ(t.env.app, "comfyui");
        ASSERT_TRUE(t.layout);
        EXPECT_TRUE(t.layout->pip_may_be_missing);
        EXPECT_EQ(t.code_dir(), portable / "ComfyUI");
        ASSERT_GE(t.start.size(), 2u);
        EXPECT_EQ(t.start[0], (portable / "python_embeded/python.exe").string());
    }
    EXPECT_TRUE(rep.warnings.empty());
    // --path alone recognises the app.
    auto t = resolve({.path = portable});
    ASSERT_TRUE(t.profile);
    EXPECT_EQ(t.profile->app.name, "comfyui");
    EXPECT_EQ(t.layout->name, "portable");
}

TEST(AppDetect, VenvLayoutsWithRealInterpreters) {
    test::TempDir dir;
    auto comfy = test::make_comfyui_git(dir / "ComfyUI");
    auto t = resolve({.app = "comfy", .path = comfy});
    EXPECT_EQ(t.env.kind, EnvKind::Venv);
    EXPECT_EQ(t.env.root, comfy / ".venv");
    EXPECT_EQ(t.env.status, EnvStatus::Ok);
    EXPECT_TRUE(t.env.facts.ran);
    EXPECT_EQ(t.start, (std::vector<std::string>{(comfy / ".venv/bin/python").string(), "main.py"}));

    auto invoke = test::make_invokeai_root(dir / "invokeai");
    auto i = resolve({.path = invoke});
    ASSERT_TRUE(i.profile);
    EXPECT_EQ(i.profile->app.name, "invokeai");
    EXPECT_EQ(i.env.root, invoke / ".venv");
    EXPECT_EQ(i.env.status, EnvStatus::Ok);

    auto sdnext = test::make_sdnext_git(dir / "sdnext");
    auto s = resolve({.path = sdnext});
    EXPECT_EQ(s.profile->app.name, "sdnext");
    EXPECT_EQ(s.env.root, sdnext / "venv");

    auto kohya = test::make_kohya_git(dir / "kohya_ss");
    auto k = resolve({.app = "kohya_ss", .path = kohya});
    EXPECT_EQ(k.env.root, kohya / "venv");
}

TEST(AppDetect, ForgePackageUsesSystemPython) {
    test::TempDir dir;
    auto forge = test::make_forge_package(dir / "webui_forge_cu121_torch231");
    auto t = resolve({.path = forge});
    ASSERT_TRUE(t.profile);
    EXPECT_EQ(t.profile->app.name, "forge");
    EXPECT_EQ(t.layout->name, "package");
    EXPECT_EQ(t.env.root, forge / "system/python");
    EXPECT_EQ(t.env.kind, EnvKind::Embedded);
    EXPECT_EQ(t.code_dir(), forge / "webui");
}

// A1111's launcher scripts may name another venv (webui-user.sh venv_dir, webui-user.bat VENV_DIR).
TEST(AppDetect, LauncherVenvSettingWins) {
    test::TempDir dir;
    auto a1111 = test::make_a1111_git(dir / "stable-diffusion-webui");
    test::make_venv(dir / "shared-venv", true);
    test::write_text(a1111 / "webui-user.sh", "#!/bin/bash\n# venv_dir=\"other\"\nexport venv_dir=\"" +
                                                  (dir / "shared-venv").string() + "\"\n");
    auto t = resolve({.app = "a1111", .path = a1111});
    EXPECT_EQ(t.env.root, dir / "shared-venv");

    // A Windows one: webui-user.bat with %~dp0 (the .bat's folder).
    auto win = dir / "win-a1111";
    test::make_a1111_git(win, "");
    test::make_windows_venv(win / "venvs/sd", "home = C:\\Python310\nversion = 3.10.11\n");
    test::write_text(win / "webui-user.bat", "@echo off\r\nset PYTHON=\r\nset VENV_DIR=%~dp0venvs\\sd\r\ncall webui.bat\r\n");
    auto w = resolve({.path = win});
    EXPECT_EQ(w.env.root, win / "venvs/sd");
    EXPECT_EQ(w.env.layout_os, probe::LayoutOs::Windows);
}

TEST(AppDetect, VenvSettingLines) {
    struct Case {
        const char* text;
        const char* key;
        bool bat;
        std::optional<std::string> value;
    };
    const std::vector<Case> cases = {
        {"venv_dir=\"/srv/venv\"\n", "venv_dir", false, "/srv/venv"},
        {"export venv_dir=/srv/venv # shared\n", "venv_dir", false, "/srv/venv"},
        {"#venv_dir=\"venv\"\n", "venv_dir", false, std::nullopt},
        {"venv_dir=a\nvenv_dir=b\n", "venv_dir", false, "b"},
        {"venv_dir=\"-\"\n", "venv_dir", false, std::nullopt},  // A1111: no venv
        {"VENV_DIR=x\n", "venv_dir", false, std::nullopt},      // shell names are case-sensitive
        {"set VENV_DIR=\r\n", "VENV_DIR", true, std::nullopt},
        {"@echo off\r\nset VENV_DIR=D:\\venvs\\sd\r\n", "VENV_DIR", true, "D:\\venvs\\sd"},
        {"set \"venv_dir=%~dp0venv\"\r\n", "VENV_DIR", true, "%~dp0venv"},
        {"if not defined VENV_DIR (set \"VENV_DIR=%~dp0%venv\")\r\n", "VENV_DIR", true, "%~dp0%venv"},
        {"rem set VENV_DIR=x\r\n:: set VENV_DIR=y\r\n", "VENV_DIR", true, std::nullopt},
        {"set OFFSET=1\r\n", "SET", true, std::nullopt},
    };
    for (const auto& c : cases) EXPECT_EQ(probe::parse_venv_setting(c.text, c.key, c.bat), c.value) << c.text;
}

TEST(AppDetect, NamedAppWithoutItsFilesStillFindsTheEnvironment) {
    test::TempDir dir;
    test::make_venv(dir / "my-comfy/venv", true);
    ChoosingReporter rep;
    auto t = resolve({.app = "comfyui", .path = dir / "my-comfy"}, &rep);
    ASSERT_TRUE(t.profile);
    // venv/ is the environment folder of a git checkout: its code (and requirement files) are here.
    ASSERT_TRUE(t.layout);
    EXPECT_EQ(t.layout->name, "git");
    EXPECT_EQ(t.code_dir(), dir / "my-comfy");
    EXPECT_TRUE(t.start.empty());  // no main.py here to start
    EXPECT_EQ(t.env.root, dir / "my-comfy/venv");
    ASSERT_EQ(rep.warnings.size(), 1u);
    EXPECT_EQ(rep.warnings[0].key, "apps.markers_missing");
    // A folder no profile knows, given with --path alone: the generic layout, no profile.
    auto g = resolve({.path = dir / "my-comfy"});
    EXPECT_EQ(g.profile, nullptr);
    EXPECT_EQ(g.env.root, dir / "my-comfy/venv");
}

TEST(AppDetect, TargetErrors) {
    test::TempDir dir;
    auto unknown = apps::resolve_app_target(catalog(), {.app = "photoshop"}, {});
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().code, ExitCode::Usage);
    EXPECT_NE(render(unknown.error().message, Lang::En).find("comfyui"), std::string::npos);
    // With a folder, an app envfix has no profile for is read like any folder, with a warning.
    test::make_venv(dir / "painter/venv", true);
    ChoosingReporter rep;
    auto generic = apps::resolve_app_target(catalog(), {.app = "photoshop", .path = dir / "painter"}, {.reporter = &rep});
    ASSERT_TRUE(generic);
    EXPECT_EQ(generic->profile, nullptr);
    EXPECT_EQ(generic->env.root, dir / "painter/venv");
    EXPECT_EQ(generic->env.app, "photoshop");
    ASSERT_EQ(rep.warnings.size(), 1u);
    EXPECT_EQ(rep.warnings[0].key, "apps.unknown_app_generic");
    auto gone = apps::resolve_app_target(catalog(), {.app = "comfyui", .path = dir / "gone"}, {});
    ASSERT_FALSE(gone);
    EXPECT_EQ(gone.error().code, ExitCode::EnvNotFound);
    test::make_comfyui_git(dir / "ComfyUI", "");
    auto empty = apps::resolve_app_target(catalog(), {.app = "comfyui", .path = dir / "ComfyUI"}, {});
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error().code, ExitCode::EnvNotFound);
    EXPECT_EQ(empty.error().message.key, "env.app_no_env");
    // The message names the places the profile looked in.
    EXPECT_NE(render(empty.error().message, Lang::En).find(".venv/, venv/"), std::string::npos)
        << render(empty.error().message, Lang::En);
}

probe::AppSearch in(const test::TempDir& dir, std::optional<std::string> app = std::nullopt) {
    stdfs::create_directories(dir / "cwd");
    return {.app = std::move(app), .cwd = dir / "cwd", .home = dir / "home", .os = platform::Os::Linux};
}

TEST(AppSearch, UsualPlacesAndTheCurrentFolder) {
    test::TempDir dir;
    test::make_comfyui_git(dir / "home/ComfyUI");
    test::make_comfyui_git(dir / "home/comfy/ComfyUI");
    test::make_a1111_git(dir / "home/stable-diffusion-webui");
    auto all = apps::find_apps(catalog(), in(dir));
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].profile->app.name, "a1111");  // profile order: a1111, comfyui, ...
    EXPECT_EQ(all[1].folder, dir / "home/ComfyUI");
    EXPECT_EQ(all[2].folder, dir / "home/comfy/ComfyUI");
    EXPECT_EQ(apps::find_apps(catalog(), in(dir, "comfyui")).size(), 2u);
    EXPECT_EQ(apps::find_apps(catalog(), in(dir, "invokeai")).size(), 0u);
    // The current folder comes first; the same install found twice counts once.
    auto search = in(dir, "comfyui");
    search.cwd = dir / "home/ComfyUI";
    auto cwd_first = apps::find_apps(catalog(), search);
    ASSERT_EQ(cwd_first.size(), 2u);
    EXPECT_EQ(cwd_first[0].folder, dir / "home/ComfyUI");
}

TEST(AppSearch, WindowsPlacesWithPrefixes) {
    test::TempDir dir;
    test::make_comfyui_portable(dir / "home/Downloads/ComfyUI_windows_portable_nvidia");
    test::make_forge_package(dir / "home/webui_forge_cu124_torch24");
    auto search = in(dir);
    search.os = platform::Os::Windows;
    auto found = apps::find_apps(catalog(), search);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].profile->app.name, "comfyui");
    EXPECT_EQ(found[0].layout->name, "portable");
    EXPECT_EQ(found[1].profile->app.name, "forge");
    EXPECT_EQ(found[1].layout->name, "package");
    // Linux places do not include them.
    EXPECT_TRUE(apps::find_apps(catalog(), in(dir)).empty());
    // A portable package found at its root and through its ComfyUI folder (the current one) is one install.
    search.cwd = dir / "home/Downloads/ComfyUI_windows_portable_nvidia/ComfyUI";
    search.app = "comfyui";
    EXPECT_EQ(apps::find_apps(catalog(), search).size(), 1u);
    auto places = probe::expand_place("~/webui_forge_*", dir / "home");
    ASSERT_EQ(places.size(), 1u);
    EXPECT_TRUE(probe::expand_place("~/x", std::nullopt).empty());
}

TEST(AppSearch, OneFoundIsUsedSeveralAreAskedOrRefused) {
    test::TempDir dir;
    test::make_comfyui_git(dir / "home/ComfyUI");
    apps::AppTargetOptions opts{.search = in(dir)};
    ChoosingReporter rep;
    opts.reporter = &rep;
    auto one = apps::resolve_app_target(catalog(), {.app = "comfyui"}, opts);
    ASSERT_TRUE(one) << render(one.error().message, Lang::En);
    EXPECT_EQ(one->folder, dir / "home/ComfyUI");
    ASSERT_EQ(rep.infos.size(), 1u);
    EXPECT_EQ(rep.infos[0].key, "apps.using");
    EXPECT_TRUE(rep.questions.empty());

    test::make_comfyui_git(dir / "home/comfy/ComfyUI");
    // --yes / scripts: refuse, naming both.
    opts.ask = false;
    auto refused = apps::resolve_app_target(catalog(), {.app = "comfyui"}, opts);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ExitCode::Usage);
    EXPECT_EQ(refused.error().message.key, "apps.several");
    auto text = render(refused.error().message, Lang::En);
    EXPECT_NE(text.find((dir / "home/ComfyUI").string()), std::string::npos) << text;
    EXPECT_NE(text.find((dir / "home/comfy/ComfyUI").string()), std::string::npos) << text;
    // Asked: the first yes wins.
    opts.ask = true;
    rep.answer = [&](const std::string& path) { return path == (dir / "home/comfy/ComfyUI").string(); };
    auto chosen = apps::resolve_app_target(catalog(), {.app = "comfyui"}, opts);
    ASSERT_TRUE(chosen);
    EXPECT_EQ(chosen->folder, dir / "home/comfy/ComfyUI");
    EXPECT_EQ(rep.questions.size(), 2u);
    // Asked and no answer is yes: refused as well.
    rep.answer = [](const std::string&) { return false; };
    EXPECT_FALSE(apps::resolve_app_target(catalog(), {.app = "comfyui"}, opts));
    // Two different apps and no --app: the same question.
    test::make_a1111_git(dir / "home/stable-diffusion-webui");
    opts.ask = false;
    auto mixed = apps::resolve_app_target(catalog(), {}, opts);
    ASSERT_FALSE(mixed);
    EXPECT_NE(render(mixed.error().message, Lang::En).find("Stable Diffusion web UI"), std::string::npos);
    // Nothing found.
    auto none = apps::resolve_app_target(catalog(), {.app = "invokeai"}, opts);
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, ExitCode::EnvNotFound);
    EXPECT_EQ(none.error().message.key, "apps.none_found");
}

}  // namespace
}  // namespace envfix
