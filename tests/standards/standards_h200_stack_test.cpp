// The torch 2.11.0 stack as pip installed it on the H200 machine (tests/standards/data/h200): every
// METADATA and WHEEL read, every requirement parsed and evaluated, the installed versions
// satisfying what the stack requires of each other, the wheels' tags supported there.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "envfix/standards/core_metadata.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/tags.hpp"
#include "support.hpp"

using namespace envfix::standards;
namespace stdfs = std::filesystem;

namespace {

struct Dist {
    CoreMetadata metadata;
    Version version;
    std::vector<Requirement> requires_dist;
    MetadataFile wheel;
};

std::map<std::string, Dist> load_stack() {
    std::map<std::string, Dist> out;
    for (const auto& e : stdfs::directory_iterator(envfix::test::source_dir() / "tests/standards/data/h200")) {
        auto md = parse_core_metadata(envfix::test::read_text(e.path() / "METADATA"), (e.path() / "METADATA").string());
        EXPECT_TRUE(md) << e.path();
        auto wheel = parse_metadata_file(envfix::test::read_text(e.path() / "WHEEL"), (e.path() / "WHEEL").string());
        EXPECT_TRUE(wheel) << e.path();
        if (!md || !wheel) continue;
        auto version = Version::parse(md->version);
        auto reqs = parse_requires_dist(*md);
        EXPECT_TRUE(version && reqs) << e.path();
        if (!version || !reqs) continue;
        // The folder is "{escaped name}-{version}.dist-info".
        EXPECT_EQ(e.path().filename().string(), wheel_escape_name(md->name) + "-" + md->version + ".dist-info");
        std::string name = canonicalize_name(md->name);
        out.emplace(name, Dist{std::move(*md), std::move(*version), std::move(*reqs), std::move(*wheel)});
    }
    return out;
}

// The H200's interpreter: CPython 3.12 on Ubuntu 24.04 (glibc 2.39), x86_64.
envfix::probe::PythonFacts h200_facts() {
    TargetPlatform t;
    t.python = "3.12.3";
    t.os = "linux";
    t.arch = "x86_64";
    t.glibc = std::pair{2, 39};
    return *synthetic_facts(t);
}

}  // namespace

TEST(H200Stack, EveryFileParses) {
    auto stack = load_stack();
    ASSERT_EQ(stack.size(), 24u);
    EXPECT_EQ(stack.at("torch").version.to_string(), "2.11.0");
    EXPECT_EQ(stack.at("torchvision").metadata.requires_python, ">=3.10,!=3.14.1");
    size_t requirements = 0;
    for (const auto& [name, d] : stack) {
        requirements += d.requires_dist.size();
        EXPECT_EQ(d.wheel.get("Wheel-Version"), "1.0") << name;
        EXPECT_FALSE(d.wheel.get_all("Tag").empty()) << name;
        if (!d.metadata.requires_python.empty()) {
            EXPECT_TRUE(SpecifierSet::parse(d.metadata.requires_python)) << name;
        }
        // Every extra a requirement is guarded by is declared (PEP 685 names).
        std::set<std::string> declared;
        for (const auto& x : d.metadata.provides_extra) declared.insert(canonicalize_name(x));
        for (const auto& r : d.requires_dist) {
            if (!r.marker) continue;
            for (const auto& x : r.marker->extras()) EXPECT_TRUE(declared.count(x)) << name << ": " << x;
        }
    }
    EXPECT_GT(requirements, 100u);
    // torchvision writes its requirements the old way: "torch (==2.11.0)", "gdown (>=4.7.3) ; extra == 'gdown'".
    const auto& tv = stack.at("torchvision").requires_dist;
    auto torch = std::find_if(tv.begin(), tv.end(), [](const Requirement& r) { return r.name == "torch"; });
    ASSERT_NE(torch, tv.end());
    EXPECT_EQ(torch->specifier.to_string(), "==2.11.0");
}

TEST(H200Stack, WheelTagsAreSupportedThere) {
    auto supported = supported_tags(h200_facts());
    for (const auto& [name, d] : load_stack()) {
        std::vector<Tag> wheel_tags;  // one Tag line per triple; the wheel installs if one fits
        for (const auto& tag : d.wheel.get_all("Tag")) {
            auto tags = parse_tag_set(tag);
            ASSERT_TRUE(tags) << name << ": " << tag;
            wheel_tags.insert(wheel_tags.end(), tags->begin(), tags->end());
        }
        EXPECT_TRUE(supported.supports(wheel_tags)) << name;
    }
    // ... and not on Windows or on an older Linux.
    TargetPlatform old_linux{"3.12", "linux", "x86_64", std::pair{2, 17}};
    auto torch_tag = *parse_tag_set("cp312-cp312-manylinux_2_28_x86_64");
    EXPECT_FALSE(supported_tags(*synthetic_facts(old_linux)).supports(torch_tag));
    TargetPlatform windows{"3.12", "windows", "x86_64"};
    EXPECT_FALSE(supported_tags(*synthetic_facts(windows)).supports(torch_tag));
}

// Following torch's requirements (with the extras it asks of cuda-toolkit) on the H200 reaches
// the CUDA 13 packages installed there, and each installed version satisfies its specifier.
TEST(H200Stack, TorchsRequirementsHoldOnTheInstalledVersions) {
    auto stack = load_stack();
    auto env = marker_environment(h200_facts());
    std::set<std::string> reached;
    std::vector<std::pair<std::string, std::vector<std::string>>> todo{{"torch", {}}};
    size_t satisfied = 0;
    while (!todo.empty()) {
        auto [name, extras] = todo.back();
        todo.pop_back();
        for (const auto& r : stack.at(name).requires_dist) {
            auto applies = r.applies(env, extras);
            ASSERT_TRUE(applies) << name << ": " << r.to_string();
            if (!*applies) continue;
            auto dep = stack.find(r.canonical_name());
            if (dep == stack.end()) continue;  // not part of the copied stack (filelock, sympy ...)
            EXPECT_TRUE(r.specifier.contains(dep->second.version, true))
                << name << " requires " << r.to_string() << ", installed " << dep->second.version.to_string();
            ++satisfied;
            if (reached.insert(dep->first).second || !r.extras.empty()) todo.push_back({dep->first, r.extras});
        }
    }
    std::set<std::string> want{"cuda-toolkit",           "cuda-bindings",    "cuda-pathfinder",     "nvidia-cublas", "nvidia-cuda-runtime",
                               "nvidia-cufft",           "nvidia-cufile",    "nvidia-cuda-cupti",   "nvidia-curand", "nvidia-cusolver",
                               "nvidia-cusparse",        "nvidia-nvjitlink", "nvidia-cuda-nvrtc",   "nvidia-nvtx",   "nvidia-cudnn-cu13",
                               "nvidia-cusparselt-cu13", "nvidia-nccl-cu13", "nvidia-nvshmem-cu13", "triton"};
    for (const auto& w : want) EXPECT_TRUE(reached.count(w)) << w;
    EXPECT_FALSE(reached.count("torchvision"));
    EXPECT_GE(satisfied, want.size());

    // On Windows none of torch's CUDA packages apply (they are marked platform_system == "Linux").
    TargetPlatform windows{"3.12", "windows", "x86_64"};
    auto win = marker_environment(*synthetic_facts(windows));
    for (const auto& r : stack.at("torch").requires_dist) {
        if (r.name.rfind("nvidia", 0) == 0 || r.name.rfind("cuda", 0) == 0 || r.name == "triton") {
            EXPECT_FALSE(*r.applies(win)) << r.to_string();
        }
    }
}
