// `envfix doctor` end to end: the built binary, real venvs filled by real pip from mkwheel wheels
// (torch-shaped, with the fatbin fixtures as torch/lib), GPUs from the stand-in driver library.
#include <gtest/gtest.h>

#include <regex>

#include "layouts.hpp"
#include "pip_envs.hpp"
#include "standin.hpp"
#include "support.hpp"

using namespace envfix;
namespace stdfs = std::filesystem;
namespace standin = envfix::test::standin;
using Json = nlohmann::ordered_json;

namespace {

// A venv holding the given wheels, installed by pip.
stdfs::path venv_with(const test::TempDir& d, const std::vector<Json>& specs) {
    auto python = test::pip_venv(d / "venv");
    std::vector<stdfs::path> wheels;
    for (const auto& s : specs) wheels.push_back(test::build_wheel(s, d / "wheels"));
    if (!wheels.empty()) test::pip_install(python, wheels);
    return python;
}

test::RunResult doctor(const test::TempDir& d, const stdfs::path& python, const test::EnvList& machine,
                       std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"doctor", "--json", "--python", python.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_envfix(args, machine, d / "home");
}

standin::Machine rtx5090_580() {
    auto m = standin::machine("rtx5090-570");
    m.driver = "580.95.05";
    m.cuda = 13000;
    return m;
}

const Json* finding(const Json& j, const std::string& id) {
    for (const auto& f : j["findings"])
        if (f["id"] == id) return &f;
    return nullptr;
}

TEST(DoctorCli, Cu124OnRtx5090HasNoKernelImage) {
    test::TempDir d;
    auto python =
        venv_with(d, {test::torch_wheel({.version = "2.6.0+cu124", .cuda = "12.4", .lib_fixture = "rewritten_torch26_cu124_like.so"}),
                      test::dist_wheel("torchvision", "0.21.0+cu124", {"torch==2.6.0"})});
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 20) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["exit_code"], 20);
    EXPECT_EQ(j["exit_name"], "gpu-not-served");
    EXPECT_EQ(j["framework"]["version"], "2.6.0+cu124");
    EXPECT_EQ(j["framework"]["build"], "cuda");
    EXPECT_EQ(j["framework"]["cuda"], "12.4");
    EXPECT_EQ(j["framework"]["evidence"], "version-file");
    EXPECT_EQ(j["verdict"]["key"], "diag.gpu_not_served");
    EXPECT_EQ(j["verdict"]["message"],
              "torch 2.6.0+cu124 has no kernels for your GeForce RTX 5090 (sm_120): it was built for sm_50\xE2\x80\x93sm_90 without PTX");
    ASSERT_EQ(j["gpus"].size(), 1u);
    EXPECT_EQ(j["gpus"][0]["served"], false);
    EXPECT_EQ(j["gpus"][0]["sm"], "sm_120");
    EXPECT_EQ(j["gpus"][0]["missing"][0]["library"], "torch/lib/libtorch_cuda.so");
    EXPECT_EQ(j["layers"][0]["layer"], "driver");
    EXPECT_EQ(j["layers"][0]["status"], "ok");
    EXPECT_EQ(j["layers"][1]["status"], "ok");
    EXPECT_EQ(j["layers"][2]["status"], "problem");
    EXPECT_EQ(j["fix"]["variant"], "cu128");
    auto argv = j["fix"]["argv"];
    EXPECT_EQ(argv[0], "envfix");
    EXPECT_EQ(argv[1], "install");
    EXPECT_EQ(argv[2], "--python");
    EXPECT_EQ(argv.size(), 4u) << argv.dump();  // plan picks the version from the index
    // The libraries as read from the fatbins, the companion consistent with torch.
    EXPECT_EQ(j["libraries"][0]["arch_list"], Json::array({"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"}));
    EXPECT_EQ(finding(j, "companion-mismatch"), nullptr);

    // The same in words: the verdict first, the layers, the fix in one line.
    auto text = test::run_envfix({"doctor", "--python", python.string()}, standin::env("rtx5090-570"), d / "home");
    EXPECT_EQ(text.code, 20);
    EXPECT_EQ(text.out.rfind("torch 2.6.0+cu124 has no kernels for your GeForce RTX 5090 (sm_120)", 0), 0u) << text.out;
    EXPECT_NE(text.out.find("Fix: envfix install --python "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("CUDA runtime"), std::string::npos) << text.out;
    // Chinese too.
    auto zh = test::run_envfix({"doctor", "--lang", "zh", "--python", python.string()}, standin::env("rtx5090-570"), d / "home");
    EXPECT_NE(zh.out.find("没有适用于你的"), std::string::npos) << zh.out;
    EXPECT_NE(zh.out.find("修复：envfix install"), std::string::npos) << zh.out;

    // On a terminal: the verdict and the status column in colour, unless NO_COLOR, --no-color or
    // TERM=dumb says not; never where the output is not a terminal (above).
    EXPECT_EQ(text.out.find("\x1b["), std::string::npos);
    auto on_terminal = [&](std::vector<std::string> extra, const test::EnvList& more) {
        std::vector<std::string> argv{test::test_python().string(),
                                      (test::source_dir() / "tests/tools/pty_answer.py").string(),
                                      "-",
                                      test::envfix_binary().string(),
                                      "doctor",
                                      "--python",
                                      python.string()};
        argv.insert(argv.end(), extra.begin(), extra.end());
        auto env = standin::env("rtx5090-570");
        env.emplace_back("HOME", (d / "home").string());
        env.insert(env.end(), more.begin(), more.end());
        return test::run_program(argv, env, 120).out;
    };
    auto coloured = on_terminal({}, {{"TERM", "xterm-256color"}});
    EXPECT_NE(coloured.find("\x1b[31mtorch 2.6.0+cu124 has no kernels"), std::string::npos) << coloured;
    EXPECT_NE(coloured.find("\x1b[32m"), std::string::npos) << coloured;  // the driver layer's "ok"
    for (const auto& plain : {on_terminal({}, {{"TERM", "xterm"}, {"NO_COLOR", "1"}}), on_terminal({"--no-color"}, {{"TERM", "xterm"}}),
                              on_terminal({}, {{"TERM", "dumb"}})})
        EXPECT_EQ(plain.find("\x1b["), std::string::npos) << plain;
}

TEST(DoctorCli, Cu128OnRtx5090Runs) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"}),
                                test::dist_wheel("torchvision", "0.22.0+cu128", {"torch==2.7.0"})});
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["verdict"]["key"], "diag.verdict.native");
    EXPECT_EQ(j["gpus"][0]["served"], true);
    EXPECT_EQ(j["gpus"][0]["kind"], "native");
    EXPECT_EQ(j["gpus"][0]["target"], "sm_120");
    EXPECT_TRUE(j["fix"].is_null());
    EXPECT_EQ(j["runtime"]["fit"], "exact");
    for (const auto& l : j["layers"]) EXPECT_EQ(l["status"], "ok") << l.dump();
}

TEST(DoctorCli, AWarmRunSaysWhatItTookFromItsCaches) {
    // -vv says whether the interpreter was run for its facts, and counts the libraries taken from
    // the cache of their architectures and those read, so a slow warm doctor shows what it still
    // does (docs/performance.md).
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"})});
    auto first = doctor(d, python, standin::env("rtx5090-570"), {"-vv"});
    ASSERT_EQ(first.code, 0) << first.out << first.err;
    EXPECT_NE(first.err.find("interpreter facts of " + python.string() + ": it was run ("), std::string::npos) << first.err;
    EXPECT_NE(first.err.find("libraries: 0 from the cache of their architectures, 2 read now, 0 unreadable"), std::string::npos)
        << first.err;
    auto warm = doctor(d, python, standin::env("rtx5090-570"), {"-vv"});
    ASSERT_EQ(warm.code, 0) << warm.out << warm.err;
    EXPECT_NE(warm.err.find("interpreter facts of " + python.string() + ": from the cache"), std::string::npos) << warm.err;
    EXPECT_NE(warm.err.find("libraries: 2 from the cache of their architectures, 0 read now, 0 unreadable"), std::string::npos) << warm.err;
    // And when each step ended, so the slow one shows: in order, each a number of ms.
    const std::regex steps(R"(steps, in ms after the command began: environment found (\d+), profiles loaded (\d+), libraries read (\d+), )"
                           R"(GPUs known (\d+) \(the probe took (\d+) ms on its own thread\), diagnosed (\d+))");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(warm.err, m, steps)) << warm.err;
    for (int i : {1, 2, 3}) EXPECT_LE(std::stoll(m[i]), std::stoll(m[i + 1])) << m[0];
    EXPECT_LE(std::stoll(m[4]), std::stoll(m[6])) << m[0];
}

TEST(DoctorCli, Cu130OnGtx1080TiHasNoKernelImage) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.11.0+cu130", .cuda = "13.0", .lib_fixture = "torch211_cu130_like.so"})});
    auto r = doctor(d, python, standin::env("gtx1080ti-580"));
    ASSERT_EQ(r.code, 20) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["gpus"][0]["sm"], "sm_61");
    EXPECT_EQ(j["gpus"][0]["served"], false);
    EXPECT_EQ(j["fix"]["variant"], "cu126");  // the only variant left with Pascal kernels
}

TEST(DoctorCli, Cu130OnDriver570IsTooOld) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.11.0+cu130", .cuda = "13.0", .lib_fixture = "torch211_cu130_like.so"})});
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 21) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["verdict"]["key"], "diag.driver_too_old");
    EXPECT_EQ(j["layers"][0]["status"], "problem");
    EXPECT_EQ(j["runtime"]["fit"], "too-old");
    EXPECT_EQ(j["runtime"]["driver_needed"], "580.95.05");
    EXPECT_EQ(j["fix"]["variant"], "cu128");
    bool driver_note = false;
    for (const auto& n : j["fix_notes"]) driver_note |= n.get<std::string>().find("580.95.05") != std::string::npos;
    EXPECT_TRUE(driver_note) << j["fix_notes"].dump();
}

TEST(DoctorCli, CpuOnlyBuildOnGpuMachine) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cpu", .cuda = ""})});
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 22) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["framework"]["build"], "cpu");
    EXPECT_EQ(j["verdict"]["key"], "diag.cpu_only");
    EXPECT_EQ(j["fix"]["variant"], "cu128");
}

TEST(DoctorCli, TorchvisionPinnedToAnotherTorch) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"}),
                                test::dist_wheel("torchvision", "0.21.0", {"numpy", "torch==2.6.0"})});
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 25) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["verdict"]["message"], "torchvision 0.21.0 requires torch==2.6.0, but torch 2.7.0+cu128 is installed");
    EXPECT_EQ(j["fix"]["reinstall"], true);
    EXPECT_EQ(j["fix"]["torch"], "2.7.0");
}

TEST(DoctorCli, MixedCuda12And13Libraries) {
    test::TempDir d;
    auto python =
        venv_with(d, {test::torch_wheel({.version = "2.11.0+cu130", .cuda = "13.0", .lib_fixture = "torch211_cu130_like.so"}),
                      test::dist_wheel("nvidia-cublas", "13.1.0.3", {},
                                       {{"nvidia/cu13/lib/libcublas.so.13", {{"copy", "tests/fixtures/fatbin/multi_container.so"}}}}),
                      test::dist_wheel("nvidia-cublas-cu12", "12.8.4.1", {},
                                       {{"nvidia/cublas/lib/libcublas.so.12", {{"copy", "tests/fixtures/fatbin/multi_container.so"}}}})});
    auto r = doctor(d, python, standin::env("h200-580"));
    ASSERT_EQ(r.code, 25) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["verdict"]["key"], "diag.mixed_runtimes_torch");
    EXPECT_NE(j["verdict"]["message"].get<std::string>().find("CUDA 12: nvidia-cublas-cu12 12.8.4.1; CUDA 13: nvidia-cublas 13.1.0.3"),
              std::string::npos);
    EXPECT_EQ(j["gpus"][0]["served"], true);  // the H200 itself is served
    int cuda12 = 0;
    for (const auto& p : j["packages"]) cuda12 += p["cuda_major"] == 12 ? 1 : 0;
    EXPECT_EQ(cuda12, 1);
}

TEST(DoctorCli, TwoTorchDistInfos) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"})});
    // What an interrupted upgrade or `pip install --target` over an old install leaves: the old
    // record beside the new one.
    auto sp = test::venv_site_packages(python);
    stdfs::copy(sp / "torch-2.7.0+cu128.dist-info", sp / "torch-2.6.0+cu124.dist-info");
    auto meta = test::read_text(sp / "torch-2.6.0+cu124.dist-info/METADATA");
    test::write_text(sp / "torch-2.6.0+cu124.dist-info/METADATA",
                     meta.replace(meta.find("Version: 2.7.0+cu128"), 20, "Version: 2.6.0+cu124"));
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 25) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["verdict"]["key"], "diag.duplicate_torch");
    EXPECT_EQ(j["framework"]["version"], "2.7.0+cu128");
    EXPECT_NE(j["framework"]["dist_info"].get<std::string>().find("torch-2.7.0+cu128.dist-info"), std::string::npos);
}

TEST(DoctorCli, EmbeddedWindowsLayoutReadFromFiles) {
    test::TempDir d;
    auto app = d / "ComfyUI_windows_portable";
    auto embedded = test::make_embedded(app / "python_embeded", "python312.zip\n.\nLib/site-packages\n../ComfyUI\nimport site\n");
    std::vector<stdfs::path> wheels = {
        test::build_wheel(
            test::torch_wheel(
                {.version = "2.6.0+cu124", .cuda = "12.4", .lib_fixture = "win_long_names_86.dll", .lib_name = "torch_cuda.dll"}),
            d / "wheels"),
        test::build_wheel(test::dist_wheel("torchvision", "0.21.0+cu124", {"torch==2.6.0"}), d / "wheels")};
    test::pip_install_target(embedded / "Lib" / "site-packages", wheels);
    auto r = test::run_envfix({"doctor", "--json", "--app", "comfyui", "--path", app.string()}, standin::env("rtx5090-570"), d / "home");
    ASSERT_EQ(r.code, 20) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["environment"]["kind"], "embedded");
    EXPECT_EQ(j["environment"]["status"], "files-only");
    EXPECT_EQ(j["libraries"][0]["shown"], "torch/lib/torch_cuda.dll");
    // sm_86 SASS does not run on sm_120; its PTX (ISA 9.0) is newer than a CUDA 12.8 driver compiles.
    EXPECT_EQ(j["verdict"]["key"], "diag.gpu_not_served_jit_driver");
    EXPECT_EQ(j["gpus"][0]["jit_blocked"], true);
    auto argv = j["fix"]["argv"];
    EXPECT_EQ(argv[2], "--app");
    EXPECT_EQ(argv[3], "comfyui");
    EXPECT_EQ(argv[4], "--path");
    EXPECT_EQ(j["fix"]["variant"], "cu128");
    // --run cannot run a Windows interpreter here, and says so.
    auto run = test::run_envfix({"doctor", "--json", "--run", "--app", "comfyui", "--path", app.string()}, standin::env("rtx5090-570"),
                                d / "home");
    EXPECT_EQ(run.code, 20);
    EXPECT_EQ(run.json()["run"]["ran"], false);
}

TEST(DoctorCli, VendorLibraryWithoutTheGpusArchitecture) {
    test::TempDir d;
    // torch carries PTX the 580 driver compiles for sm_120; its cuBLAS has no sm_120 code.
    auto python =
        venv_with(d, {test::torch_wheel({.version = "2.6.0+cu126", .cuda = "12.6", .lib_fixture = "ptx_only_80.so"}),
                      test::dist_wheel("nvidia-cublas-cu12", "12.6.4.1", {},
                                       {{"nvidia/cublas/lib/libcublasLt.so.12", {{"copy", "tests/fixtures/fatbin/multi_container.so"}}}})});
    auto r = doctor(d, python, standin::env(rtx5090_580()));
    ASSERT_EQ(r.code, 20) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["verdict"]["key"], "diag.vendor_not_served");
    EXPECT_EQ(j["gpus"][0]["kind"], "ptx-jit");
    EXPECT_EQ(j["gpus"][0]["missing"][0]["library"], "nvidia/cublas/lib/libcublasLt.so.12");
}

// A package envfix has never heard of, built against torch, with kernels only for sm_80 inside its
// own folder (the seed's situation with a custom op): read because it requires torch.
TEST(DoctorCli, AnyPackageBuiltAgainstTorchIsRead) {
    test::TempDir d;
    auto python = venv_with(
        d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"}),
            test::dist_wheel("Kern-Ops", "1.0", {"torch>=2.0"}, {{"kern_ops/_C.so", {{"copy", "tests/fixtures/fatbin/sass_75_80_86.so"}}}}),
            test::dist_wheel("plainlib", "1.0", {}, {{"plainlib/_x.so", {{"copy", "tests/fixtures/fatbin/sass_75_80_86.so"}}}})});
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 20) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["gpus"][0]["served"], false) << j["gpus"].dump();
    EXPECT_NE(r.out.find("kern_ops/_C.so"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("plainlib/_x.so"), std::string::npos) << r.out;  // does not use torch: not read
}

// Such a package's libraries come from its RECORD, wherever it put them (not only the folder
// named for it, and without walking the folders of pure-Python ones like transformers); one
// installed without a RECORD (setup.py's egg-info) has its folder walked.
TEST(DoctorCli, APackageBuiltAgainstTorchIsReadFromItsRecord) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"}),
                                test::dist_wheel("Kern-Ops", "1.0", {"Torch (>=2.0)"},
                                                 {{"kernops_impl/deep/_C.so", {{"copy", "tests/fixtures/fatbin/sass_75_80_86.so"}}},
                                                  {"kern_ops/__init__.py", ""}}),
                                // Requires torch_extras, not torch: not read.
                                test::dist_wheel("Near-Miss", "1.0", {"torch_extras>=1; python_version > '3'"},
                                                 {{"near_miss/_x.so", {{"copy", "tests/fixtures/fatbin/sass_75_80_86.so"}}}}),
                                test::dist_wheel("torch_extras", "1.0", {})});
    // A legacy install beside it, as `setup.py install` leaves one: egg-info, no RECORD.
    const auto sp = test::venv_site_packages(python);
    test::write_text(sp / "legacy_ops-0.1-py3.11.egg-info/PKG-INFO", "Metadata-Version: 1.1\nName: legacy-ops\nVersion: 0.1\n");
    test::write_text(sp / "legacy_ops-0.1-py3.11.egg-info/requires.txt", "torch\n");
    stdfs::create_directories(sp / "legacy_ops/sub");
    stdfs::copy_file(test::source_dir() / "tests/fixtures/fatbin/sass_75_80_86.so", sp / "legacy_ops/sub/_k.so");
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 20) << r.out << r.err;
    const auto j = r.json();
    std::vector<std::string> shown;
    for (const auto& l : j["libraries"]) shown.push_back(l["package"].get<std::string>() + ":" + l["shown"].get<std::string>());
    EXPECT_NE(std::find(shown.begin(), shown.end(), "kernops_impl:kernops_impl/deep/_C.so"), shown.end()) << r.out;
    EXPECT_NE(std::find(shown.begin(), shown.end(), "legacy_ops:legacy_ops/sub/_k.so"), shown.end()) << r.out;
    EXPECT_EQ(r.out.find("near_miss/_x.so"), std::string::npos) << r.out;
}

// Which distributions are built against torch is kept per site-packages folder: a warm run reads
// none of the other distributions' METADATA or RECORDs, still finds their libraries, and reads
// again once pip changed the folder (docs/doctor.md, "What doctor reads").
TEST(DoctorCli, TorchsDependentsAreTakenFromTheirCacheUntilTheFolderChanges) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"}),
                                test::dist_wheel("Kern-Ops", "1.0", {"torch>=2.0"},
                                                 {{"kernops_impl/_C.so", {{"copy", "tests/fixtures/fatbin/sass_75_80_86.so"}}}})});
    const auto sp = test::venv_site_packages(python);
    const auto settled = [&sp] { stdfs::last_write_time(sp, stdfs::file_time_type::clock::now() - std::chrono::minutes(1)); };
    const auto shows = [](const test::RunResult& r, const std::string& lib) {
        const auto j = r.json();
        for (const auto& l : j["libraries"])
            if (l["shown"] == lib) return true;
        return false;
    };
    settled();
    auto first = doctor(d, python, standin::env("rtx5090-570"), {"-vv"});
    ASSERT_EQ(first.code, 20) << first.out << first.err;
    EXPECT_NE(first.err.find("packages built against torch: 0 site-packages folders from their cache, 1 read ("), std::string::npos)
        << first.err;
    EXPECT_TRUE(shows(first, "kernops_impl/_C.so")) << first.out;
    auto warm = doctor(d, python, standin::env("rtx5090-570"), {"-vv"});
    ASSERT_EQ(warm.code, 20) << warm.out << warm.err;
    EXPECT_NE(warm.err.find("packages built against torch: 1 site-packages folders from their cache, 0 read (0 distributions"),
              std::string::npos)
        << warm.err;
    EXPECT_TRUE(shows(warm, "kernops_impl/_C.so")) << warm.out;

    test::pip_install(python,
                      {test::build_wheel(test::dist_wheel("Kern-Two", "1.0", {"torch"},
                                                          {{"kern_two/_k.so", {{"copy", "tests/fixtures/fatbin/sass_75_80_86.so"}}}}),
                                         d / "wheels")});
    auto changed = doctor(d, python, standin::env("rtx5090-570"), {"-vv"});
    ASSERT_EQ(changed.code, 20) << changed.out << changed.err;
    EXPECT_NE(changed.err.find("0 site-packages folders from their cache, 1 read ("), std::string::npos) << changed.err;
    EXPECT_TRUE(shows(changed, "kern_two/_k.so")) << changed.out;
    EXPECT_TRUE(shows(changed, "kernops_impl/_C.so")) << changed.out;
}

TEST(DoctorCli, RunTheReproduction) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.6.0+cu124",
                                                   .cuda = "12.4",
                                                   .lib_fixture = "rewritten_torch26_cu124_like.so",
                                                   .repro_error = test::kNoKernelImage})});
    auto r = doctor(d, python, standin::env("rtx5090-570"), {"--run"});
    ASSERT_EQ(r.code, 20) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["run"]["ran"], true);
    EXPECT_EQ(j["run"]["outcome"], "no-kernel-image");
    EXPECT_EQ(j["run"]["torch"], "2.6.0+cu124");
    EXPECT_EQ(j["run"]["error"], "RuntimeError: CUDA error: no kernel image is available for execution on the device");
    EXPECT_EQ(j["run"]["relation"].get<std::string>().rfind("it fails as diagnosed", 0), 0u);

    // A build that runs: the matmul passes and doctor agrees.
    test::TempDir ok;
    auto good = venv_with(ok, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"})});
    auto r2 = doctor(ok, good, standin::env("rtx5090-570"), {"--run"});
    ASSERT_EQ(r2.code, 0) << r2.out << r2.err;
    EXPECT_EQ(r2.json()["run"]["outcome"], "ok");
    EXPECT_EQ(r2.json()["run"]["device"], "Stand-in GPU");

    // The diagnosis finds nothing, the reproduction fails: the run's error decides the exit code.
    test::TempDir odd;
    auto odd_python = venv_with(odd, {test::torch_wheel({.version = "2.7.0+cu128",
                                                         .cuda = "12.8",
                                                         .lib_fixture = "torch211_cu130_like.so",
                                                         .repro_error = "CUDA error: an illegal memory access was encountered"})});
    auto r3 = doctor(odd, odd_python, standin::env("rtx5090-570"), {"--run"});
    EXPECT_EQ(r3.code, 71) << r3.out << r3.err;
    EXPECT_EQ(r3.json()["run"]["outcome"], "cuda-error");
}

TEST(DoctorCli, NoTorchAndNoGpu) {
    test::TempDir d;
    auto python = test::make_venv(d / "venv", true);
    auto r = doctor(d, python, standin::no_driver_env());
    ASSERT_EQ(r.code, 26) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["verdict"]["key"], "diag.no_torch_no_gpu");
    EXPECT_TRUE(j["framework"].is_null());
    EXPECT_EQ(j["probe_error"]["name"], "no-driver");
    EXPECT_EQ(j["fix"]["variant"], "cpu");
    auto text = test::run_envfix({"doctor", "--python", python.string()}, standin::no_driver_env(), d / "home");
    EXPECT_EQ(text.code, 26);
    EXPECT_EQ(text.out.rfind("there is no torch in ", 0), 0u) << text.out;
}

TEST(DoctorCli, CudaTorchWithoutDriver) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"})});
    auto r = doctor(d, python, standin::no_driver_env());
    ASSERT_EQ(r.code, 10) << r.out << r.err;
    auto j = r.json();
    EXPECT_EQ(j["probe_error"]["name"], "no-driver");
    EXPECT_EQ(j["verdict"]["key"], j["probe_error"]["key"]);  // the probe's own sentence
    EXPECT_TRUE(j["fix"].is_null());
    EXPECT_FALSE(j["fix_text"].is_null());
}

TEST(DoctorCli, DamagedFilesAreNamed) {
    test::TempDir d;
    auto python = venv_with(d, {test::torch_wheel({.version = "2.7.0+cu128", .cuda = "12.8", .lib_fixture = "torch211_cu130_like.so"}),
                                test::dist_wheel("xformers", "0.0.30", {"torch==2.7.0"},
                                                 {{"xformers/_C.so", {{"copy", "tests/fixtures/fatbin/sass_120_ptx_120.so"}}}})});
    auto sp = test::venv_site_packages(python);
    test::write_text(sp / "torch" / "version.py", "# emptied by a broken sync tool\n");
    test::write_text(sp / "xformers" / "_C.so", "not a library");
    auto r = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(r.code, 0) << r.out << r.err;  // warnings only: the tag still says cu128
    auto j = r.json();
    EXPECT_EQ(j["framework"]["evidence"], "local-tag");
    const Json* version_file = finding(j, "version-file");
    ASSERT_NE(version_file, nullptr);
    EXPECT_NE((*version_file)["message"].get<std::string>().find((sp / "torch" / "version.py").string()), std::string::npos);
    const Json* unreadable = finding(j, "library-unreadable");
    ASSERT_NE(unreadable, nullptr);
    EXPECT_EQ((*unreadable)["severity"], "warning");
    EXPECT_NE((*unreadable)["message"].get<std::string>().find("_C.so"), std::string::npos);
    // torch's own library cut short: the install is damaged (24), and the fix reinstalls.
    test::write_text(sp / "torch" / "lib" / "libtorch_cuda.so",
                     "\x7f"
                     "EL");
    auto broken = doctor(d, python, standin::env("rtx5090-570"));
    ASSERT_EQ(broken.code, 24) << broken.out << broken.err;
    EXPECT_EQ(broken.json()["verdict"]["key"].get<std::string>().rfind("binary.", 0), 0u) << broken.out;
    EXPECT_NE(broken.json()["verdict"]["message"].get<std::string>().find("libtorch_cuda.so"), std::string::npos);
    EXPECT_FALSE(broken.json()["fix"].is_null());
}

TEST(DoctorCli, MissingEnvironmentIsOneLine) {
    test::TempDir d;
    auto r = test::run_envfix({"doctor", "--json", "--env", (d / "nope").string()}, standin::env("h200-580"), d / "home");
    EXPECT_EQ(r.code, 23);
    EXPECT_EQ(r.json()["error"]["name"], "env-not-found");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// A fresh machine without Python (README's `scripts/doctor` there): the GPUs and driver are
// still shown before the one-line error.
TEST(DoctorCli, NoPythonAnywhereStillShowsTheMachine) {
    test::TempDir d;
    stdfs::create_directories(d / "empty-bin");
    auto env = standin::env("h200-580");
    env.push_back({"PATH", (d / "empty-bin").string()});
    auto r = test::run_envfix({"doctor"}, env, d / "home");
    EXPECT_EQ(r.code, 23) << r.err;
    EXPECT_NE(r.out.find("580.159.04"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("H200"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("no Python found"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
