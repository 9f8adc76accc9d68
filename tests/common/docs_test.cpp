// The documentation lists every exit code and every environment variable the code knows.
#include <gtest/gtest.h>

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
