#pragma once
// The commands and options as CLI11 defines them, as plain values: what shell completion and the
// man page are written from, so neither can drift from `envfix --help`.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace envfix::cli {

struct OptionSpec {
    std::vector<std::string> names;  // "--python", "-p"
    std::string description;
    bool takes_value = false;
};

struct CommandSpec {
    std::string name;  // "" for envfix itself
    std::string description;
    std::vector<OptionSpec> options;
    std::vector<CommandSpec> commands;  // subcommands (snapshot gc)
};

// Every visible command and option below `app` (help and hidden ones left out).
CommandSpec command_model(const CLI::App& app);

enum class Shell { Bash, Zsh, Fish, PowerShell };
// The completion script a shell sources (docs/cli.md#shell-completion).
std::string completion_script(const CommandSpec& envfix, Shell shell);
// envfix(1) in troff, from the same model.
std::string man_page(const CommandSpec& envfix, const std::string& version);

}  // namespace envfix::cli
