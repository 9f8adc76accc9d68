// Reading torch's build without importing it (torch/version.py, the local tag, the requirements
// of PyPI builds), the CUDA major of runtime packages, and the installed-distribution additions
// doctor and check need (egg-info, headers only, filtered reads).
#include <gtest/gtest.h>

#include "envfix/common/strings.hpp"
#include "envfix/diagnosis/framework_stack.hpp"
#include "envfix/diagnosis/torch_build.hpp"
#include "envfix/standards/installed.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::standards;
using namespace envfix::diagnosis;

namespace {

TEST(TorchVersionFile, TheRealH200File) {
    // torch 2.11.0+cu130's file as installed on the H200 machine (/work/notes/h200/meta).
    const char* text =
        "from typing import Optional\n\n"
        "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'rocm', 'xpu']\n"
        "__version__ = '2.11.0+cu130'\n"
        "debug = False\n"
        "cuda: Optional[str] = '13.0'\n"
        "git_version = '70d99e998b4955e0049d13a98d77ae1b14db1f45'\n"
        "hip: Optional[str] = None\n"
        "rocm: Optional[str] = None\n"
        "xpu: Optional[str] = None\n";
    auto f = parse_torch_version_file(text, "torch/version.py");
    ASSERT_TRUE(f) << render(f.error().message);
    EXPECT_EQ(f->version, "2.11.0+cu130");
    EXPECT_EQ(f->cuda, "13.0");
    EXPECT_FALSE(f->hip);
    EXPECT_FALSE(f->rocm);
    EXPECT_EQ(f->git_version, "70d99e998b4955e0049d13a98d77ae1b14db1f45");
    EXPECT_EQ(f->debug, false);
}

TEST(TorchVersionFile, Table) {
    struct Case {
        const char* text;
        const char* version;
        std::optional<std::string> cuda, hip;
    };
    for (const auto& c : std::vector<Case>{
             {"__version__ = '2.0.1+cu117'\ndebug = False\ncuda = '11.7'\ngit_version = 'e9ebda29'\nhip = None\n",
              "2.0.1+cu117",
              "11.7",
              {}},
             {"__version__ = \"2.7.0+cpu\"\ncuda: Optional[str] = None\n", "2.7.0+cpu", {}, {}},
             {"__version__ = '2.5.1+rocm6.2'\ncuda = None\nhip = '6.2.41133-dd7f95766'\n", "2.5.1+rocm6.2", {}, "6.2.41133-dd7f95766"},
             {"\r\n__version__ = '1.13.1'  # comment\r\ncuda = '11.6'\r\n", "1.13.1", "11.6", {}},
             {"if x == '1': pass\n__version__ = '2.1.0'\n", "2.1.0", {}, {}},
         }) {
        auto f = parse_torch_version_file(c.text, "version.py");
        ASSERT_TRUE(f) << c.text;
        EXPECT_EQ(f->version, c.version) << c.text;
        EXPECT_EQ(f->cuda, c.cuda) << c.text;
        EXPECT_EQ(f->hip, c.hip) << c.text;
    }
    for (const char* bad : {"", "cuda = '12.8'\n", "__version__ = None\n", "__version__ = get()\n"}) {
        auto f = parse_torch_version_file(bad, "/x/torch/version.py");
        ASSERT_FALSE(f) << bad;
        EXPECT_EQ(f.error().code, ExitCode::BadInput);
        EXPECT_EQ(f.error().message.key, "torch.bad_version_file");
        EXPECT_EQ(f.error().message.arg("path"), "/x/torch/version.py");
    }
}

InstalledDist torch_dist(const std::string& version, std::vector<std::string> requires_dist = {}) {
    InstalledDist d;
    d.name = d.canonical_name = "torch";
    d.version = version;
    d.parsed_version = Version::try_parse(version);
    d.metadata.requires_dist = std::move(requires_dist);
    return d;
}

TEST(TorchBuild, EvidenceTable) {
    TorchVersionFile cu130{.version = "2.11.0+cu130", .cuda = "13.0"};
    TorchVersionFile cpu{.version = "2.7.0+cpu"};
    TorchVersionFile rocm{.version = "2.5.1+rocm6.2", .hip = "6.2.41133", .rocm = "6.2"};
    struct Case {
        const char* name;
        InstalledDist dist;
        const TorchVersionFile* file;
        bool cuda_lib;
        BuildKind kind;
        BuildEvidence evidence;
        std::string version, cuda, variant;
    };
    std::vector<Case> cases = {
        // PyPI's build: the dist-info says 2.11.0, version.py the truth.
        {"pypi cu130", torch_dist("2.11.0"), &cu130, true, BuildKind::Cuda, BuildEvidence::VersionFile, "2.11.0+cu130", "13.0", "cu130"},
        {"cpu file", torch_dist("2.7.0+cpu"), &cpu, false, BuildKind::Cpu, BuildEvidence::VersionFile, "2.7.0+cpu", "", "cpu"},
        {"rocm file", torch_dist("2.5.1+rocm6.2"), &rocm, false, BuildKind::Rocm, BuildEvidence::VersionFile, "2.5.1+rocm6.2", "",
         "rocm6.2"},
        {"tag cu128", torch_dist("2.7.0+cu128"), nullptr, true, BuildKind::Cuda, BuildEvidence::LocalTag, "2.7.0+cu128", "12.8", "cu128"},
        {"tag cpu", torch_dist("2.7.0+cpu"), nullptr, false, BuildKind::Cpu, BuildEvidence::LocalTag, "2.7.0+cpu", "", "cpu"},
        {"tag xpu", torch_dist("2.7.0+xpu"), nullptr, false, BuildKind::Xpu, BuildEvidence::LocalTag, "2.7.0+xpu", "", "xpu"},
        {"pypi requirements 13", torch_dist("2.11.0", {"cuda-toolkit[cublas,cudart]==13.0.2; platform_system == \"Linux\"", "filelock"}),
         nullptr, false, BuildKind::Cuda, BuildEvidence::Requirements, "2.11.0", "13.0", "cu130"},
        {"pypi requirements 12", torch_dist("2.6.0", {"nvidia-cuda-runtime-cu12==12.4.127; platform_system == \"Linux\""}), nullptr, false,
         BuildKind::Cuda, BuildEvidence::Requirements, "2.6.0", "12.4", "cu124"},
        {"libraries only", torch_dist("2.6.0"), nullptr, true, BuildKind::Cuda, BuildEvidence::Libraries, "2.6.0", "", ""},
        {"nothing says cuda", torch_dist("2.6.0"), nullptr, false, BuildKind::Cpu, BuildEvidence::None, "2.6.0", "", "cpu"},
    };
    for (const auto& c : cases) {
        auto b = torch_build(c.dist, c.file, c.cuda_lib);
        EXPECT_EQ(b.kind, c.kind) << c.name;
        EXPECT_EQ(b.evidence, c.evidence) << c.name;
        EXPECT_EQ(b.version, c.version) << c.name;
        EXPECT_EQ(b.cuda ? b.cuda->to_string() : "", c.cuda) << c.name;
        EXPECT_EQ(b.variant, c.variant) << c.name;
    }
    auto pypi = torch_build(torch_dist("2.11.0"), &cu130, true);
    EXPECT_EQ(pypi.dist_version, "2.11.0");
    EXPECT_EQ(pypi.public_version, "2.11.0");
    EXPECT_EQ(pypi.local, "cu130");
    EXPECT_EQ(cuda_from_variant("cu92")->to_string(), "9.2");
    EXPECT_FALSE(cuda_from_variant("cuda"));
    EXPECT_FALSE(cuda_from_variant("cu12x"));
}

TEST(RuntimePackages, CudaMajorTable) {
    struct Case {
        const char* name;
        const char* version;
        std::optional<int> major;
    };
    for (const auto& c : std::vector<Case>{
             {"nvidia-cublas-cu12", "12.8.4.1", 12},
             {"nvidia-cudnn-cu13", "9.19.0.56", 13},
             {"nvidia-cudnn-cu11", "8.7.0.84", 11},
             {"nvidia-cublas", "13.1.0.3", 13},
             {"nvidia-cuda-runtime", "13.0.96", 13},
             {"nvidia-nvjitlink", "13.0.88", 13},
             {"cuda-toolkit", "13.0.2", 13},
             {"cuda-bindings", "12.9.0", 12},
             {"nvidia-cufft", "12.0.0.61", std::nullopt},  // CUDA 13's cuFFT, versioned on its own
             {"nvidia-curand", "10.4.0.35", std::nullopt},
             {"nvidia-ml-py", "13.610.43", std::nullopt},
             {"cuda-pathfinder", "1.8.1", std::nullopt},
             {"torch", "2.7.0", std::nullopt},
         })
        EXPECT_EQ(runtime_cuda_major(c.name, c.version), c.major) << c.name;
    EXPECT_TRUE(is_stack_package("nvidia-cublas-cu12"));
    EXPECT_TRUE(is_stack_package("torchvision"));
    EXPECT_TRUE(is_stack_package("cuda-toolkit"));
    EXPECT_FALSE(is_stack_package("numpy"));
}

TEST(Installed, EggInfoRequirementsAsPipConvertsThem) {
    auto reqs = egg_info_requirements(
        "requests>=2\n"
        "# a comment\n\n"
        "[:python_version < \"3.8\"]\n"
        "importlib-metadata\n"
        "[Socks Proxy]\n"
        "PySocks!=1.5.7\n"
        "[test:sys_platform == \"win32\"]\n"
        "pywin32\n");
    ASSERT_EQ(reqs.size(), 4u);
    EXPECT_EQ(reqs[0], "requests>=2");
    EXPECT_EQ(reqs[1], "importlib-metadata ; python_version < \"3.8\"");
    EXPECT_EQ(reqs[2], "PySocks!=1.5.7 ; extra == \"socks_proxy\"");
    EXPECT_EQ(reqs[3], "pywin32 ; (sys_platform == \"win32\") and extra == \"test\"");
}

TEST(Installed, MetadataHeaders) {
    EXPECT_EQ(metadata_headers("Name: a\nVersion: 1\n\nlong description\n"), "Name: a\nVersion: 1\n");
    EXPECT_EQ(metadata_headers("Name: a\r\nVersion: 1\r\n\r\nbody"), "Name: a\r\nVersion: 1\r\n");
    EXPECT_EQ(metadata_headers("Name: a\nVersion: 1"), "Name: a\nVersion: 1");
    EXPECT_EQ(installed_entry_name("Foo_Bar-1.0.dist-info"), "foo-bar");
    EXPECT_EQ(installed_entry_name("setuptools-66.1.1-py3.11.egg-info"), "setuptools");
    EXPECT_EQ(installed_entry_name("foo.pth"), "");
}

TEST(Installed, EggInfoFilteredAndHeadersOnly) {
    test::TempDir d;
    auto sp = d.path();
    test::write_text(sp / "legacy-1.2-py3.11.egg-info/PKG-INFO", "Metadata-Version: 1.1\nName: legacy\nVersion: 1.2\n\nbody\n");
    test::write_text(sp / "legacy-1.2-py3.11.egg-info/requires.txt", "six\n[extra]\nnumpy\n");
    test::write_text(sp / "flat-0.5-py3.11.egg-info", "Metadata-Version: 1.0\nName: flat\nVersion: 0.5\n");
    test::write_text(sp / "torch-2.7.0.dist-info/METADATA",
                     "Metadata-Version: 2.1\nName: torch\nVersion: 2.7.0\nRequires-Dist: filelock\n\n" + std::string(100000, 'x'));
    auto all = read_installed({sp});
    ASSERT_TRUE(all);
    ASSERT_EQ(all->dists.size(), 3u);
    const auto* legacy = all->find("legacy");
    ASSERT_NE(legacy, nullptr);
    EXPECT_TRUE(legacy->egg_info);
    EXPECT_FALSE(legacy->has_record);
    EXPECT_EQ(legacy->metadata.requires_dist, (std::vector<std::string>{"six", "numpy ; extra == \"extra\""}));
    ASSERT_NE(all->find("flat"), nullptr);
    EXPECT_EQ(all->find("flat")->version, "0.5");
    EXPECT_EQ(all->find("torch")->metadata.description.size(), 100000u);

    auto only = read_installed({sp}, {.only = [](std::string_view n) { return n == "torch"; }, .headers_only = true});
    ASSERT_TRUE(only);
    ASSERT_EQ(only->dists.size(), 1u);
    EXPECT_EQ(only->dists[0].metadata.requires_dist, std::vector<std::string>{"filelock"});
    EXPECT_TRUE(only->dists[0].metadata.description.empty());
    auto no_eggs = read_installed({sp}, {.egg_info = false});
    ASSERT_TRUE(no_eggs);
    EXPECT_EQ(no_eggs->dists.size(), 1u);
}

}  // namespace
