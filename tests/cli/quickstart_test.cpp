// docs/quickstart.md and docs/quickstart.zh.md are this test's output, so the walkthrough cannot
// drift from what envfix says: a ComfyUI portable folder (its python_embeded a Linux venv, as the
// package copied to Linux) with torch 2.6.0+cu124, a stand-in RTX 5090, a mirror of the PyTorch
// index set once in the config file (127.0.0.1, the test index with a torch that passes the
// framework check), and the commands a user types in the folder. The files are compared with what
// the run printed, numbers, times, ids and the test's folders aside; ENVFIX_WRITE_DOCS=1 writes
// them (docs/testing.md).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "index_fixtures.hpp"
#include "pip_envs.hpp"
#include "standin.hpp"
#include "support.hpp"

namespace envfix {
namespace {

namespace stdfs = std::filesystem;

struct Step {
    std::vector<std::string> args;
    int code;
    const char* en;
    const char* zh;
};

// What the user types, in order, with the exit code each gives and the sentence before it.
const std::vector<Step>& steps() {
    static const std::vector<Step> s = {
        {{"doctor"},
         20,
         "In the `ComfyUI_windows_portable` folder, ask what is wrong. envfix finds the package's own Python "
         "(`python_embeded`), reads which GPU architectures its torch holds, and says why ComfyUI fails:",
         "在 `ComfyUI_windows_portable` 文件夹中，先问问哪里出了问题。envfix 会找到整合包自带的 Python（`python_embeded`），"
         "读出其中 torch 含有哪些 GPU 架构，并说明 ComfyUI 为什么出错："},
        {{"install", "-y"},
         0,
         "Run the Fix line. envfix picks the build that runs on this GPU from the index, keeps a snapshot of the "
         "environment as it was, installs, and checks the result on the GPU (its own kernels, then torch's "
         "operations); a check that fails undoes the change:",
         "运行 Fix 一行给出的命令。envfix 从索引中选出能在这块 GPU 上运行的构建，先为环境当前的样子保存快照，再安装，"
         "然后在 GPU 上检查结果（先运行它自己的内核，再运行 torch 的运算）；检查失败就撤销这次更改："},
        {{"doctor"}, 0, "Ask again:", "再检查一次："},
        {{"history"}, 0, "What envfix changed, and how to go back:", "envfix 做过哪些更改，以及如何恢复："},
    };
    return s;
}

// The index's port, times, sizes, dates and ids left out: what must match.
std::string comparable(std::string text) {
    static const std::regex volatile_parts(
        R"(127\.0\.0\.1:\d+|\d{8}T\d{6}Z-[0-9a-f-]+|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?|\d+(\.\d+)?)");
    text = std::regex_replace(text, volatile_parts, "#");
    static const std::regex spaces(R"([ \t]+)");
    return std::regex_replace(text, spaces, " ");
}

std::string render(const std::string& lang, const std::vector<std::pair<std::string, std::string>>& runs) {
    const bool zh = lang == "zh";
    std::string doc = zh ? "# 快速上手：修复 ComfyUI 整合包的 “no kernel image is available”\n\n"
                           "本页由测试 `QuickStart.*` 的运行结果生成（tests/cli/quickstart_test.cpp），命令和输出都是 envfix 真实给出的。"
                           "示例：一块 RTX 5090、整合包里是 torch 2.6.0+cu124（不含 sm_120 的内核）、PyTorch 索引的镜像已在配置文件中设置。"
                           "Windows 上把 `envfix` 换成 `envfix.exe`（或双击整合包里的 `fix-comfyui.bat`，见 [windows.md](windows.md)）。\n"
                         : "# Quick start: fix \"no kernel image is available\" in a ComfyUI portable package\n\n"
                           "This page is the output of the test `QuickStart.*` (tests/cli/quickstart_test.cpp): the commands and "
                           "what envfix answered. The example: an RTX 5090, a portable package with torch 2.6.0+cu124 (no sm_120 "
                           "kernels), a mirror of the PyTorch index set in the config file. On Windows, type `envfix.exe` instead "
                           "(or double-click `fix-comfyui.bat` in the package, [windows.md](windows.md)).\n";
    for (size_t i = 0; i < runs.size(); ++i) {
        doc += "\n" + std::string(zh ? steps()[i].zh : steps()[i].en) + "\n\n```\n" + runs[i].first + "\n```\n\n```\n" + runs[i].second;
        if (!runs[i].second.empty() && runs[i].second.back() != '\n') doc += "\n";
        doc += "```\n";
    }
    doc += zh ? "\n`envfix rollback 1`（从其他文件夹运行时加上历史中给出的 `--app comfyui --path …`）会把整合包恢复到安装之前的样子。\n"
              : "\n`envfix rollback 1` (from another folder, with the `--app comfyui --path …` history shows) puts the "
                "package back as it was before the install.\n";
    return doc;
}

void walkthrough(const std::string& lang) {
    test::TempDir d;
    const auto root = stdfs::absolute(d.path()).lexically_normal().string();
    const auto portable = d / "ComfyUI_windows_portable";
    stdfs::create_directories(portable / "ComfyUI/comfy");
    test::write_text(portable / "ComfyUI/main.py", "");
    test::write_text(portable / "ComfyUI/requirements.txt", "torch\ntorchsde\ntorchvision\ntorchaudio\nnumpy>=1.25.0\n");
    auto python = test::pip_venv(portable / "python_embeded");
    test::pip_install(
        python,
        {test::build_wheel(test::torch_wheel({.version = "2.6.0+cu124", .cuda = "12.4", .lib_fixture = "rewritten_torch26_cu124_like.so"}),
                           d / "wheels")});
    test::ServedIndex idx({"--variants", "cu126,cu128", "--torch", "2.7.0", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64",
                           "--fake-torch", "2.7.0=ok", "--torch-fatbin", "sass_120_ptx_120.so"});
    const auto home = d / "home";
    const std::string url = idx.server->url("/");
    test::write_text(home / ".config/envfix/config.yaml", "version: 1\npytorch:\n  index: " + url + "\nindex:\n  url: " + url + "cu128/\n");

    test::EnvList env = test::standin::env("rtx5090-570");
    env.insert(env.end(), {{"HOME", home.string()},
                           {"ENVFIX_CACHE_DIR", (home / ".cache/envfix").string()},
                           {"ENVFIX_CONFIG_DIR", (home / ".config/envfix").string()},
                           {"ENVFIX_DATA_DIR", (home / ".local/share/envfix").string()},
                           {"ENVFIX_LANG", lang},
                           {"NO_COLOR", "1"}});
    std::vector<std::pair<std::string, std::string>> runs;
    for (const auto& step : steps()) {
        std::vector<std::string> argv{test::envfix_binary().string()};
        argv.insert(argv.end(), step.args.begin(), step.args.end());
        auto r = test::run_program(argv, env, 300, portable);
        ASSERT_EQ(r.code, step.code) << r.out << r.err;
        std::string typed = "$ envfix";
        for (const auto& a : step.args) typed += " " + a;
        std::string shown = r.err + r.out;
        for (size_t at = 0; (at = shown.find(root, at)) != std::string::npos; at += 8) shown.replace(at, root.size(), "/home/me");
        runs.emplace_back(typed, shown);
    }
    const std::string made = render(lang, runs);
    const auto file = test::source_dir() / (lang == "zh" ? "docs/quickstart.zh.md" : "docs/quickstart.md");
    if (std::getenv("ENVFIX_WRITE_DOCS")) {
        std::ofstream(file, std::ios::binary) << made;
        return;
    }
    ASSERT_TRUE(stdfs::exists(file)) << file << " is missing: run this test with ENVFIX_WRITE_DOCS=1";
    EXPECT_EQ(comparable(test::read_text(file)), comparable(made))
        << file << " no longer shows what envfix says: run this test with ENVFIX_WRITE_DOCS=1 and read the change";
}

TEST(QuickStart, English) { walkthrough("en"); }
TEST(QuickStart, Chinese) { walkthrough("zh"); }

}  // namespace
}  // namespace envfix
