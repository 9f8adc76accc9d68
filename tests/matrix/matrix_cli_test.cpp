// `envfix matrix` end to end: the built binary, its text and JSON output, its errors.
#include <gtest/gtest.h>

#include <sstream>

#include "support.hpp"

using namespace envfix;

namespace {

// The output line that starts with `first` and holds every one of `words`, or "".
std::string line_with(const std::string& out, const std::string& first, std::initializer_list<std::string> words) {
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(first, 0) != 0) continue;
        bool all = true;
        for (const auto& w : words) all = all && line.find(w) != std::string::npos;
        if (all) return line;
    }
    return "";
}

size_t lines_of(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// A copy of profiles/ in a temporary folder, optionally with one edit.
void copy_profiles(const test::TempDir& dir, const std::string& file = "", const std::string& from = "", const std::string& to = "") {
    for (const char* name : {"matrix/releases.yaml", "matrix/cuda.yaml", "gpus/architectures.yaml", "gpus/devices.yaml", "gpus/models.yaml"}) {
        std::string text = test::read_text(test::source_dir() / "profiles" / name);
        if (file == name) {
            auto pos = text.find(from);
            EXPECT_NE(pos, std::string::npos);
            text.replace(pos, from.size(), to);
        }
        test::write_text(dir.path() / name, text);
    }
}

}  // namespace

TEST(MatrixCli, PrintsTheMatrixForAPlatform) {
    auto r = test::run_envfix({"matrix", "--os", "linux", "--arch", "x86_64"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("PyTorch wheel variants for linux-x86_64"), std::string::npos) << r.out;
    EXPECT_NE(line_with(r.out, "2.11.0", {"cu130", "13.0.2", "580.95.05", "7.5 8.0 8.6 9.0 10.0 12.0", "measured"}), "") << r.out;
    EXPECT_NE(line_with(r.out, "2.7.1", {"cu128", "7.5 8.0 8.6 9.0 10.0 12.0"}), "") << r.out;
    EXPECT_NE(line_with(r.out, "2.0.0", {"cu117", "3.7 5.0 6.0 7.0 7.5 8.0 8.6"}), "") << r.out;
    EXPECT_EQ(line_with(r.out, "2.11.0", {"cpu"}), "") << "cpu rows only with --variant cpu";
    EXPECT_TRUE(r.err.empty()) << r.err;

    auto w = test::run_envfix({"matrix", "--os", "windows", "--release", "2.8"});
    ASSERT_EQ(w.code, 0) << w.err;
    EXPECT_NE(w.out.find("windows-x86_64"), std::string::npos);
    EXPECT_NE(line_with(w.out, "2.8.0", {"cu128", "6.1 7.0 7.5 8.0 8.6 9.0 10.0 12.0", "572.61"}), "") << w.out;
    EXPECT_EQ(line_with(w.out, "2.7.1", {}), "") << "--release 2.8 shows only the 2.8 line";

    auto cpu = test::run_envfix({"matrix", "--variant", "cpu", "--release", "2.2.2", "--os", "macos", "--arch", "x86_64"});
    ASSERT_EQ(cpu.code, 0);
    EXPECT_NE(line_with(cpu.out, "2.2.2", {"cpu"}), "") << cpu.out;

    auto none = test::run_envfix({"matrix", "--release", "9.9"});
    EXPECT_EQ(none.code, 0);
    EXPECT_NE(none.out.find("no release matches these filters"), std::string::npos);
}

TEST(MatrixCli, AnswersWhichBuildsServeAGpuBeforeBuyingIt) {
    auto r = test::run_envfix({"matrix", "--gpu", "RTX 5090", "--os", "linux", "--arch", "x86_64"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("GeForce RTX 5090: compute capability 12.0, Blackwell"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("needs an NVIDIA driver of branch 570 or newer"), std::string::npos);
    EXPECT_NE(r.out.find("from torch 2.7.0 on; the newest: torch 2.14.0 cu130 (driver 580.95.05 or newer)"), std::string::npos) << r.out;
    EXPECT_NE(line_with(r.out, "2.11.0", {"cu128", "native sm_120", "570.26"}), "") << r.out;
    EXPECT_EQ(line_with(r.out, "2.11.0", {"cu126"}), "") << "cu126 has no sm_120";
    EXPECT_EQ(line_with(r.out, "2.6.0", {}), "");

    auto d = test::run_envfix({"matrix", "--gpu", "rtx5090", "--driver", "570.133.07", "--release", "2.11.0", "--os", "linux", "--arch", "x86_64"});
    ASSERT_EQ(d.code, 0);
    EXPECT_NE(line_with(d.out, "2.11.0", {"cu128", "runs"}), "") << d.out;
    EXPECT_NE(line_with(d.out, "2.11.0", {"cu130", "driver too old"}), "") << d.out;

    // The other spellings, and a Pascal GPU on Windows (whose cu128 kept Pascal in 2.7/2.8).
    for (const char* spec : {"8.9", "sm_89", "RTX 4090", "10de:2684"}) {
        auto g = test::run_envfix({"matrix", "--gpu", spec, "--release", "2.11", "--os", "linux", "--arch", "x86_64"});
        ASSERT_EQ(g.code, 0) << spec << ": " << g.err;
        EXPECT_NE(g.out.find("compute capability 8.9"), std::string::npos) << spec;
        EXPECT_NE(line_with(g.out, "2.11.0", {"cu126", "sm_86 (same major)"}), "") << g.out;
    }
    auto p = test::run_envfix({"matrix", "--gpu", "sm_61", "--os", "windows", "--release", "2.8"});
    ASSERT_EQ(p.code, 0);
    EXPECT_NE(line_with(p.out, "2.8.0", {"cu128", "native sm_61"}), "") << p.out;
    EXPECT_NE(p.out.find("supported by NVIDIA drivers up to branch 580"), std::string::npos);
}

TEST(MatrixCli, NoBuildForAGpuIsAFinding) {
    auto r = test::run_envfix({"matrix", "--gpu", "Jetson AGX Orin", "--os", "linux", "--arch", "aarch64"});
    EXPECT_EQ(r.code, 40) << r.out << r.err;
    EXPECT_NE(r.out.find("no release in the matrix carries kernels for Jetson AGX Orin (sm_87) on linux-aarch64"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Jetson (Tegra)"), std::string::npos);
}

TEST(MatrixCli, JsonDocument) {
    auto r = test::run_envfix({"--json", "matrix", "--gpu", "RTX 5090", "--driver", "570.133.07", "--release", "2.11.0", "--os", "linux",
                               "--arch", "x86_64"});
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["platform"], "linux-x86_64");
    EXPECT_EQ(j["profiles"], "built-in");
    EXPECT_EQ(j["driver"], "570.133.07");
    ASSERT_EQ(j["gpus"].size(), 1u);
    EXPECT_EQ(j["gpus"][0]["cc"], "12.0");
    EXPECT_EQ(j["gpus"][0]["family"], "Blackwell");
    EXPECT_EQ(j["gpus"][0]["first_driver"], 570);
    ASSERT_EQ(j["releases"].size(), 1u);
    const auto& rel = j["releases"][0];
    EXPECT_EQ(rel["torch"], "2.11.0");
    EXPECT_EQ(rel["pypi_default"], "cu130");
    EXPECT_EQ(rel["companions"]["torchvision"], "0.26.0");
    bool seen128 = false, seen126 = false, seen_cpu = false;
    for (const auto& v : rel["variants"]) {
        if (v["name"] == "cu128") {
            seen128 = true;
            EXPECT_EQ(v["serves_all"], true);
            EXPECT_EQ(v["gpus"][0]["kind"], "native");
            EXPECT_EQ(v["gpus"][0]["target"], "sm_120");
            EXPECT_EQ(v["min_driver"]["exact"], "570.26");
            EXPECT_EQ(v["min_driver"]["floor"], "525.60.13");
            EXPECT_EQ(v["min_driver_for_gpus"], "570.26");
            EXPECT_EQ(v["driver_fit"], "exact");
            EXPECT_EQ(v["sass"].back(), "12.0");
        }
        if (v["name"] == "cu126") {
            seen126 = true;
            EXPECT_EQ(v["serves_all"], false);
            EXPECT_EQ(v["gpus"][0]["reason"], "GeForce RTX 5090 (sm_120): no kernels; the newest SASS is sm_90 and there is no PTX");
        }
        if (v["name"] == "cpu") {
            seen_cpu = true;
            EXPECT_TRUE(v["min_driver"].is_null());
        }
    }
    EXPECT_TRUE(seen128 && seen126 && seen_cpu);
    EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(MatrixCli, BadArgumentsAreOneLineErrors) {
    struct Case { std::vector<std::string> args; int code; const char* text; };
    for (const auto& c : {Case{{"matrix", "--gpu", "Voodoo 5 6000"}, 3, "no GPU named \"Voodoo 5 6000\""},
                          Case{{"matrix", "--gpu", "RTX 6000"}, 3, "matches GPUs of different architectures"},
                          Case{{"matrix", "--os", "beos"}, 2, "unknown OS \"beos\""},
                          Case{{"matrix", "--arch", "mips"}, 2, "unknown CPU \"mips\""},
                          Case{{"matrix", "--driver", "latest"}, 2, "\"latest\" is not a driver version"},
                          Case{{"matrix", "--python", "2.7"}, 2, "\"2.7\" is not a Python version"},
                          Case{{"matrix", "--channel", "weekly"}, 2, ""}}) {
        auto r = test::run_envfix(c.args);
        EXPECT_EQ(r.code, c.code) << c.args.back() << "\n" << r.err;
        if (*c.text) {
            EXPECT_NE(r.err.find(c.text), std::string::npos) << r.err;
            EXPECT_EQ(lines_of(r.err), 1u) << r.err;
            EXPECT_EQ(r.err.rfind("envfix: error: ", 0), 0u) << r.err;
        }
    }
    auto j = test::run_envfix({"--json", "matrix", "--gpu", "Voodoo 5 6000"});
    EXPECT_EQ(j.code, 3);
    EXPECT_EQ(j.json()["error"]["name"], "bad-input");
    EXPECT_EQ(j.json()["error"]["key"], "plan.gpu_unknown");
}

TEST(MatrixCli, ProfilesFromAFolderOrTheEnvironment) {
    test::TempDir good;
    copy_profiles(good, "gpus/architectures.yaml", "family: Blackwell, products: \"GeForce RTX 50", "family: Blackwell-test, products: \"GeForce RTX 50");
    auto r = test::run_envfix({"matrix", "--gpu", "12.0", "--profiles", good.path().string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("Blackwell-test"), std::string::npos);
    auto e = test::run_envfix({"matrix", "--gpu", "12.0"}, {{"ENVFIX_PROFILES_DIR", good.path().string()}});
    ASSERT_EQ(e.code, 0) << e.err;
    EXPECT_NE(e.out.find("Blackwell-test"), std::string::npos);
    auto j = test::run_envfix({"--json", "matrix", "--release", "2.11.0", "--profiles", good.path().string()});
    EXPECT_EQ(j.json()["profiles"], good.path().string());

    test::TempDir bad;
    copy_profiles(bad, "matrix/releases.yaml", "\"7.5;8.0;8.6;9.0;10.0;12.0\"}", "\"7.5;9.x\"}");
    auto b = test::run_envfix({"matrix", "--profiles", bad.path().string()});
    EXPECT_EQ(b.code, 41) << b.err;
    EXPECT_EQ(lines_of(b.err), 1u) << b.err;
    EXPECT_NE(b.err.find("envfix: error: " + (bad.path() / "matrix/releases.yaml").string() + ":"), std::string::npos) << b.err;
    EXPECT_NE(b.err.find(": 2.7/cu128/linux-x86_64: arch \"9.x\" is not a compute capability"), std::string::npos) << b.err;
    auto be = test::run_envfix({"--json", "matrix"}, {{"ENVFIX_PROFILES_DIR", bad.path().string()}});
    EXPECT_EQ(be.code, 41);
    EXPECT_EQ(be.json()["error"]["name"], "profile-invalid");

    auto missing = test::run_envfix({"matrix", "--profiles", (good.path() / "nowhere").string()});
    EXPECT_EQ(missing.code, 3);
    EXPECT_NE(missing.err.find("cannot read this profile file"), std::string::npos) << missing.err;
}

TEST(MatrixCli, SpeaksChinese) {
    auto r = test::run_envfix({"--lang", "zh", "matrix", "--gpu", "8.9", "--release", "2.11.0", "--os", "linux", "--arch", "x86_64"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("计算能力 8.9"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("主版本相同"), std::string::npos) << r.out;
    auto e = test::run_envfix({"matrix", "--gpu", "Voodoo"}, {{"ENVFIX_LANG", "zh"}});
    EXPECT_NE(e.err.find("GPU 表中没有名为“Voodoo”的 GPU"), std::string::npos) << e.err;
}
