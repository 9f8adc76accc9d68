// `envfix --help` and every command's help in the user's language: the texts come from the
// message catalog, chosen by --lang or the locale, while the man page and the completion scripts
// stay English whatever the locale.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "support.hpp"

namespace envfix {
namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// Every command and subcommand, as `envfix --help` lists them.
const std::vector<std::vector<std::string>> kCommands = {
    {},          {"probe"},    {"doctor"}, {"plan"},         {"install"},        {"verify"},         {"check"},
    {"envs"},    {"apps"},     {"archs"},  {"matrix"},       {"recover"},        {"snapshot"},       {"snapshot", "gc"},
    {"history"}, {"rollback"}, {"cache"},  {"cache", "dir"}, {"cache", "list"},  {"cache", "clean"}, {"cache", "ready"},
    {"apply"},   {"lock"},     {"fetch"},  {"config"},       {"config", "show"}, {"completion"}};

TEST(Help, EveryCommandSpeaksChineseWithZh) {
    test::TempDir dir;
    for (const auto& command : kCommands) {
        std::vector<std::string> args = {"--lang", "zh"};
        args.insert(args.end(), command.begin(), command.end());
        args.push_back("--help");
        SCOPED_TRACE(testing::PrintToString(args));
        auto r = test::run_envfix(args, {}, dir / "home");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_FALSE(contains(r.out, "help.")) << r.out;  // a key without a catalog entry
        EXPECT_TRUE(contains(r.out, "用法")) << r.out;
        EXPECT_TRUE(contains(r.out, "显示此帮助并退出")) << r.out;
        // Every option's description is Chinese: the line that names an option, or the next one where
        // a long name pushes the description down, holds a CJK character.
        std::istringstream lines(r.out);
        std::string line, next;
        std::getline(lines, line);
        for (bool more = true; more; line = next) {
            more = static_cast<bool>(std::getline(lines, next));
            if (!std::regex_search(line, std::regex(R"(^\s+-{1,2}[a-z])"))) continue;
            EXPECT_TRUE(std::regex_search(line + next, std::regex("[\xe4-\xe9]"))) << line;
        }
    }
}

TEST(Help, TheLocaleChoosesAndLangOverrides) {
    test::TempDir dir;
    auto zh = test::run_envfix({"install", "--help"}, {{"LANG", "zh_CN.UTF-8"}}, dir / "home");
    EXPECT_TRUE(contains(zh.out, "以原子方式安装")) << zh.out;
    EXPECT_TRUE(contains(zh.out, "软件包索引")) << zh.out;  // the option group
    auto en = test::run_envfix({"--lang", "en", "install", "--help"}, {{"LANG", "zh_CN.UTF-8"}}, dir / "home");
    EXPECT_TRUE(contains(en.out, "install the framework build `envfix plan` picks")) << en.out;
    EXPECT_TRUE(contains(en.out, "Package index")) << en.out;
}

TEST(Help, CompletionAndManPageStayEnglish) {
    test::TempDir dir;
    auto fish = test::run_envfix({"completion", "fish"}, {{"LANG", "zh_CN.UTF-8"}}, dir / "home");
    ASSERT_EQ(fish.code, 0) << fish.err;
    EXPECT_TRUE(contains(fish.out, "explain what stops the framework")) << fish.out.substr(0, 500);
    EXPECT_FALSE(std::regex_search(fish.out, std::regex("[\xe4-\xe9]"))) << fish.out.substr(0, 500);
    auto page = dir / "envfix.1";
    ASSERT_EQ(test::run_envfix({"--lang", "zh", "man-page", page.string()}, {}, dir / "home").code, 0);
    EXPECT_TRUE(contains(test::read_text(page), "explain what stops the framework"));
}

TEST(Help, ErrorAndWarningLabelsInChinese) {
    test::TempDir dir;
    auto r = test::run_envfix({"--lang", "zh", "rollback", "--python", (dir / "none" / "python").string()}, {}, dir / "home");
    EXPECT_NE(r.code, 0);
    EXPECT_TRUE(contains(r.err, "envfix: 错误：")) << r.err;
    auto bad = test::run_envfix({"--lang", "zh", "plan", "--no-such-option"}, {}, dir / "home");
    EXPECT_EQ(bad.code, 2);
    EXPECT_TRUE(contains(bad.err, "命令行有误：")) << bad.err;
    auto en = test::run_envfix({"--lang", "en", "plan", "--no-such-option"}, {}, dir / "home");
    EXPECT_TRUE(contains(en.err, "Run with --help for more information.")) << en.err;
}

}  // namespace
}  // namespace envfix
