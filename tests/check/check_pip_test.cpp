// `envfix check` against real pip: on environments built for it (wheels from mkwheel.py installed
// by pip, an egg-info and a broken dist-info written as setuptools and a crash leave them), the
// findings of `envfix check --json` and of `python -m pip check` in the same venv must be the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "envfix/standards/names.hpp"
#include "layouts.hpp"
#include "pip_envs.hpp"
#include "support.hpp"

using namespace envfix;
namespace stdfs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// (requiring dist, kind, dependency), PEP 503 names.
using Finding = std::tuple<std::string, std::string, std::string>;

std::string name_of_requirement(const std::string& req) {
    auto end = req.find_first_of("<>=!~;[ (@");
    return standards::canonicalize_name(req.substr(0, end));
}

// pip check's lines: "a 1.0 requires b, which is not installed.", "a 1.0 has requirement b<2,
// but you have b 2.0.", "a 1.0 is not supported on this platform".
std::set<Finding> pip_findings(const std::string& out) {
    std::set<Finding> found;
    size_t pos = 0;
    while (pos < out.size()) {
        auto nl = out.find('\n', pos);
        std::string line = out.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? out.size() : nl + 1;
        auto sp1 = line.find(' ');
        if (sp1 == std::string::npos) continue;
        std::string who = standards::canonicalize_name(line.substr(0, sp1));
        if (auto r = line.find(" requires "); r != std::string::npos && line.ends_with(", which is not installed.")) {
            std::string dep = line.substr(r + 10, line.size() - (r + 10) - std::string(", which is not installed.").size());
            found.insert({who, "missing", standards::canonicalize_name(dep)});
        } else if (auto h = line.find(" has requirement "); h != std::string::npos) {
            auto but = line.find(", but you have ");
            found.insert({who, "conflict", name_of_requirement(line.substr(h + 17, but - (h + 17)))});
        } else if (line.ends_with(" is not supported on this platform")) {
            found.insert({who, "unsupported", ""});
        }
    }
    return found;
}

std::set<Finding> envfix_findings(const Json& j) {
    std::set<Finding> found;
    for (const auto& p : j["problems"])
        found.insert({standards::canonicalize_name(p["name"].get<std::string>()), p["kind"].get<std::string>(),
                      p["dependency"].is_null() ? "" : p["dependency"].get<std::string>()});
    return found;
}

std::string describe(const std::set<Finding>& s) {
    std::string out;
    for (const auto& [a, k, b] : s) out += "  " + a + " " + k + " " + b + "\n";
    return out;
}

struct Compared {
    std::set<Finding> pip, envfix;
    int pip_code = -1, envfix_code = -1;
};

Compared compare(const test::TempDir& d, const stdfs::path& python) {
    Compared c;
    auto pip = test::run_program({python.string(), "-m", "pip", "check", "--disable-pip-version-check"});
    c.pip_code = pip.code;
    c.pip = pip_findings(pip.out);
    auto ours = test::run_envfix({"check", "--json", "--python", python.string()}, {}, d / "home");
    c.envfix_code = ours.code;
    c.envfix = envfix_findings(ours.json());
    return c;
}

// Every case pip check knows, in one environment.
void fill_many_problems(const test::TempDir& d, const stdfs::path& python) {
    std::vector<Json> specs = {
        test::dist_wheel("app-missing", "1.0", {"not-there>=1"}),
        test::dist_wheel("dep-a", "2.0"),
        test::dist_wheel("app-wrong", "1.0", {"dep-a<2"}),
        test::dist_wheel("app-marker", "1.0",
                         {"winonly; sys_platform == \"win32\"", "oldpy; python_version < \"3.0\"", "linuxdep; sys_platform == \"linux\""}),
        test::dist_wheel("app-extras", "1.0", {"dep-a[fast]>=1", "test-only; extra == \"test\""}),
        test::dist_wheel("torchlike", "2.7.0+cu128"),
        test::dist_wheel("app-local", "1.0", {"torchlike==2.7.0"}),
        test::dist_wheel("app-local2", "1.0", {"torchlike==2.7.0+cu126"}),
        test::dist_wheel("dep-pre", "2.0rc1"),
        test::dist_wheel("app-pre", "1.0", {"dep-pre>=1.0"}),
        test::dist_wheel("app-pre2", "1.0", {"dep-pre<2"}),
        test::dist_wheel("Dep.Norm_Thing", "1.5"),
        test::dist_wheel("App_Norm", "1.0", {"dep_norm-thing>=1", "DEP-NORM.THING>=2"}),
        test::dist_wheel("plain", "1.0"),
        test::dist_wheel("broken", "1.0"),
    };
    std::vector<stdfs::path> wheels;
    for (const auto& s : specs) wheels.push_back(test::build_wheel(s, d / "wheels"));
    test::pip_install(python, wheels);
    auto sp = test::venv_site_packages(python);
    // A dist-info whose METADATA is gone (an interrupted uninstall), required by nobody.
    stdfs::remove(sp / "broken-1.0.dist-info" / "METADATA");
    // A setuptools egg-info with requires.txt sections.
    test::write_text(sp / "legacy_egg-1.0-py3.11.egg-info" / "PKG-INFO", "Metadata-Version: 1.1\nName: legacy-egg\nVersion: 1.0\n");
    test::write_text(sp / "legacy_egg-1.0-py3.11.egg-info" / "requires.txt",
                     "dep-a>=3\nplain\n\n[extra1]\nnot-there-either\n\n[:sys_platform == \"linux\"]\negg-linux-only\n");
}

const std::set<Finding> kExpected = {
    {"app-missing", "missing", "not-there"},   {"app-wrong", "conflict", "dep-a"},
    {"app-marker", "missing", "linuxdep"},     {"app-local2", "conflict", "torchlike"},
    {"app-pre2", "conflict", "dep-pre"},       {"app-norm", "conflict", "dep-norm-thing"},
    {"legacy-egg", "conflict", "dep-a"},       {"legacy-egg", "missing", "egg-linux-only"},
};

TEST(CheckPip, SameFindingsAsDebiansPip) {
    test::TempDir d;
    auto python = test::pip_venv(d / "venv");
    fill_many_problems(d, python);
    auto c = compare(d, python);
    EXPECT_EQ(c.pip, kExpected) << "pip:\n" << describe(c.pip);
    EXPECT_EQ(c.envfix, c.pip) << "envfix:\n" << describe(c.envfix) << "pip:\n" << describe(c.pip);
    EXPECT_EQ(c.pip_code, 1);
    EXPECT_EQ(c.envfix_code, 30);
}

TEST(CheckPip, CleanEnvironment) {
    test::TempDir d;
    auto python = test::pip_venv(d / "venv");
    std::vector<stdfs::path> wheels = {test::build_wheel(test::dist_wheel("dep-a", "2.0"), d / "wheels"),
                                       test::build_wheel(test::dist_wheel("app", "1.0", {"dep-a>=1", "x; extra == 'y'"}), d / "wheels")};
    test::pip_install(python, wheels);
    auto c = compare(d, python);
    EXPECT_TRUE(c.pip.empty());
    EXPECT_TRUE(c.envfix.empty());
    EXPECT_EQ(c.pip_code, 0);
    EXPECT_EQ(c.envfix_code, 0);
    auto text = test::run_envfix({"check", "--python", python.string()}, {}, d / "home");
    EXPECT_EQ(text.out.rfind("no broken requirements in ", 0), 0u) << text.out;
}

// pip 24.1 and later also report wheels for another platform, and count a dist-info without
// METADATA as installed under its folder's name: Python 3.13's bundled pip 24.2.
TEST(CheckPip, SameFindingsAsPip24) {
    auto pythons = test::pyenv_pythons({"3.13"});
    if (pythons.empty()) GTEST_SKIP() << "no pyenv Python 3.13 here";
    test::TempDir d;
    auto python = test::pip_venv(d / "venv", pythons[0]);
    fill_many_problems(d, python);
    // Something requires the broken dist now: pip 24 sees broken 1.0.
    test::pip_install(python, {test::build_wheel(test::dist_wheel("needs-broken", "1.0", {"broken>=2"}), d / "wheels")});
    // A wheel for another platform (its WHEEL file says so).
    auto sp = test::venv_site_packages(python);
    auto wheel_file = sp / "plain-1.0.dist-info" / "WHEEL";
    auto text = test::read_text(wheel_file);
    test::write_text(wheel_file, text.replace(text.find("Tag: py3-none-any"), 17, "Tag: cp27-cp27mu-manylinux1_i686"));
    auto c = compare(d, python);
    auto expected = kExpected;
    expected.insert({"needs-broken", "conflict", "broken"});
    expected.insert({"plain", "unsupported", ""});
    EXPECT_EQ(c.pip, expected) << "pip:\n" << describe(c.pip);
    EXPECT_EQ(c.envfix, c.pip) << "envfix:\n" << describe(c.envfix) << "pip:\n" << describe(c.pip);
    EXPECT_EQ(c.envfix_code, 30);
}

TEST(CheckCli, JsonAndErrors) {
    test::TempDir d;
    auto python = test::pip_venv(d / "venv");
    test::pip_install(python, {test::build_wheel(test::dist_wheel("torchvision", "0.21.0", {"torch==2.6.0"}), d / "wheels"),
                               test::build_wheel(test::dist_wheel("torch", "2.7.0+cu128"), d / "wheels")});
    auto r = test::run_envfix({"check", "--json", "--python", python.string()}, {}, d / "home");
    ASSERT_EQ(r.code, 30) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["ok"], false);
    ASSERT_EQ(j["problems"].size(), 1u);
    EXPECT_EQ(j["problems"][0]["kind"], "conflict");
    EXPECT_EQ(j["problems"][0]["message"], "torchvision 0.21.0 requires torch==2.6.0, but torch 2.7.0+cu128 is installed");
    EXPECT_EQ(j["problems"][0]["installed"], "2.7.0+cu128");
    auto text = test::run_envfix({"check", "--python", python.string()}, {}, d / "home");
    EXPECT_EQ(text.out, "torchvision 0.21.0 requires torch==2.6.0, but torch 2.7.0+cu128 is installed\n");
    // No such interpreter: one line, exit 23.
    auto missing = test::run_envfix({"check", "--python", (d / "nope" / "python").string()}, {}, d / "home");
    EXPECT_EQ(missing.code, 23);
    EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
}

}  // namespace
