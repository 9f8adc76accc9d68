// Wheel and sdist file names.
#include <gtest/gtest.h>

#include "envfix/standards/wheel_name.hpp"

using envfix::ExitCode;
using namespace envfix::standards;

TEST(WheelName, ParsesPytorchIndexNames) {
    struct Case {
        const char* file;
        const char* canonical;
        const char* version;
        const char* build;  // "" for none
        const char* first_tag;
        size_t tag_count;
    };
    const Case cases[] = {
        {"torch-2.7.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl", "torch", "2.7.0+cu128", "", "cp312-cp312-manylinux_2_28_x86_64", 1},
        {"torch-2.7.0%2Bcu128-cp312-cp312-win_amd64.whl", "torch", "2.7.0+cu128", "", "cp312-cp312-win_amd64", 1},
        {"torch-2.7.0%2bcpu-cp39-none-macosx_11_0_arm64.whl", "torch", "2.7.0+cpu", "", "cp39-none-macosx_11_0_arm64", 1},
        {"torch-2.8.0.dev20250601+cu128-cp313-cp313t-manylinux_2_28_aarch64.whl", "torch", "2.8.0.dev20250601+cu128", "",
         "cp313-cp313t-manylinux_2_28_aarch64", 1},
        {"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl", "nvidia-cudnn-cu12", "9.1.0.70", "",
         "py3-none-manylinux2014_x86_64", 1},
        {"numpy-2.2.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "numpy", "2.2.0", "",
         "cp312-cp312-manylinux_2_17_x86_64", 2},
        {"six-1.16.0-py2.py3-none-any.whl", "six", "1.16.0", "", "py2-none-any", 2},
        {"pkg-1.0-1-py3-none-any.whl", "pkg", "1.0", "1", "py3-none-any", 1},
        {"pkg-1.0-0020abc-py3-none-any.whl", "pkg", "1.0", "20abc", "py3-none-any", 1},
        {"Zope.Interface-5.0-CP39-abi3-WIN32.whl", "zope-interface", "5.0", "", "cp39-abi3-win32", 1},
    };
    for (const auto& c : cases) {
        auto w = parse_wheel_name(c.file);
        ASSERT_TRUE(w) << c.file << ": " << w.error().message.key;
        EXPECT_EQ(w->canonical_name, c.canonical) << c.file;
        EXPECT_EQ(w->version.to_string(), c.version) << c.file;
        EXPECT_EQ(w->build ? w->build->number + w->build->suffix : "", c.build) << c.file;
        ASSERT_EQ(w->tags.size(), c.tag_count) << c.file;
        EXPECT_EQ(w->tags[0].to_string(), c.first_tag) << c.file;
    }
    auto w = *parse_wheel_name("torch-2.7.0%2Bcu128-cp312-cp312-win_amd64.whl");
    EXPECT_EQ(w.filename, "torch-2.7.0+cu128-cp312-cp312-win_amd64.whl");
    EXPECT_EQ(w.name, "torch");
    EXPECT_EQ(w.tag_text, "cp312-cp312-win_amd64");
}

TEST(WheelName, BuildTagsOrderNumerically) {
    auto a = *parse_wheel_name("p-1.0-2-py3-none-any.whl");
    auto b = *parse_wheel_name("p-1.0-10-py3-none-any.whl");
    auto c = *parse_wheel_name("p-1.0-10a-py3-none-any.whl");
    EXPECT_LT(*a.build, *b.build);
    EXPECT_LT(*b.build, *c.build);
    EXPECT_EQ(*parse_wheel_name("p-1.0-007-py3-none-any.whl")->build, (BuildTag{"7", ""}));
}

TEST(WheelName, SourceDistributionsAreRefusedWithTheirOwnCode) {
    for (const char* sdist : {"torch-2.7.0.tar.gz", "pkg-1.0.zip", "pkg-1.0.tar.bz2", "pkg-1.0.tgz"}) {
        auto w = parse_wheel_name(sdist);
        ASSERT_FALSE(w) << sdist;
        EXPECT_EQ(w.error().code, ExitCode::NotInstallable) << sdist;
        EXPECT_EQ(w.error().message.key, "wheel_name.sdist");
        EXPECT_EQ(w.error().message.arg("file"), sdist);
        EXPECT_EQ(distribution_kind(sdist), DistributionKind::Sdist);
    }
    EXPECT_EQ(distribution_kind("a-1.0-py3-none-any.whl"), DistributionKind::Wheel);
    EXPECT_EQ(distribution_kind("a-1.0.egg"), DistributionKind::Other);
}

TEST(WheelName, MalformedNamesSayWhatIsWrong) {
    struct Case {
        const char* file;
        const char* key;
    };
    const Case cases[] = {
        {"pkg-1.0.egg", "wheel_name.not_wheel"},
        {"pkg-1.0-py3-none-any.WHL", "wheel_name.not_wheel"},
        {"pkg-1.0-py3-none.whl", "wheel_name.parts"},
        {"pkg-1.0-1-2-py3-none-any.whl", "wheel_name.parts"},
        {"pkg-foo-1.0-py3-none-any.whl", "wheel_name.bad_version"},
        {"pkg-1.0-x1-py3-none-any.whl", "wheel_name.bad_build"},
        {"p__k-1.0-py3-none-any.whl", "wheel_name.bad_name"},
        {"p+k-1.0-py3-none-any.whl", "wheel_name.bad_name"},
        {"-1.0-py3-none-any.whl", "wheel_name.bad_name"},
        {"pkg-1.0_foo-py3-none-any.whl", "wheel_name.bad_version"},
        {"pkg--py3-none-any.whl", "wheel_name.bad_version"},
        {"pkg-1.0--none-any.whl", "wheel_name.bad_tags"},
        {"pkg-1.0-py3.-none-any.whl", "wheel_name.bad_tags"},
        {"pkg-1.0%2-py3-none-any.whl", "wheel_name.bad_escape"},
        {"pkg-1.0%zz-py3-none-any.whl", "wheel_name.bad_escape"},
    };
    for (const auto& c : cases) {
        auto w = parse_wheel_name(c.file);
        ASSERT_FALSE(w) << c.file;
        EXPECT_EQ(w.error().code, ExitCode::BadInput) << c.file;
        EXPECT_EQ(w.error().message.key, c.key) << c.file;
        EXPECT_FALSE(w.error().message.arg("file").empty()) << c.file;
    }
}

TEST(SdistName, Parses) {
    auto s = parse_sdist_name("Foo_Bar-1.0rc1.tar.gz");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->canonical_name, "foo-bar");
    EXPECT_EQ(s->version.to_string(), "1.0rc1");
    EXPECT_EQ(parse_sdist_name("a-b-2.0.zip")->canonical_name, "a-b");
    EXPECT_EQ(parse_sdist_name("nope.tar.gz").error().message.key, "sdist_name.invalid");
    EXPECT_EQ(parse_sdist_name("a-1.0.whl").error().message.key, "sdist_name.invalid");
    EXPECT_EQ(parse_sdist_name("a-x.y.tar.gz").error().message.key, "sdist_name.bad_version");
}
