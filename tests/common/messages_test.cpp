#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "envfix/common/message.hpp"

using namespace envfix;

namespace {
std::set<std::string> placeholders(const char* tpl) {
    std::set<std::string> out;
    std::string s = tpl ? tpl : "";
    std::regex re(R"(\{([a-z_0-9]+)\})");
    for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) out.insert((*it)[1]);
    return out;
}
}  // namespace

TEST(Messages, RendersNamedArguments) {
    auto m = msg("fs.read_failed", {{"path", "/x"}, {"reason", "gone"}});
    EXPECT_EQ(render(m, Lang::En), "cannot read /x: gone");
    EXPECT_EQ(render(m, Lang::Zh), "无法读取 /x：gone");
}

TEST(Messages, UnknownKeyShowsKeyAndArguments) {
    EXPECT_EQ(render(msg("no.such.key", {{"a", "1"}}), Lang::En), "no.such.key(a=1)");
}

TEST(Messages, EveryEntryHasChineseWithTheSamePlaceholders) {
    std::set<std::string> keys;
    for (const auto& e : all_catalog_entries()) {
        EXPECT_TRUE(keys.insert(e.key).second) << "duplicate key " << e.key;
        ASSERT_NE(e.en, nullptr) << e.key;
        ASSERT_NE(e.zh, nullptr) << e.key << " has no Chinese text";
        EXPECT_EQ(placeholders(e.en), placeholders(e.zh)) << e.key;
    }
}

TEST(Messages, ChineseIsChosenFromTheLocale) {
    setenv("LANG", "zh_CN.UTF-8", 1);
    unsetenv("ENVFIX_LANG");
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    EXPECT_EQ(language_from_environment(), Lang::Zh);
    setenv("ENVFIX_LANG", "en", 1);
    EXPECT_EQ(language_from_environment(), Lang::En);
    unsetenv("ENVFIX_LANG");
    unsetenv("LANG");
}
