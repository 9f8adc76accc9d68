// PEP 425 tags: parsing, the supported list for an interpreter, ranking, synthetic facts.
#include <gtest/gtest.h>

#include <algorithm>

#include "envfix/standards/marker.hpp"
#include "envfix/standards/tags.hpp"
#include "recorded_facts.hpp"
#include "support.hpp"

using envfix::ExitCode;
using namespace envfix::standards;

namespace {

envfix::probe::PythonFacts facts(const std::string& python, const std::string& os, const std::string& arch,
                                 std::optional<std::pair<int, int>> glibc = std::nullopt,
                                 std::optional<std::pair<int, int>> musl = std::nullopt,
                                 std::optional<std::pair<int, int>> macos = std::nullopt) {
    TargetPlatform t;
    t.python = python;
    t.os = os;
    t.arch = arch;
    t.glibc = glibc;
    t.musl = musl;
    t.macos = macos;
    auto f = synthetic_facts(t);
    EXPECT_TRUE(f) << python << " " << os << " " << arch;
    return f ? *f : envfix::probe::PythonFacts{};
}

std::vector<std::string> strs(const std::vector<Tag>& tags, size_t n = SIZE_MAX) {
    std::vector<std::string> out;
    for (size_t i = 0; i < tags.size() && i < n; ++i) out.push_back(tags[i].to_string());
    return out;
}

bool has(const std::vector<Tag>& tags, const std::string& t) {
    return std::any_of(tags.begin(), tags.end(), [&](const Tag& x) { return x.to_string() == t; });
}

}  // namespace

TEST(Tags, ParsesTriplesAndCompressedSets) {
    auto t = Tag::parse("CP312-Cp312-MANYLINUX_2_28_X86_64");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->to_string(), "cp312-cp312-manylinux_2_28_x86_64");
    for (const char* bad : {"", "cp312", "cp312-cp312", "a-b-c-d", "-none-any", "py3--any", "py3-none-"}) {
        auto b = Tag::parse(bad);
        ASSERT_FALSE(b) << bad;
        EXPECT_EQ(b.error().message.key, "tag.invalid");
        EXPECT_EQ(b.error().code, ExitCode::BadInput);
    }
    auto set = parse_tag_set("cp311.cp312-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64");
    ASSERT_TRUE(set);
    EXPECT_EQ(strs(*set), (std::vector<std::string>{"cp311-abi3-manylinux_2_17_x86_64", "cp311-abi3-manylinux2014_x86_64",
                                                    "cp312-abi3-manylinux_2_17_x86_64", "cp312-abi3-manylinux2014_x86_64"}));
    EXPECT_EQ(strs(*parse_tag_set("py2.py3-none-any")), (std::vector<std::string>{"py2-none-any", "py3-none-any"}));
    EXPECT_EQ(parse_tag_set("py3.py3-none-any")->size(), 1u);
    EXPECT_FALSE(parse_tag_set("py3.-none-any"));
    EXPECT_FALSE(parse_tag_set("py3-none"));
}

TEST(Tags, LinuxCpythonOrderIsPackagings) {
    auto f = facts("3.12", "linux", "x86_64", std::pair{2, 28});
    auto platforms = platform_tags(f);
    // manylinux_2_28 .. manylinux_2_5 with the legacy aliases after 2_17, 2_12 and 2_5, then linux.
    ASSERT_EQ(platforms.size(), 28u);
    EXPECT_EQ(platforms.front(), "manylinux_2_28_x86_64");
    EXPECT_EQ(platforms[11], "manylinux_2_17_x86_64");
    EXPECT_EQ(platforms[12], "manylinux2014_x86_64");
    EXPECT_EQ(platforms[18], "manylinux2010_x86_64");
    EXPECT_EQ(platforms[26], "manylinux1_x86_64");
    EXPECT_EQ(platforms.back(), "linux_x86_64");

    auto tags = supported_tags(f).tags();
    ASSERT_EQ(tags.size(), 771u);
    EXPECT_EQ(tags[0].to_string(), "cp312-cp312-manylinux_2_28_x86_64");
    EXPECT_EQ(tags[28].to_string(), "cp312-abi3-manylinux_2_28_x86_64");
    EXPECT_EQ(tags[56].to_string(), "cp312-none-manylinux_2_28_x86_64");
    EXPECT_EQ(tags[84].to_string(), "cp311-abi3-manylinux_2_28_x86_64");
    EXPECT_EQ(tags[363].to_string(), "cp32-abi3-linux_x86_64");
    EXPECT_EQ(tags[364].to_string(), "py312-none-manylinux_2_28_x86_64");
    EXPECT_EQ(tags[392].to_string(), "py3-none-manylinux_2_28_x86_64");
    EXPECT_EQ(tags[756].to_string(), "cp312-none-any");
    EXPECT_EQ(tags[757].to_string(), "py312-none-any");
    EXPECT_EQ(tags[758].to_string(), "py3-none-any");
    EXPECT_EQ(tags.back().to_string(), "py30-none-any");
    EXPECT_FALSE(has(tags, "cp31-abi3-linux_x86_64"));
    EXPECT_FALSE(has(tags, "cp312-cp312-manylinux_2_29_x86_64"));
    EXPECT_EQ(interpreter_tag(f), "cp312");
}

TEST(Tags, Aarch64StopsAtManylinux2014AndMuslHasItsOwnTags) {
    auto arm = platform_tags(facts("3.11", "linux", "aarch64", std::pair{2, 31}));
    EXPECT_EQ(arm.front(), "manylinux_2_31_aarch64");
    EXPECT_EQ(arm[arm.size() - 3], "manylinux_2_17_aarch64");
    EXPECT_EQ(arm[arm.size() - 2], "manylinux2014_aarch64");
    EXPECT_EQ(arm.back(), "linux_aarch64");

    auto musl = platform_tags(facts("3.12", "linux", "x86_64", std::nullopt, std::pair{1, 2}));
    EXPECT_EQ(musl, (std::vector<std::string>{"musllinux_1_2_x86_64", "musllinux_1_1_x86_64", "musllinux_1_0_x86_64", "linux_x86_64"}));
    auto x86 = platform_tags(facts("3.12", "linux", "i686", std::pair{2, 17}));
    EXPECT_EQ(x86.front(), "manylinux_2_17_i686");
    EXPECT_EQ(x86.back(), "linux_i686");
    auto armv7 = platform_tags(facts("3.12", "linux", "armv7l", std::pair{2, 31}));
    EXPECT_EQ(armv7.front(), "manylinux_2_31_armv7l");
}

TEST(Tags, Windows) {
    auto tags = supported_tags(facts("3.12", "windows", "x86_64")).tags();
    EXPECT_EQ(strs(tags, 4),
              (std::vector<std::string>{"cp312-cp312-win_amd64", "cp312-abi3-win_amd64", "cp312-none-win_amd64", "cp311-abi3-win_amd64"}));
    EXPECT_TRUE(has(tags, "py3-none-win_amd64"));
    EXPECT_TRUE(has(tags, "py3-none-any"));
    EXPECT_FALSE(has(tags, "cp312-cp312-manylinux_2_28_x86_64"));
    EXPECT_EQ(platform_tags(facts("3.12", "windows", "arm64")), (std::vector<std::string>{"win_arm64"}));
    EXPECT_EQ(platform_tags(facts("3.12", "win32", "x86")), (std::vector<std::string>{"win32"}));
    // Python 3.7 on Windows: packaging reads the missing WITH_PYMALLOC as "m".
    EXPECT_EQ(supported_tags(facts("3.7", "windows", "amd64")).tags()[0].to_string(), "cp37-cp37m-win_amd64");
}

TEST(Tags, FreeThreadedHasNoAbi3) {
    auto tags = supported_tags(facts("3.13t", "linux", "x86_64", std::pair{2, 28})).tags();
    EXPECT_EQ(tags[0].to_string(), "cp313-cp313t-manylinux_2_28_x86_64");
    EXPECT_FALSE(has(tags, "cp313-abi3-manylinux_2_28_x86_64"));
    EXPECT_FALSE(has(tags, "cp312-abi3-linux_x86_64"));
    EXPECT_TRUE(has(tags, "cp313-none-linux_x86_64"));
    EXPECT_FALSE(has(tags, "cp313-cp313-linux_x86_64"));
    auto win = supported_tags(facts("3.13t", "windows", "x86_64")).tags();
    EXPECT_EQ(win[0].to_string(), "cp313-cp313t-win_amd64");
    EXPECT_EQ(win[1].to_string(), "cp313-none-win_amd64");
}

TEST(Tags, MacOs) {
    auto arm = platform_tags(facts("3.12", "macos", "arm64", std::nullopt, std::nullopt, std::pair{14, 2}));
    std::vector<std::string> want{"macosx_14_0_arm64", "macosx_14_0_universal2", "macosx_13_0_arm64", "macosx_13_0_universal2",
                                  "macosx_12_0_arm64", "macosx_12_0_universal2", "macosx_11_0_arm64", "macosx_11_0_universal2"};
    for (int minor = 16; minor > 3; --minor) want.push_back("macosx_10_" + std::to_string(minor) + "_universal2");
    EXPECT_EQ(arm, want);
    auto intel = platform_tags(facts("3.9", "macos", "x86_64", std::nullopt, std::nullopt, std::pair{10, 15}));
    EXPECT_EQ(intel.front(), "macosx_10_15_x86_64");
    EXPECT_EQ(intel[1], "macosx_10_15_intel");
    EXPECT_EQ(intel.back(), "macosx_10_4_universal");
    auto tahoe = platform_tags(facts("3.13", "darwin", "arm64", std::nullopt, std::nullopt, std::pair{26, 0}));
    EXPECT_EQ(tahoe.front(), "macosx_26_0_arm64");
    EXPECT_EQ(tahoe[2], "macosx_25_0_arm64");
}

TEST(Tags, PypyAndOtherInterpreters) {
    envfix::probe::PythonFacts f = facts("3.10", "linux", "x86_64", std::pair{2, 17});
    f.implementation_name = "pypy";
    f.ext_suffix = ".pypy310-pp73-x86_64-linux-gnu.so";
    auto tags = supported_tags(f).tags();
    EXPECT_EQ(tags[0].to_string(), "pp310-pypy310_pp73-manylinux_2_17_x86_64");
    EXPECT_TRUE(has(tags, "pp310-none-linux_x86_64"));
    EXPECT_TRUE(has(tags, "pp3-none-any"));
    EXPECT_FALSE(has(tags, "pp310-abi3-linux_x86_64"));
    EXPECT_EQ(interpreter_tag(f), "pp310");
}

TEST(Tags, RankPicksTheMostSpecificWheel) {
    auto supported = supported_tags(facts("3.12", "linux", "x86_64", std::pair{2, 35}));
    auto rank = [&](const char* set) { return supported.rank(*parse_tag_set(set)); };
    auto torch = rank("cp312-cp312-manylinux_2_28_x86_64");
    auto abi3 = rank("cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64");
    auto pure = rank("py3-none-any");
    ASSERT_TRUE(torch && abi3 && pure);
    EXPECT_LT(*torch, *abi3);
    EXPECT_LT(*abi3, *pure);
    EXPECT_FALSE(rank("cp312-cp312-win_amd64"));
    EXPECT_FALSE(rank("cp313-cp313-manylinux_2_28_x86_64"));
    EXPECT_FALSE(rank("cp312-cp312-manylinux_2_36_x86_64"));  // needs a newer glibc
    EXPECT_TRUE(rank("cp312-cp312-manylinux1_x86_64"));
    EXPECT_EQ(supported.priority(Tag{"cp312", "cp312", "manylinux_2_35_x86_64"}), 0u);
    SupportedTags dup({Tag{"a", "b", "c"}, Tag{"x", "y", "z"}, Tag{"a", "b", "c"}});
    EXPECT_EQ(dup.tags().size(), 2u);
}

TEST(Tags, TheProbesFactsForDebianPython) {
    // What the probe reports for Debian 12's python3 (3.11, glibc 2.36).
    envfix::probe::PythonFacts f;
    f.version = "3.11.2";
    f.major = 3;
    f.minor = 11;
    f.implementation_name = "cpython";
    f.platform_system = "Linux";
    f.sys_platform = "linux";
    f.sysconfig_platform = "linux-x86_64";
    f.ext_suffix = ".cpython-311-x86_64-linux-gnu.so";
    f.glibc = std::pair{2, 36};
    auto tags = supported_tags(f).tags();
    EXPECT_EQ(tags.size(), 914u);  // packaging 22+'s sys_tags() there (21.3 lacks cp311-none-any)
    EXPECT_EQ(tags[0].to_string(), "cp311-cp311-manylinux_2_36_x86_64");
    f.abiflags = "d";
    auto debug = supported_tags(f).tags();
    EXPECT_EQ(debug[0].to_string(), "cp311-cp311d-manylinux_2_36_x86_64");
    EXPECT_TRUE(has(debug, "cp311-cp311-linux_x86_64"));
    f.ext_suffix = ".cpython-311-i386-linux-gnu.so";  // 32-bit interpreter on a 64-bit kernel
    f.abiflags.clear();
    EXPECT_EQ(platform_tags(f).back(), "linux_i686");
}

TEST(Tags, SyntheticFactsDescribeTheTarget) {
    auto f = facts("3.12.4", "windows", "amd64");
    EXPECT_EQ(f.version, "3.12.4");
    EXPECT_EQ(f.sys_platform, "win32");
    EXPECT_EQ(f.os_name, "nt");
    EXPECT_EQ(f.platform_system, "Windows");
    EXPECT_EQ(f.platform_machine, "AMD64");
    EXPECT_EQ(f.sysconfig_platform, "win-amd64");
    EXPECT_EQ(f.ext_suffix, ".cp312-win_amd64.pyd");
    EXPECT_FALSE(f.ran);
    EXPECT_FALSE(f.glibc);
    auto l = facts("3.12", "linux", "arm64");
    EXPECT_EQ(l.version, "3.12.0");
    EXPECT_NE(std::find(l.unknown.begin(), l.unknown.end(), "version"), l.unknown.end());
    EXPECT_EQ(l.glibc, kDefaultTargetGlibc);
    EXPECT_EQ(l.platform_machine, "aarch64");
    auto m = facts("3.12", "macos", "arm64");
    EXPECT_EQ(m.platform_release, "20.0.0");  // Darwin 20 = macOS 11, the default

    struct Bad {
        const char* python;
        const char* os;
        const char* arch;
        const char* key;
    };
    for (const Bad& b : {Bad{"3", "linux", "x86_64", "target.bad_python"}, Bad{"three", "linux", "x86_64", "target.bad_python"},
                         Bad{"3.12.1.1", "linux", "x86_64", "target.bad_python"}, Bad{"3.12", "beos", "x86_64", "target.unknown_os"},
                         Bad{"3.12", "macos", "i686", "target.unknown_arch"}, Bad{"3.12", "windows", "s390x", "target.unknown_arch"}}) {
        TargetPlatform t;
        t.python = b.python;
        t.os = b.os;
        t.arch = b.arch;
        auto r = synthetic_facts(t);
        ASSERT_FALSE(r) << b.python << " " << b.os << " " << b.arch;
        EXPECT_EQ(r.error().message.key, b.key);
        EXPECT_EQ(r.error().code, ExitCode::Usage);
    }
}

// Interpreters of other machines, recorded with `packaging_reference.py --facts` (their facts and
// packaging's sys_tags() there): data/interpreters/*.json. The H200's goes there too.
TEST(Tags, RecordedInterpretersOfOtherMachines) {
    size_t checked = 0;
    for (const auto& e : std::filesystem::directory_iterator(envfix::test::source_dir() / "tests/standards/data/interpreters")) {
        auto j = nlohmann::json::parse(envfix::test::read_text(e.path()));
        auto facts = envfix::test::facts_from_json(j);
        auto supported = supported_tags(facts);
        std::vector<std::string> mine;
        for (const auto& t : supported.tags()) mine.push_back(t.to_string());
        if (std::atoi(j["packaging"].get<std::string>().c_str()) < 22) envfix::test::as_packaging_before_22(mine);
        EXPECT_EQ(mine, j["sys_tags"].get<std::vector<std::string>>()) << e.path();
        auto env = marker_environment(facts);
        for (int v = 0; v < static_cast<int>(MarkerVariable::Extra); ++v) {
            auto var = static_cast<MarkerVariable>(v);
            std::string name(marker_variable_name(var));
            EXPECT_EQ(env.get(var), j["default_environment"][name].get<std::string>()) << e.path() << " " << name;
        }
        ++checked;
    }
    EXPECT_GE(checked, 2u);
}
