// What an app constrains when torch changes: companions, the torch range, requirement files and
// the app's own package, judged from values (pure), then from a real app folder and venv.
#include <gtest/gtest.h>

#include <algorithm>

#include "app_data.hpp"
#include "app_trees.hpp"
#include "envfix/apps/app_profiles.hpp"
#include "envfix/apps/app_target.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/standards/names.hpp"
#include "support.hpp"

namespace envfix {
namespace {

namespace stdfs = std::filesystem;
using apps::AppFindingKind;

using test::app_data::builtin_matrix;
using test::app_data::catalog;
using test::app_data::dist;

standards::InstalledSet installed(std::vector<standards::InstalledDist> dists) {
    std::sort(dists.begin(), dists.end(), [](const auto& a, const auto& b) { return a.canonical_name < b.canonical_name; });
    return {std::move(dists)};
}

standards::MarkerEnvironment linux_py311() {
    standards::MarkerEnvironment m;
    m.python_version = "3.11";
    m.python_full_version = "3.11.2";
    m.os_name = "posix";
    m.sys_platform = "linux";
    m.platform_system = "Linux";
    m.platform_machine = "x86_64";
    m.platform_python_implementation = "CPython";
    m.implementation_name = "cpython";
    m.implementation_version = "3.11.2";
    return m;
}

std::vector<std::string> keys(const apps::AppConstraints& c, AppFindingKind kind) {
    std::vector<std::string> out;
    for (const auto& f : c.findings)
        if (f.kind == kind) out.push_back(f.message.key);
    return out;
}

const apps::AppFinding* find(const apps::AppConstraints& c, const std::string& key) {
    for (const auto& f : c.findings)
        if (f.message.key == key) return &f;
    return nullptr;
}

// ComfyUI with torch 2.1.2 era companions, moving to torch 2.8.0+cu128.
TEST(AppConstraints, CompanionsFollowTorch) {
    auto set = installed({dist("torch", "2.1.2+cu121", {"filelock"}),
                          dist("torchvision", "0.16.2+cu121", {"numpy", "torch==2.1.2"}),
                          dist("xformers", "0.0.23.post1", {"numpy", "torch==2.1.2"}),
                          dist("pip", "24.0")});
    apps::AppCheckInput in{.profile = catalog().find("comfyui"),
                           .planned = {{"torch", "2.8.0+cu128"}},
                           .installed = &set,
                           .matrix = &builtin_matrix(),
                           .markers = linux_py311()};
    auto c = apps::check_app_constraints(in);
    EXPECT_EQ(c.app, "comfyui");
    EXPECT_FALSE(c.has_conflicts());
    ASSERT_EQ(c.companions.size(), 3u);
    // torchvision: the matrix's companion of 2.8.0, with torch's CUDA variant.
    EXPECT_EQ(c.companions[0].package, "torchvision");
    EXPECT_EQ(c.companions[0].installed, "0.16.2+cu121");
    EXPECT_EQ(c.companions[0].needed, "0.23.0+cu128");
    EXPECT_EQ(c.companions[0].built_for, "==2.1.2");
    EXPECT_TRUE(c.companions[0].required);
    // torchaudio: ComfyUI needs it and it is missing.
    EXPECT_EQ(c.companions[1].package, "torchaudio");
    EXPECT_EQ(c.companions[1].installed, "");
    EXPECT_EQ(c.companions[1].needed, "2.8.0+cu128");
    // xformers: built for torch 2.1.2; the matrix does not name its successor.
    EXPECT_EQ(c.companions[2].package, "xformers");
    EXPECT_EQ(c.companions[2].needed, "");
    EXPECT_EQ(c.companions[2].built_for, "==2.1.2");
    EXPECT_FALSE(c.companions[2].required);
    EXPECT_EQ(keys(c, AppFindingKind::Companion),
              (std::vector<std::string>{"apps.finding.companion_upgrade", "apps.finding.companion_install",
                                        "apps.finding.companion_rebuild"}));
    EXPECT_EQ(render(c.findings[0].message, Lang::En), "torchvision 0.16.2+cu121 must change to 0.23.0+cu128 with torch 2.8.0+cu128");
    // The planned set an installer should bring.
    auto all = c.with_companions({{"torch", "2.8.0+cu128"}});
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[1].name, "torchvision");
    EXPECT_EQ(all[2].name, "torchaudio");
}

TEST(AppConstraints, PlannedCompanionsWinAndInLineOnesAreLeftAlone) {
    auto set = installed({dist("torchvision", "0.23.0+cu128", {"torch==2.8.0"}), dist("torchaudio", "2.8.0+cu128", {"torch==2.8.0"}),
                          dist("xformers", "0.0.32.post2", {"torch==2.8.0"})});
    apps::AppCheckInput in{.profile = catalog().find("comfyui"),
                           .planned = {{"torch", "2.8.0+cu128"}, {"torchaudio", "2.8.0+cu128"}},
                           .installed = &set,
                           .matrix = &builtin_matrix(),
                           .markers = linux_py311()};
    auto c = apps::check_app_constraints(in);
    EXPECT_TRUE(c.companions.empty()) << (c.findings.empty() ? "" : render(c.findings[0].message, Lang::En));
    EXPECT_TRUE(c.findings.empty());
    // Same versions, another CUDA variant: torchvision/torchaudio must be rebuilt for it too.
    in.planned = {{"torch", "2.8.0+cu126"}};
    auto v = apps::check_app_constraints(in);
    ASSERT_EQ(v.companions.size(), 2u);
    EXPECT_EQ(v.companions[0].needed, "0.23.0+cu126");
    EXPECT_EQ(v.companions[1].needed, "2.8.0+cu126");
}

TEST(AppConstraints, TorchRangeOfTheApp) {
    apps::AppCheckInput in{.profile = catalog().find("comfyui"), .planned = {{"torch", "2.6.0+cu124"}}, .markers = linux_py311()};
    auto c = apps::check_app_constraints(in);
    EXPECT_TRUE(c.has_conflicts());
    EXPECT_EQ(c.torch_range.to_string(), ">=2.7");
    ASSERT_FALSE(c.findings.empty());
    EXPECT_EQ(c.findings[0].kind, AppFindingKind::Conflict);
    EXPECT_EQ(c.findings[0].message.key, "apps.finding.torch_range");
    EXPECT_NE(render(c.findings[0].message, Lang::En).find("ComfyUI supports torch >=2.7"), std::string::npos);
    EXPECT_EQ(c.findings[0].source, "profiles/apps/comfyui.yaml");
    in.planned = {{"torch", "2.7.1"}};
    EXPECT_FALSE(apps::check_app_constraints(in).has_conflicts());
}

// InvokeAI's package says which torch it takes.
TEST(AppConstraints, TheAppsOwnPackageBindsTorch) {
    auto set = installed({dist("InvokeAI", "6.0.2", {"torch~=2.7.0", "torchvision", "xformers>=0.0.28.post1; extra == 'xformers'",
                                                     "windows-curses; sys_platform=='win32'"})});
    apps::AppCheckInput in{.profile = catalog().find("invokeai"),
                           .planned = {{"torch", "2.8.0"}},
                           .installed = &set,
                           .matrix = &builtin_matrix(),
                           .markers = linux_py311()};
    auto c = apps::check_app_constraints(in);
    EXPECT_TRUE(c.has_conflicts());
    EXPECT_EQ(c.torch_range.to_string(), "~=2.7.0");
    ASSERT_EQ(c.range_sources.size(), 1u);
    EXPECT_EQ(c.range_sources[0], "InvokeAI 6.0.2: torch~=2.7.0");
    auto* f = find(c, "apps.finding.dist_requirement");
    ASSERT_TRUE(f);
    EXPECT_EQ(render(f->message, Lang::En), "InvokeAI 6.0.2 requires torch~=2.7.0; the change installs torch 2.8.0");
    in.planned = {{"torch", "2.7.1"}};
    EXPECT_FALSE(apps::check_app_constraints(in).has_conflicts());
}

standards::RequirementsFile file(const std::string& text, const std::string& source) {
    return standards::parse_requirements_file(text, source);
}

TEST(AppConstraints, RequirementFilesAreRechecked) {
    auto set = installed({dist("xformers", "0.0.23.post1+cu118", {"torch==2.1.2"}), dist("torchvision", "0.16.2+cu118", {"torch==2.1.2"})});
    apps::AppCheckInput in{
        .profile = catalog().find("kohya_ss"),
        .planned = {{"torch", "2.8.0+cu128"}},
        .installed = &set,
        .matrix = &builtin_matrix(),
        .requirements = {file("torch==2.1.2+cu118 torchvision==0.16.2+cu118 --extra-index-url https://x/cu118\n"
                              "xformers==0.0.23.post1+cu118 bitsandbytes==0.41.1\n"
                              "-r requirements.txt\n",
                              "requirements_linux.txt"),
                         file("torch>=2.0; sys_platform == 'win32'\n"  // not on Linux
                              "torch<3; platform_release >= '6'\n"  // unknown marker value: applies
                              "torchvision @ git+https://github.com/x/vision\n"  // a URL: not checked
                              "git+https://github.com/kohya-ss/sd-scripts\n"
                              ".\n"
                              "numpy >=\n",
                              "requirements.txt")},
        .requirement_problems = {make_error(ExitCode::BadInput, "reqfile.unreadable", {{"source", "requirements_extra.txt"}})},
        .markers = linux_py311(),
        .unknown_markers = {standards::MarkerVariable::PlatformRelease}};
    auto c = apps::check_app_constraints(in);
    EXPECT_TRUE(c.has_conflicts());
    EXPECT_EQ(c.checked_files, (std::vector<std::string>{"requirements_linux.txt", "requirements.txt"}));
    std::vector<std::string> conflicts;
    for (const auto& f : c.findings)
        if (f.kind == AppFindingKind::Conflict) conflicts.push_back(f.source + " " + f.message.key + " " + f.package);
    EXPECT_EQ(conflicts, (std::vector<std::string>{
                             "requirements_linux.txt:1 apps.finding.requirement torch",
                             "requirements_linux.txt:1 apps.finding.requirement torchvision",
                             "requirements_linux.txt:2 apps.finding.requirement_pins_companion xformers",
                         }));
    auto* torch_pin = find(c, "apps.finding.requirement");
    EXPECT_EQ(render(torch_pin->message, Lang::En),
              "requirements_linux.txt:1: torch==2.1.2+cu118 does not allow torch 2.8.0+cu128, which the change installs");
    std::vector<std::string> unchecked;
    for (const auto& f : c.findings)
        if (f.kind == AppFindingKind::NotChecked) unchecked.push_back(f.message.key);
    EXPECT_EQ(unchecked, (std::vector<std::string>{"apps.finding.url", "apps.finding.url_line", "apps.finding.path_line",
                                                   "reqfile.bad_requirement", "reqfile.unreadable"}));
    // Findings come in order: conflicts, companions, not checked, notes.
    for (size_t i = 1; i < c.findings.size(); ++i) EXPECT_LE(static_cast<int>(c.findings[i - 1].kind), static_cast<int>(c.findings[i].kind));
}

TEST(AppConstraints, NotesAboutTheAppsInstallerAndPip) {
    apps::AppCheckInput in{
        .profile = catalog().find("a1111"), .planned = {{"torch", "2.7.1+cu128"}}, .markers = linux_py311(), .pip_missing = true};
    auto c = apps::check_app_constraints(in);
    EXPECT_EQ(keys(c, AppFindingKind::Note), (std::vector<std::string>{"apps.finding.installer_pin_env", "apps.finding.no_pip"}));
    auto* pin = find(c, "apps.finding.installer_pin_env");
    EXPECT_EQ(render(pin->message, Lang::En),
              "Stable Diffusion web UI (AUTOMATIC1111)'s installer puts torch 2.1.2 back when torch or torchvision missing, or "
              "--reinstall-torch; set TORCH_COMMAND to keep torch 2.7.1+cu128");
    EXPECT_EQ(pin->source, "modules/launch_utils.py");
    // The same torch as the installer's: nothing to say.
    in.planned = {{"torch", "2.1.2+cu121"}};
    in.pip_missing = false;
    EXPECT_TRUE(keys(apps::check_app_constraints(in), AppFindingKind::Note).empty());
    // Every finding renders in Chinese too.
    in.planned = {{"torch", "2.7.1"}};
    in.pip_missing = true;
    for (const auto& f : apps::check_app_constraints(in).findings)
        EXPECT_EQ(render(f.message, Lang::Zh).find(f.message.key), std::string::npos) << f.message.key;
}

// The same check with the files read from an app folder and its real venv.
TEST(AppConstraints, FromAnAppFolder) {
    test::TempDir dir;
    auto comfy = test::make_comfyui_git(dir / "ComfyUI");
    test::write_text(comfy / "custom_nodes/ComfyUI-Impact-Pack/requirements.txt", "segment-anything\nultralytics\ntorch<2.6\n");
    test::write_text(comfy / "custom_nodes/was-node-suite/requirements.txt", "git+https://github.com/WASasquatch/ffmpy.git\n");
    stdfs::create_directories(comfy / "custom_nodes/no-requirements");
    auto site = test::venv_site_packages(comfy / ".venv");
    test::add_dist(site, "torch", "2.5.1+cu124", {"filelock"});
    test::add_dist(site, "torchvision", "0.20.1+cu124", {"numpy", "torch==2.5.1"});
    test::add_dist(site, "torchaudio", "2.5.1+cu124", {"torch==2.5.1"});
    auto target = apps::resolve_app_target(catalog(), {.app = "comfyui", .path = comfy}, {});
    ASSERT_TRUE(target) << render(target.error().message, Lang::En);
    auto c = apps::check_app_target(*target, {{"torch", "2.8.0+cu128"}}, &builtin_matrix());
    EXPECT_EQ(c.checked_files, (std::vector<std::string>{"requirements.txt", "custom_nodes/ComfyUI-Impact-Pack/requirements.txt",
                                                         "custom_nodes/was-node-suite/requirements.txt"}));
    ASSERT_EQ(c.companions.size(), 2u);
    EXPECT_EQ(c.companions[0].installed, "0.20.1+cu124");
    EXPECT_EQ(c.companions[1].installed, "2.5.1+cu124");
    auto* conflict = find(c, "apps.finding.requirement");
    ASSERT_TRUE(conflict);
    EXPECT_EQ(conflict->source, "custom_nodes/ComfyUI-Impact-Pack/requirements.txt:3");
    EXPECT_TRUE(find(c, "apps.finding.url_line"));
    // The venv has no pip, but a git install is not an embeddable Python: no note.
    EXPECT_FALSE(find(c, "apps.finding.no_pip"));
}

// The portable package: requirement files under ComfyUI/, Windows markers, no pip.
TEST(AppConstraints, FromAPortablePackageReadOnLinux) {
    test::TempDir dir;
    auto portable = test::make_comfyui_portable(dir / "ComfyUI_windows_portable");
    test::write_text(portable / "ComfyUI/custom_nodes/win-only/requirements.txt",
                     "torch<2.6; sys_platform == 'win32'\ntorch<2.0; sys_platform == 'linux'\n");
    test::add_dist(portable / "python_embeded/Lib/site-packages", "torch", "2.5.1+cu124");
    auto target = apps::resolve_app_target(catalog(), {.path = portable}, {});
    ASSERT_TRUE(target) << render(target.error().message, Lang::En);
    EXPECT_EQ(apps::environment_os(target->env), platform::Os::Windows);
    auto c = apps::check_app_target(*target, {{"torch", "2.8.0+cu128"}}, &builtin_matrix());
    EXPECT_EQ(c.checked_files.front(), "ComfyUI/requirements.txt");
    auto* conflict = find(c, "apps.finding.requirement");
    ASSERT_TRUE(conflict);
    EXPECT_EQ(conflict->source, "ComfyUI/custom_nodes/win-only/requirements.txt:1");  // the Windows line, not the Linux one
    EXPECT_TRUE(find(c, "apps.finding.no_pip"));
}

}  // namespace
}  // namespace envfix
