// What a user with the Chinese locale reads beyond the help: history lines, the labels of errors,
// and the reasons lower layers give (a damaged wheel, a bad apply spec, a file that is not there).
#include <gtest/gtest.h>

#include "support.hpp"

namespace envfix {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(Chinese, HistoryLinesSayWhyInChinese) {
    test::TempDir dir;
    auto venv = dir / "venv";
    test::make_venv(venv, true);
    const std::string python = (venv / "bin" / "python").string();
    ASSERT_EQ(test::run_envfix({"snapshot", "--python", python}, {}, dir / "home").code, 0);
    auto zh = test::run_envfix({"history", "--python", python}, {{"LANG", "zh_CN.UTF-8"}}, dir / "home");
    ASSERT_EQ(zh.code, 0) << zh.err;
    EXPECT_TRUE(contains(zh.out, "手动快照")) << zh.out;
    auto en = test::run_envfix({"history", "--python", python}, {}, dir / "home");
    EXPECT_TRUE(contains(en.out, "  snapshot")) << en.out;
}

TEST(Chinese, LowerLayersReasonsAreChinese) {
    test::TempDir dir;
    auto venv = dir / "venv";
    test::make_venv(venv, true);
    const std::string python = (venv / "bin" / "python").string();
    auto wheel = dir / "demo-1.0-py3-none-any.whl";
    test::write_text(wheel, "PK");
    auto r = test::run_envfix({"--lang", "zh", "install", "--python", python, wheel.string()}, {}, dir / "home");
    EXPECT_EQ(r.code, 60) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "envfix: 错误：")) << r.err;
    EXPECT_TRUE(contains(r.err, "不是有效的 wheel 压缩包：太短，不可能是 zip 压缩包（被截断了？）")) << r.err;
    auto missing = test::run_envfix({"--lang", "zh", "install", "--python", python, (dir / "none.whl").string()}, {}, dir / "home");
    EXPECT_TRUE(contains(missing.err, "文件不存在")) << missing.err;

    auto spec = dir / "spec.yaml";
    test::write_text(spec, "version: 1\nenviroments: []\n");
    auto s = test::run_envfix({"--lang", "zh", "apply", spec.string()}, {}, dir / "home");
    EXPECT_EQ(s.code, 3);
    EXPECT_TRUE(contains(s.err, spec.string() + ":2：规格文件中有未知的键“enviroments”")) << s.err;
    test::write_text(spec, "version: 1\nenvironments: [{venv: /v}\n");
    auto y = test::run_envfix({"--lang", "zh", "apply", spec.string()}, {}, dir / "home");
    EXPECT_TRUE(contains(y.err, "：YAML 语法错误：end of sequence flow not found")) << y.err;
}

}  // namespace
}  // namespace envfix
