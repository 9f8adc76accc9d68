// `envfix completion SHELL` and envfix(1), both written from the command definitions: bash
// completes through the script as a user's shell would; the others are checked by their own
// parser where the machine has the shell.
#include <gtest/gtest.h>

#include "support.hpp"

namespace envfix {
namespace {

namespace stdfs = std::filesystem;

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }
bool have(const std::string& program) { return test::run_program({"bash", "-c", "command -v \"$1\"", "bash", program}).code == 0; }

// What bash offers for the words typed so far (the last one being completed).
std::string bash_completes(const test::TempDir& dir, const std::string& typed) {
    auto script = test::run_envfix({"completion", "bash"}, {}, dir / "home");
    EXPECT_EQ(script.code, 0) << script.err;
    test::write_text(dir / "envfix.bash", script.out);
    auto r = test::run_program({"bash", "-c",
                                "source \"$1\"; COMP_WORDS=($2); [[ $2 == *' ' ]] && COMP_WORDS+=(''); "
                                "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _envfix; printf '%s\\n' \"${COMPREPLY[@]}\"",
                                "bash", (dir / "envfix.bash").string(), typed});
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
}

TEST(Completion, BashOffersCommandsTheirOptionsAndFilesForValues) {
    test::TempDir dir;
    EXPECT_EQ(bash_completes(dir, "envfix doc"), "doctor\n");
    auto install = bash_completes(dir, "envfix install --ig");
    EXPECT_EQ(install, "--ignore-app-constraints\n");
    auto after = bash_completes(dir, "envfix install ");
    EXPECT_TRUE(contains(after, "--python\n")) << after;
    EXPECT_TRUE(contains(after, "--json\n")) << after;  // global options after the command too
    EXPECT_EQ(bash_completes(dir, "envfix snapshot g"), "gc\n");
    // A value: a file name, not an option.
    test::write_text(dir / "somewhere/python3", "");
    auto value = bash_completes(dir, "envfix doctor --python " + (dir / "somewhere/py").string());
    EXPECT_EQ(value, (dir / "somewhere/python3").string() + "\n");
}

TEST(Completion, EveryShellGetsAScriptFromTheSameCommands) {
    test::TempDir dir;
    for (const char* shell : {"zsh", "fish", "powershell"}) {
        auto r = test::run_envfix({"completion", shell}, {}, dir / "home");
        ASSERT_EQ(r.code, 0) << shell << r.err;
        EXPECT_TRUE(contains(r.out, "doctor")) << shell;
        EXPECT_TRUE(contains(r.out, "ignore-app-constraints")) << shell;
        EXPECT_FALSE(contains(r.out, "man-page")) << shell;  // the build's, not the user's
        const std::string file = (dir / (std::string("envfix.") + shell)).string();
        test::write_text(file, r.out);
        // Each shell's own parser, where the machine has it.
        const char* checker = std::string(shell) == "zsh" ? "zsh" : std::string(shell) == "fish" ? "fish" : "pwsh";
        if (!have(checker)) continue;
        auto check = std::string(shell) == "powershell" ? test::run_program({checker, "-NoProfile", "-Command", "& { . " + file + " }"})
                                                        : test::run_program({checker, "-n", file});
        EXPECT_EQ(check.code, 0) << shell << check.out << check.err;
    }
    auto bad = test::run_envfix({"completion", "tcsh"}, {}, dir / "home");
    EXPECT_EQ(bad.code, 2) << bad.err;
}

TEST(Completion, TheManPageIsBuiltFromTheSameCommands) {
    const auto page = test::read_text(test::build_dir() / "envfix.1");
    EXPECT_TRUE(contains(page, ".TH ENVFIX 1")) << page.substr(0, 200);
    EXPECT_TRUE(contains(page, ".SS \"envfix doctor\"")) << page.substr(0, 200);
    EXPECT_TRUE(contains(page, ".SS \"envfix snapshot gc\""));
    EXPECT_TRUE(contains(page, "\\-\\-ignore\\-app\\-constraints"));
    EXPECT_TRUE(contains(page, "library\\-missing"));  // the exit codes
    if (have("man")) {
        auto shown =
            test::run_program({"man", "-l", (test::build_dir() / "envfix.1").string()}, {{"MANWIDTH", "100"}, {"MAN_KEEP_FORMATTING", ""}});
        EXPECT_EQ(shown.code, 0) << shown.err;
        EXPECT_TRUE(contains(shown.out, "envfix doctor")) << shown.out.substr(0, 500);
    }
}

}  // namespace
}  // namespace envfix
