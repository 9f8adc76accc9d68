// check_requirements on values: each rule of pip check, table-driven.
#include <gtest/gtest.h>

#include <algorithm>

#include "envfix/probe/python_facts.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/requirements_check.hpp"

using namespace envfix;
using namespace envfix::standards;

namespace {

InstalledDist dist(const std::string& name, const std::string& version, std::vector<std::string> requires_dist = {},
                   const std::string& folder = "/sp") {
    InstalledDist d;
    d.name = name;
    d.canonical_name = canonicalize_name(name);
    d.version = version;
    d.parsed_version = Version::try_parse(version);
    d.site_packages = folder;
    d.dist_info = std::filesystem::path(folder) / (wheel_escape_name(name) + "-" + version + ".dist-info");
    d.metadata.requires_dist = std::move(requires_dist);
    return d;
}

InstalledSet set_of(std::vector<InstalledDist> dists) {
    InstalledSet s;
    s.dists = std::move(dists);
    std::sort(s.dists.begin(), s.dists.end(), [](const InstalledDist& a, const InstalledDist& b) {
        return std::tie(a.canonical_name, a.dist_info) < std::tie(b.canonical_name, b.dist_info);
    });
    return s;
}

MarkerEnvironment linux312() {
    probe::PythonFacts f;
    f.version = "3.12.3";
    f.major = 3;
    f.minor = 12;
    f.sys_platform = "linux";
    f.platform_system = "Linux";
    f.os_name = "posix";
    f.platform_machine = "x86_64";
    f.implementation_name = "cpython";
    f.platform_python_implementation = "CPython";
    return marker_environment(f);
}

// "kind:name->dependency" for each problem, sorted.
std::vector<std::string> summary(const CheckResult& r) {
    std::vector<std::string> out;
    for (const auto& p : r.problems) out.push_back(std::string(check_problem_kind_name(p.kind)) + ":" + p.name + "->" + p.dependency);
    std::sort(out.begin(), out.end());
    return out;
}

struct Case {
    const char* name;
    std::vector<InstalledDist> dists;
    std::vector<std::string> expected;
};

TEST(CheckValues, Rules) {
    std::vector<Case> cases = {
        {"missing", {dist("a", "1.0", {"b>=1"})}, {"missing:a->b"}},
        {"satisfied", {dist("a", "1.0", {"b>=1"}), dist("b", "1.5")}, {}},
        {"conflict", {dist("a", "1.0", {"b<1"}), dist("b", "1.5")}, {"conflict:a->b"}},
        {"marker excludes", {dist("a", "1.0", {"w; sys_platform == 'win32'", "old; python_version < '3'"})}, {}},
        {"marker includes", {dist("a", "1.0", {"l; sys_platform == 'linux'"})}, {"missing:a->l"}},
        {"extras of the requirer are not requested", {dist("a", "1.0", {"t; extra == 'test'"})}, {}},
        {"extras of the dependency are not checked", {dist("a", "1.0", {"b[fast]>=1"}), dist("b", "1.0", {"c; extra == 'fast'"})}, {}},
        {"local version matches ==public", {dist("a", "1.0", {"torch==2.7.0"}), dist("torch", "2.7.0+cu128")}, {}},
        {"local version differs", {dist("a", "1.0", {"torch==2.7.0+cu126"}), dist("torch", "2.7.0+cu128")}, {"conflict:a->torch"}},
        {"pre-release satisfies >=", {dist("a", "1.0", {"b>=1.0"}), dist("b", "2.0rc1")}, {}},
        {"pre-release of the bound is excluded by <", {dist("a", "1.0", {"b<2"}), dist("b", "2.0rc1")}, {"conflict:a->b"}},
        {"name normalisation", {dist("App_X", "1.0", {"Dep.Norm_Thing>=1"}), dist("dep-norm-thing", "1.5")}, {}},
        {"no Requires-Dist", {dist("plain", "1.0")}, {}},
        {"legacy version is not compared", {dist("a", "1.0", {"b>=2"}), dist("b", "1.0-foo")}, {}},
        {"bad requirement", {dist("a", "1.0", {"b >= >= 1"})}, {"bad-metadata:a->"}},
    };
    for (const auto& c : cases) {
        auto r = check_requirements(set_of(c.dists), {.markers = linux312()});
        EXPECT_EQ(summary(r), c.expected) << c.name;
        EXPECT_EQ(r.ok(), c.expected.empty()) << c.name;
    }
}

TEST(CheckValues, Messages) {
    auto r = check_requirements(set_of({dist("torchvision", "0.21.0", {"torch==2.6.0", "numpy"}), dist("torch", "2.7.0+cu128")}),
                                {.markers = linux312()});
    ASSERT_EQ(r.problems.size(), 2u);
    EXPECT_EQ(render(r.problems[0].text, Lang::En), "torchvision 0.21.0 requires numpy, which is not installed");
    EXPECT_EQ(render(r.problems[1].text, Lang::En), "torchvision 0.21.0 requires torch==2.6.0, but torch 2.7.0+cu128 is installed");
    EXPECT_EQ(r.problems[1].installed, "2.7.0+cu128");
    EXPECT_EQ(r.checked, 2u);
}

TEST(CheckValues, FirstCopyOnThePathWins) {
    // The same name in two folders: the one earlier on sys.path is the installed one.
    auto user = dist("b", "1.0", {}, "/user");
    auto venv = dist("b", "2.0", {}, "/venv");
    auto a = dist("a", "1.0", {"b>=2"}, "/venv");
    auto r1 = check_requirements(set_of({a, user, venv}), {.markers = linux312(), .order = {"/venv", "/user"}});
    EXPECT_TRUE(r1.ok());
    auto r2 = check_requirements(set_of({a, user, venv}), {.markers = linux312(), .order = {"/user", "/venv"}});
    EXPECT_EQ(summary(r2), std::vector<std::string>{"conflict:a->b"});
}

TEST(CheckValues, BrokenDistCountsUnderItsFolderName) {
    auto broken = dist("broken", "1.0");
    broken.problem = make_error(ExitCode::EnvBroken, "installed.no_metadata", {{"path", "/sp/broken-1.0.dist-info"}});
    broken.metadata.requires_dist = {"never-read"};
    auto r = check_requirements(set_of({broken, dist("needs", "1.0", {"broken>=2"})}), {.markers = linux312()});
    ASSERT_EQ(r.skipped.size(), 1u);
    EXPECT_EQ(summary(r), std::vector<std::string>{"conflict:needs->broken"});
    EXPECT_EQ(r.checked, 1u);
}

TEST(CheckValues, WheelForAnotherPlatform) {
    auto set = set_of({dist("native", "1.0"), dist("pure", "1.0")});
    SupportedTags tags({*Tag::parse("cp312-cp312-manylinux_2_17_x86_64"), *Tag::parse("py3-none-any")});
    CheckInput in{.markers = linux312(), .tags = &tags};
    in.wheel_tags = {std::vector<Tag>{*Tag::parse("cp312-cp312-win_amd64")}, std::vector<Tag>{*Tag::parse("py3-none-any")}};
    auto r = check_requirements(set, in);
    EXPECT_EQ(summary(r), std::vector<std::string>{"unsupported:native->"});
    EXPECT_EQ(r.problems[0].requirement, "cp312-cp312-win_amd64");
}

}  // namespace
