// Which file of a project page an interpreter installs (wheel_select.hpp): table-driven.
#include <gtest/gtest.h>

#include "envfix/plan/wheel_select.hpp"

using namespace envfix;
using namespace envfix::standards;
using namespace envfix::network;
using namespace envfix::plan;

namespace {

IndexFile file(std::string name, std::optional<std::string> requires_python = std::nullopt, bool yanked = false) {
    IndexFile f;
    f.filename = name;
    f.url = "https://example.org/" + name;
    f.requires_python = std::move(requires_python);
    f.yanked = yanked;
    return f;
}

probe::PythonFacts linux311() {
    return synthetic_facts({.python = "3.11.2", .os = "linux", .arch = "x86_64", .glibc = std::pair{2, 36}}).value();
}

}  // namespace

TEST(PlanWheelSelect, BestTagPerVersionNewestFirst) {
    auto facts = linux311();
    auto tags = supported_tags(facts);
    std::vector<IndexFile> files = {
        file("torch-2.7.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl"),
        file("torch-2.7.0+cu128-cp311-cp311-win_amd64.whl"),
        file("torch-2.7.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl"),
        file("torch-2.9.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl"),
        file("torch-2.9.0+cu128-cp311-cp311-manylinux2014_x86_64.whl"),  // older glibc: a worse rank
        file("torch-2.9.0.tar.gz"),
        file("torchvision-0.24.0-cp311-cp311-manylinux_2_28_x86_64.whl"),
        file("torch-2.8.0-cp311-cp311-manylinux_2_28_x86_64.whl", ">=3.12"),
    };
    auto sel = select_wheels(files, "torch", {&tags, Version::parse("3.11.2").value()});
    ASSERT_EQ(sel.candidates.size(), 2u);
    EXPECT_EQ(sel.candidates[0].version.to_string(), "2.9.0+cu128");
    EXPECT_EQ(sel.candidates[0].file.filename, "torch-2.9.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(sel.candidates[1].version.to_string(), "2.7.0+cu128");
    EXPECT_EQ(sel.not_wheels, 1u);
    EXPECT_EQ(sel.other_project, 1u);
    EXPECT_EQ(sel.other_tags, 2u);
    EXPECT_EQ(sel.requires_python, 1u);
    EXPECT_FALSE(sel.tag_examples.empty());
}

TEST(PlanWheelSelect, BuildTagBreaksTiesAndYankedLoses) {
    auto tags = supported_tags(linux311());
    std::vector<IndexFile> files = {
        file("pkg-1.0-1-py3-none-any.whl"),
        file("pkg-1.0-2-py3-none-any.whl"),
        file("pkg-1.0-3-py3-none-any.whl", std::nullopt, true),
    };
    auto sel = select_wheels(files, "pkg", {&tags, Version::parse("3.11.2").value()});
    ASSERT_EQ(sel.candidates.size(), 1u);
    EXPECT_EQ(sel.candidates[0].file.filename, "pkg-1.0-2-py3-none-any.whl");
    EXPECT_FALSE(sel.candidates[0].file.yanked);
}

TEST(PlanWheelSelect, RequiresPythonText) {
    auto py = Version::parse("3.11.2").value();
    EXPECT_TRUE(requires_python_allows(">=3.9", py));
    EXPECT_FALSE(requires_python_allows(">=3.12", py));
    EXPECT_TRUE(requires_python_allows(">=3.10,!=3.14.1", py));
    EXPECT_TRUE(requires_python_allows("garbage", py));  // pip warns and installs
}
