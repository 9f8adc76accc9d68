// profiles/*.yaml: the real files load and say what torch-matrix.md says; the built-in snapshot
// equals them; every class of schema error names the file and line, with ExitCode 41.
#include <gtest/gtest.h>

#include <cstdlib>

#include "envfix/common/fs.hpp"
#include "matrix_fixture.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::matrix;

namespace {

const Release& release(const Matrix& m, const std::string& torch) {
    for (const auto& r : m.releases)
        if (r.torch == torch) return r;
    ADD_FAILURE() << "no release " << torch;
    static Release none;
    return none;
}

std::vector<std::string> tags(const std::vector<probe::ArchTarget>& ts) {
    std::vector<std::string> out;
    for (const auto& t : ts) out.push_back(t.cc.to_string());
    return out;
}

const Platform kLinux{OsKind::Linux, CpuKind::X86_64};
const Platform kWindows{OsKind::Windows, CpuKind::X86_64};
const Platform kArm{OsKind::Linux, CpuKind::Aarch64};

}  // namespace

TEST(MatrixFiles, RealFilesLoadInOrder) {
    const Matrix& m = test::real_matrix();
    ASSERT_EQ(m.releases.size(), 27u);
    EXPECT_EQ(m.releases.front().torch, "2.0.0");
    EXPECT_EQ(m.releases.back().line, "nightly");
    EXPECT_EQ(m.releases.back().channel, Channel::Nightly);
    for (size_t i = 0; i < m.releases.size(); ++i) EXPECT_EQ(m.releases[i].order, static_cast<int>(i));
    auto newest = m.newest_first(Channel::Stable);
    ASSERT_FALSE(newest.empty());
    EXPECT_EQ(newest.front()->torch, "2.14.0");
    EXPECT_EQ(newest.back()->torch, "2.0.0");
}

TEST(MatrixFiles, MeasuredH200WheelIsRecorded) {
    // torch-matrix.md [M]: 2.11.0+cu130 = sm_75,80,86,90,100,120, no PTX, CUDA 13.0.2, PyPI default.
    const Release& r = release(test::real_matrix(), "2.11.0");
    EXPECT_EQ(r.pypi_default, "cu130");
    EXPECT_EQ(r.companions.torchvision, "0.26.0");
    EXPECT_EQ(r.companions.triton, "3.6.0");
    const Variant* v = r.variant("cu130");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->toolkit, "13.0.2");
    const Build* b = v->build(kLinux);
    ASSERT_TRUE(b);
    EXPECT_EQ(tags(b->sass), (std::vector<std::string>{"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}));
    EXPECT_TRUE(b->ptx.empty());
    EXPECT_EQ(b->confidence, Confidence::Measured);
    EXPECT_EQ(b->source.file, "profiles/matrix/releases.yaml");
    EXPECT_GT(b->source.line, 0);
}

TEST(MatrixFiles, PerVersionAndPerPlatformFacts) {
    const Matrix& m = test::real_matrix();
    // cu129 2.9.0 on Linux and Windows, 2.9.1 on Linux only; 2.12 cu129 only for 2.12.1.
    EXPECT_TRUE(release(m, "2.9.0").variant("cu129")->build(kWindows));
    EXPECT_FALSE(release(m, "2.9.1").variant("cu129")->build(kWindows));
    EXPECT_TRUE(release(m, "2.9.1").variant("cu129")->build(kLinux));
    EXPECT_FALSE(release(m, "2.12.0").variant("cu129"));
    EXPECT_TRUE(release(m, "2.12.1").variant("cu129"));
    // 2.13.0 cu130 shipped 12.0+PTX on Linux x86_64 (PT#188914).
    EXPECT_EQ(tags(release(m, "2.13.0").variant("cu130")->build(kLinux)->ptx), (std::vector<std::string>{"12.0"}));
    // Windows cu11x carried compute_37 PTX; Linux did not.
    EXPECT_EQ(tags(release(m, "2.0.1").variant("cu117")->build(kWindows)->ptx), (std::vector<std::string>{"3.7"}));
    EXPECT_TRUE(release(m, "2.0.1").variant("cu117")->build(kLinux)->ptx.empty());
    // Volta: in cu128 for 2.8-2.10, out in 2.7 and 2.11.
    auto has70 = [&](const char* torch) {
        auto s = tags(release(m, torch).variant("cu128")->build(kLinux)->sass);
        return std::find(s.begin(), s.end(), "7.0") != s.end();
    };
    EXPECT_FALSE(has70("2.7.1"));
    EXPECT_TRUE(has70("2.8.0"));
    EXPECT_TRUE(has70("2.10.0"));
    EXPECT_FALSE(has70("2.11.0"));
    // Jetson Thor (11.0) only in aarch64 cu130 lists.
    auto thor = tags(release(m, "2.14.0").variant("cu130")->build(kArm)->sass);
    EXPECT_NE(std::find(thor.begin(), thor.end(), "11.0"), thor.end());
    // Python 3.13 was Linux-only in 2.5; free-threaded builds are Linux-only.
    EXPECT_TRUE(release(m, "2.5.1").offers_python("3.13", kLinux));
    EXPECT_FALSE(release(m, "2.5.1").offers_python("3.13", kWindows));
    EXPECT_TRUE(release(m, "2.14.0").offers_python("3.14t", kLinux));
    EXPECT_FALSE(release(m, "2.14.0").offers_python("3.14t", kWindows));
    EXPECT_FALSE(release(m, "2.9.1").offers_python("3.9", kLinux));
    // An unconfirmed arch list says so.
    EXPECT_EQ(release(m, "2.7.1").variant("cu128")->build(kArm)->confidence, Confidence::Unconfirmed);
}

TEST(MatrixFiles, ToolkitsBranchesArchitecturesAndDevices) {
    const Matrix& m = test::real_matrix();
    const Toolkit* tk = m.toolkit({13, 0});
    ASSERT_TRUE(tk);
    EXPECT_EQ(tk->updates.back().linux_min.to_string(), "580.95.05");
    EXPECT_EQ(tk->ptx_isa, (probe::PtxIsa{9, 0}));
    EXPECT_EQ(m.floor(12)->linux_min.to_string(), "525.60.13");
    EXPECT_EQ(m.floor(12)->windows_min.to_string(), "528.33");
    EXPECT_EQ(m.driver_cuda(*probe::DriverVersion::parse("580.159.04")), (CudaVersion{13, 0}));
    EXPECT_EQ(m.driver_cuda(*probe::DriverVersion::parse("572.61")), (CudaVersion{12, 8}));
    EXPECT_EQ(m.driver_cuda(*probe::DriverVersion::parse("470.256.02")), (CudaVersion{11, 4}));
    EXPECT_EQ(m.max_ptx_isa({12, 8}), (probe::PtxIsa{8, 7}));
    EXPECT_EQ(m.architecture({12, 0})->first_driver, 570);
    EXPECT_EQ(m.architecture({6, 1})->last_driver, 580);
    EXPECT_TRUE(m.architecture({8, 7})->tegra);
    const GpuDevice* d = m.device(0x2b85);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->name, "GeForce RTX 5090");
    EXPECT_EQ(d->cc, (ComputeCapability{12, 0}));
    EXPECT_EQ(m.device(0x20b0)->cc, (ComputeCapability{8, 0}));   // GA100, not GA10x
    EXPECT_EQ(m.device(0x3182)->cc, (ComputeCapability{10, 3}));  // GB110 = B300
    EXPECT_EQ(m.device(0x2e12)->cc, (ComputeCapability{12, 1}));  // GB20B = GB10
    EXPECT_FALSE(m.device(0x0001));
    EXPECT_NE(m.devices_origin.find("pci.ids"), std::string::npos);
}

TEST(MatrixFiles, NormalizesPythonAndPlatforms) {
    struct Case { const char* in; const char* out; };
    for (auto c : {Case{"3.12", "3.12"}, Case{"3.12.4", "3.12"}, Case{"cp312", "3.12"}, Case{"312", "3.12"},
                   Case{"3.13t", "3.13t"}, Case{"cp313t", "3.13t"}, Case{" 3.9 ", "3.9"}})
        EXPECT_EQ(normalize_python(c.in).value_or("-"), c.out) << c.in;
    for (const char* bad : {"", "2.7", "3", "three", "3.x", "4.0", "3.13.1t", "cp3"}) EXPECT_FALSE(normalize_python(bad)) << bad;
    EXPECT_EQ(Platform::parse("windows-x86_64"), kWindows);
    EXPECT_EQ(Platform::parse("macos-arm64")->key(), "macos-arm64");
    EXPECT_FALSE(Platform::parse("linux-arm"));
    EXPECT_FALSE(Platform::parse("macos-aarch64"));  // only the canonical spelling in files
    EXPECT_EQ(parse_cpu("AMD64"), CpuKind::X86_64);
    EXPECT_EQ(parse_os("win32"), OsKind::Windows);
}

TEST(MatrixFiles, BuiltInSnapshotEqualsTheFiles) {
    auto embedded = load_embedded_profiles();
    ASSERT_TRUE(embedded) << render(embedded.error().message, Lang::En);
    EXPECT_TRUE(*embedded == test::real_matrix()) << "rebuild: the snapshot is older than profiles/*.yaml";
}

TEST(MatrixFiles, SnapshotRoundTripsAndRejectsDamage) {
    std::string bytes = encode_snapshot(test::real_matrix());
    auto back = decode_snapshot(bytes);
    ASSERT_TRUE(back);
    EXPECT_TRUE(*back == test::real_matrix());
    for (std::string bad : {bytes.substr(0, bytes.size() / 2), std::string("XXXX") + bytes.substr(4), bytes + "x", std::string()}) {
        auto r = decode_snapshot(bad);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().message.key, "profiles.bad_snapshot");
    }
}

TEST(MatrixFiles, LoadsFromAFolderAndFromTheEnvironment) {
    test::TempDir dir;
    for (const auto& t : test::real_profile_texts()) test::write_text(dir.path() / t.name, t.text);
    std::string devices = test::read_text(dir / "gpus/devices.yaml");
    devices.replace(devices.find("origin: \""), 9, "origin: \"test copy ");
    test::write_text(dir / "gpus/devices.yaml", devices);

    auto m = load_profiles_dir(dir.path());
    ASSERT_TRUE(m) << render(m.error().message, Lang::En);
    EXPECT_EQ(m->devices_origin.rfind("test copy", 0), 0u);
    EXPECT_EQ(m->releases.front().source.file, (dir / "matrix/releases.yaml").string());

    ::setenv("ENVFIX_PROFILES_DIR", dir.path().c_str(), 1);
    auto from_env = load_profiles();
    auto explicit_dir = load_profiles(test::source_dir() / "profiles");  // --profiles wins
    ::unsetenv("ENVFIX_PROFILES_DIR");
    ASSERT_TRUE(from_env);
    EXPECT_EQ(from_env->devices_origin.rfind("test copy", 0), 0u);
    ASSERT_TRUE(explicit_dir);
    EXPECT_EQ(explicit_dir->devices_origin.rfind("test copy", 0), std::string::npos);
    auto builtin = load_profiles();
    ASSERT_TRUE(builtin);
    EXPECT_TRUE(*builtin == test::real_matrix());

    std::filesystem::remove(dir / "gpus/models.yaml");
    auto missing = load_profiles_dir(dir.path());
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, ExitCode::BadInput);
    EXPECT_EQ(render(missing.error().message, Lang::En), (dir / "gpus/models.yaml").string() + ": cannot read this profile file");
}

TEST(MatrixFiles, ErrorLineNamesFileLineVariantAndValue) {
    int line = test::line_of("matrix/releases.yaml", "linux-x86_64: {archs: \"7.5;8.0;8.6;9.0;10.0;12.0\"}");
    auto r = parse_profiles(test::edited_profiles("matrix/releases.yaml", "\"7.5;8.0;8.6;9.0;10.0;12.0\"}", "\"7.5;9.x\"}"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::ProfileInvalid);
    EXPECT_EQ(render(r.error().message, Lang::En),
              "profiles/matrix/releases.yaml:" + std::to_string(line) +
                  ": 2.7/cu128/linux-x86_64: arch \"9.x\" is not a compute capability (like 8.6 or 9.0+PTX)");
    EXPECT_EQ(render(r.error().message, Lang::Zh),
              "profiles/matrix/releases.yaml:" + std::to_string(line) +
                  "：2.7/cu128/linux-x86_64：arch“9.x”不是计算能力（应形如 8.6 或 9.0+PTX）");
}

// Each class of error: which edit, which key, which line (the first line holding `at`, or 0 to
// skip the line check).
struct BrokenCase {
    const char* file;
    const char* from;
    const char* to;
    const char* key;
    const char* at;
};

void PrintTo(const BrokenCase& c, std::ostream* os) { *os << c.key << " in " << c.file; }

class BrokenProfiles : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenProfiles, FailWithFileLineAndKey) {
    const BrokenCase& c = GetParam();
    auto r = parse_profiles(test::edited_profiles(c.file, c.from, c.to));
    ASSERT_FALSE(r) << c.key;
    EXPECT_EQ(r.error().code, ExitCode::ProfileInvalid);
    EXPECT_EQ(r.error().message.key, c.key) << render(r.error().message, Lang::En);
    EXPECT_EQ(r.error().message.arg("file"), std::string("profiles/") + c.file);
    if (*c.at) {
        EXPECT_EQ(r.error().message.arg("line"), std::to_string(test::line_of(c.file, c.at))) << render(r.error().message, Lang::En);
    }
    std::string text = render(r.error().message, Lang::En);
    EXPECT_EQ(text.find('\n'), std::string::npos) << "one line: " << text;
    EXPECT_EQ(text.rfind(std::string("profiles/") + c.file + ":", 0), 0u) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Schema, BrokenProfiles,
    ::testing::Values(
        BrokenCase{"matrix/releases.yaml", "releases:\n", "releases:\n  - {line: [\n", "profiles.yaml_syntax", ""},
        BrokenCase{"matrix/releases.yaml", "schema_version: 1", "schema_version: 2", "profiles.schema_version", "schema_version: 1"},
        BrokenCase{"matrix/releases.yaml", "schema_version: 1", "schema: 1", "profiles.no_schema_version", ""},
        BrokenCase{"matrix/releases.yaml", "    pypi_default: cu117\n", "    pypi_default: cu117\n    colour: blue\n",
                   "profiles.unknown_field", ""},
        BrokenCase{"matrix/releases.yaml", "  - line: \"2.0\"\n    channel: stable\n", "  - line: \"2.0\"\n",
                   "profiles.missing_field", "  - line: \"2.0\""},
        BrokenCase{"matrix/releases.yaml", "{torch: \"2.0.1\"", "{torch: \"2.0.0\"", "profiles.duplicate", "{torch: \"2.0.1\""},
        BrokenCase{"matrix/releases.yaml", "- name: cu117\n        cuda: \"11.7\"", "- name: cu116\n        cuda: \"11.6\"",
                   "profiles.unknown_toolkit", "cuda: \"11.7\""},
        BrokenCase{"matrix/releases.yaml", "cuda: \"12.9.1\"", "cuda: \"12.9.7\"", "profiles.unknown_toolkit", "cuda: \"12.9.1\""},
        BrokenCase{"matrix/releases.yaml", "cuda: \"11.7\"", "cuda: \"11.8\"", "profiles.cuda_mismatch", "cuda: \"11.7\""},
        BrokenCase{"matrix/releases.yaml", "- name: cu117", "- name: cuda117", "profiles.bad_variant_name", "- name: cu117"},
        BrokenCase{"matrix/releases.yaml", "linux-aarch64: {archs: \"9.0\"}", "linux-arm: {archs: \"9.0\"}",
                   "profiles.bad_platform", "linux-aarch64: {archs: \"9.0\"}"},
        BrokenCase{"matrix/releases.yaml", "python: [\"3.8\", \"3.9\", \"3.10\", \"3.11\"]",
                   "python: [\"3.8\", \"3.9\", \"3.10\", \"three\"]", "profiles.bad_python", "python: [\"3.8\""},
        BrokenCase{"matrix/releases.yaml", "python: [\"3.8\", \"3.9\", \"3.10\", \"3.11\"]", "python: \"3.8\"",
                   "profiles.want_list", "python: [\"3.8\""},
        BrokenCase{"matrix/releases.yaml", "channel: nightly", "channel: weekly", "profiles.bad_choice", "channel: nightly"},
        BrokenCase{"matrix/releases.yaml", "pypi_default: cu117", "pypi_default: cu999", "profiles.unknown_variant",
                   "pypi_default: cu117"},
        BrokenCase{"matrix/releases.yaml", "versions: [\"2.9.0\"]", "versions: [\"2.9.7\"]", "profiles.unknown_version",
                   "versions: [\"2.9.0\"]"},
        BrokenCase{"matrix/releases.yaml", "platforms: {linux-x86_64: {}, linux-aarch64: {}, windows-x86_64: {}, macos-arm64: {}, macos-x86_64: {}}",
                   "platforms: {linux-x86_64: {archs: \"8.0\"}}", "profiles.cpu_with_archs",
                   "platforms: {linux-x86_64: {}, linux-aarch64: {}, windows-x86_64: {}, macos-arm64: {}, macos-x86_64: {}}"},
        BrokenCase{"matrix/releases.yaml", "\"3.7;5.0;6.0;7.0;7.5;8.0;8.6\"", "\"3.7;5.0;5.0\"", "profiles.duplicate",
                   "\"3.7;5.0;6.0;7.0;7.5;8.0;8.6\""},
        BrokenCase{"matrix/cuda.yaml", "linux: \"570.26\"", "linux: \"570.2x\"", "profiles.bad_driver", "linux: \"570.26\""},
        BrokenCase{"matrix/cuda.yaml", "{version: \"12.8.1\"", "{version: \"12.9.1\"", "profiles.update_mismatch",
                   "{version: \"12.8.1\""},
        BrokenCase{"matrix/cuda.yaml", "{branch: 450,", "{branch: four-fifty,", "profiles.want_number", "{branch: 450,"},
        BrokenCase{"matrix/cuda.yaml", "ptx_isa: \"8.7\"", "ptx_isa: \"eight\"", "profiles.bad_ptx_isa", "ptx_isa: \"8.7\""},
        BrokenCase{"gpus/architectures.yaml", "cc: \"8.9\"", "cc: \"8.x\"", "profiles.bad_cc", "cc: \"8.9\""},
        BrokenCase{"gpus/architectures.yaml", "tegra: true, confidence", "tegra: yes, confidence", "profiles.want_bool",
                   "tegra: true, confidence"},
        BrokenCase{"gpus/architectures.yaml", "cc: \"3.5\"", "cc: \"3.0\"", "profiles.duplicate", "cc: \"3.5\""},
        BrokenCase{"gpus/devices.yaml", "id: \"2684\"", "id: \"26845\"", "profiles.bad_pci_id", "id: \"2684\""},
        BrokenCase{"gpus/devices.yaml", "cc: \"8.9\", name: \"GeForce RTX 4090\"", "cc: \"8.8\", name: \"GeForce RTX 4090\"",
                   "profiles.unknown_cc", "name: \"GeForce RTX 4090\""},
        BrokenCase{"gpus/models.yaml", "cc: \"8.7\"", "cc: \"8.8\"", "profiles.unknown_cc", "cc: \"8.7\""},
        BrokenCase{"gpus/models.yaml", "models:\n", "models:\n  - [1, 2]\n", "profiles.want_map", ""}));

TEST(MatrixFiles, EmptyAndMissingFiles) {
    auto texts = test::real_profile_texts();
    texts[1].text = "";
    auto r = parse_profiles(texts);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.key, "profiles.empty_file");
    EXPECT_EQ(render(r.error().message, Lang::En), "profiles/matrix/cuda.yaml:1: the file is empty");
    texts.erase(texts.begin() + 4);
    r = parse_profiles(texts);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::BadInput);
    EXPECT_EQ(r.error().message.arg("file"), "gpus/models.yaml");
}
