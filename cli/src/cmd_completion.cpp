// envfix completion SHELL: a completion script for bash, zsh, fish or PowerShell, written from
// the commands as defined; and the man page, which the build writes as build/envfix.1.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "command_model.hpp"
#include "context.hpp"
#include "envfix/common/fs.hpp"
#include "help_text.hpp"

namespace envfix::cli {

void register_completion(CLI::App& app, Context&) {
    auto shell = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("completion", help_text("help.completion"));
    cmd->add_option("shell", *shell, help_text("help.completion.shell"))
        ->required()
        ->check(CLI::IsMember({"bash", "zsh", "fish", "powershell"}));
    cmd->callback([shell, &app] {
        const Shell s = *shell == "bash" ? Shell::Bash : *shell == "zsh" ? Shell::Zsh : *shell == "fish" ? Shell::Fish : Shell::PowerShell;
        const std::string script = completion_script(command_model(app), s);
        std::fwrite(script.data(), 1, script.size(), stdout);
    });
    // The man page, for the build: not a command people type.
    auto out = std::make_shared<std::string>();
    auto* man = app.add_subcommand("man-page", "write envfix(1) in troff");
    man->group("");
    man->add_option("file", *out, "where")->required();
    man->callback([out, &app] { value_or_throw(fs::write_file_atomic(*out, man_page(command_model(app), ENVFIX_VERSION))); });
}

}  // namespace envfix::cli
