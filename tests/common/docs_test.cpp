// The documentation lists every exit code and every environment variable the code knows, and
// describes the product as it is.
#include <gtest/gtest.h>

#include <regex>

#include "envfix/common/env.hpp"
#include "envfix/common/exit_codes.hpp"
#include "support.hpp"

using namespace envfix;

TEST(Docs, CliMdListsEveryExitCode) {
    auto text = test::read_text(test::source_dir() / "docs/cli.md");
    for (const auto& i : exit_code_table()) {
        std::string row = "| " + std::to_string(static_cast<int>(i.code)) + " | `" + std::string(i.name) + "` |";
        EXPECT_NE(text.find(row), std::string::npos) << "docs/cli.md lacks: " << row;
    }
}

TEST(Docs, EnvironmentMdListsEveryVariable) {
    auto text = test::read_text(test::source_dir() / "docs/environment.md");
    for (const auto& i : env::table()) {
        std::string cell = "| `" + std::string(i.name) + "` |";
        EXPECT_NE(text.find(cell), std::string::npos) << "docs/environment.md lacks: " << cell;
    }
}

// User docs say what envfix does, not how it came to be: no issue numbers, no "in this version",
// no "today … later" and no "(now …)".
TEST(Docs, DescribeTheProductAsItIs) {
    const std::regex history(
        R"(\bissues? [0-9]|in this version|now accepted|accepted now|(earlier|previous) version|\(now |today the |until `?envfix)",
        std::regex::icase);
    size_t read = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::source_dir() / "docs")) {
        if (e.path().extension() != ".md") continue;
        ++read;
        auto text = test::read_text(e.path());
        size_t line_no = 1, start = 0;
        for (size_t end; start < text.size(); start = end + 1, ++line_no) {
            end = text.find('\n', start);
            if (end == std::string::npos) end = text.size();
            std::string line = text.substr(start, end - start);
            EXPECT_FALSE(std::regex_search(line, history)) << e.path().filename().string() << ":" << line_no << ": " << line;
        }
    }
    EXPECT_GT(read, 10u);
}
