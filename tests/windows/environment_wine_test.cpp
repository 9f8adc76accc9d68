// envfix.exe reading what Windows users have, under Wine: GPU code in PE files (the fatbin
// fixtures inside DLLs the cross compiler made, in .nv_fatbin / .nv_fatb), Python environments
// as Windows lays them out, read from their files with no python.exe run, and doctor on a
// ComfyUI_windows_portable folder.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "layouts.hpp"
#include "pip_envs.hpp"
#include "wine_fixture.hpp"

namespace envfix::test::wine {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void place(const stdfs::path& to, const std::string& fixture) {
    stdfs::create_directories(to.parent_path());
    stdfs::copy_file(fatbin_fixture(fixture), to, stdfs::copy_options::overwrite_existing);
}

using Environments = WineTest;

TEST_F(Environments, FatbinsOfPeFiles) {
    place(dir / "lib/torch_cuda.dll", "win_short_names_86.dll");
    place(dir / "lib/_C.pyd", "win_long_names_86.dll");
    place(dir / "lib/cu130/torch_cuda.dll", "win_torch211_cu130_like.dll");
    place(dir / "lib/cu130/cublasLt64_13.dll", "win_zstd_90_100a_103a_120f_ptx120.dll");
    auto r = envfix({"archs", "--json", winpath(dir / "lib/torch_cuda.dll"), winpath(dir / "lib/_C.pyd"),
                     winpath(dir / "lib/cu130/torch_cuda.dll"), winpath(dir / "lib/cu130/cublasLt64_13.dll")});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    ASSERT_EQ(j["libraries"].size(), 4u) << r.out;
    for (const auto& l : j["libraries"]) EXPECT_EQ(l["format"], "pe") << l.dump();
    auto list = [&](size_t i) { return j["libraries"][i]["arch_list"].dump(); };
    EXPECT_EQ(list(0), R"(["sm_86","compute_86"])");
    EXPECT_EQ(list(1), R"(["sm_86","compute_86"])");
    EXPECT_EQ(list(2), R"(["sm_75","sm_80","sm_86","sm_90","sm_100","sm_120"])");
    EXPECT_EQ(list(3), R"(["sm_90","sm_100a","sm_103a","sm_120f","compute_120"])");
    EXPECT_EQ(j["libraries"][2]["containers"], 9);
    EXPECT_EQ(j["libraries"][3]["compression"]["zstd"], 5);
}

// The layout ComfyUI_windows_portable ships: python_embeded\python.exe, python312._pth with
// "import site", Lib\site-packages filled by pip --target here. doctor reads torch's version,
// its CUDA and torch_cuda.dll's kernels from the files, runs nothing, and names the fix.
TEST_F(Environments, DoctorOnComfyUiPortable) {
    auto app = dir / "ComfyUI_windows_portable";
    auto embedded = make_embedded(app / "python_embeded", "python312.zip\n.\nLib/site-packages\n../ComfyUI\nimport site\n");
    stdfs::create_directories(app / "ComfyUI");
    write_text(app / "ComfyUI/main.py", "# ComfyUI\n");
    std::vector<stdfs::path> wheels = {
        build_wheel(
            torch_wheel({.version = "2.6.0+cu124", .cuda = "12.4", .lib_fixture = "win_long_names_86.dll", .lib_name = "torch_cuda.dll"}),
            dir / "wheels"),
        build_wheel(dist_wheel("torchvision", "0.21.0+cu124", {"torch==2.6.0"}), dir / "wheels")};
    pip_install_target(embedded / "Lib" / "site-packages", wheels);
    auto r = envfix({"doctor", "--json", "--app", "comfyui", "--path", winpath(app)}, standin(rtx5090(",model=wddm")));
    ASSERT_EQ(r.code, 20) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["environment"]["kind"], "embedded");
    EXPECT_EQ(j["environment"]["status"], "ok");  // read from its files, as on Windows
    EXPECT_EQ(j["framework"]["version"], "2.6.0+cu124");
    EXPECT_TRUE(has(j["libraries"][0]["shown"].get<std::string>(), "torch_cuda.dll")) << j["libraries"].dump();
    // sm_86 SASS does not run on sm_120; its PTX (ISA 9.0) is newer than a CUDA 12.8 driver compiles.
    EXPECT_EQ(j["verdict"]["key"], "diag.gpu_not_served_jit_driver");
    EXPECT_EQ(j["fix"]["variant"], "cu128");
    // The text a user reads, in Chinese too.
    auto zh = envfix({"doctor", "--app", "comfyui", "--path", winpath(app)}, [&] {
        auto e = standin(rtx5090());
        e.push_back({"ENVFIX_LANG", "zh"});
        return e;
    }());
    EXPECT_EQ(zh.code, 20) << zh.err;
    EXPECT_TRUE(has(zh.out, "sm_120")) << zh.out;
}

// A Windows venv: pyvenv.cfg and Scripts\python.exe say what it is; nothing is run.
TEST_F(Environments, WindowsVenvFromItsFiles) {
    auto venv = make_windows_venv(dir / "venv",
                                  "home = C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python312\n"
                                  "include-system-site-packages = false\nversion = 3.12.10\n");
    auto r = envfix({"archs", "--json", "--env", winpath(venv)});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto env = r.json()["environment"];
    EXPECT_EQ(env["kind"], "venv");
    EXPECT_EQ(env["layout_os"], "windows");
    EXPECT_EQ(env["status"], "ok") << env.dump();  // Windows' own layout, on Windows: not "files only"
    EXPECT_EQ(env["python"]["version"], "3.12.10");
    EXPECT_EQ(env["python"]["ext_suffix"], ".cp312-win_amd64.pyd");
    EXPECT_TRUE(has(env["interpreter"].get<std::string>(), "Scripts\\python.exe")) << env.dump();
}

}  // namespace
}  // namespace envfix::test::wine
