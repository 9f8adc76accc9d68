// Completion scripts for bash, zsh, fish and PowerShell, written from the command model
// (command_model.hpp): commands, subcommands and their options, with descriptions where the
// shell shows them. A word after an option that takes a value completes as a file name.
#include <string>

#include "command_model.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::cli {

namespace {

// Every command below `c` with its path ("", "snapshot", "snapshot gc"), depth first.
void walk(const CommandSpec& c, const std::string& path, std::vector<std::pair<std::string, const CommandSpec*>>& out) {
    out.emplace_back(path, &c);
    for (const auto& sub : c.commands) walk(sub, path.empty() ? sub.name : path + " " + sub.name, out);
}

std::vector<std::pair<std::string, const CommandSpec*>> all_commands(const CommandSpec& root) {
    std::vector<std::pair<std::string, const CommandSpec*>> out;
    walk(root, "", out);
    return out;
}

std::string words(const CommandSpec& c, bool names, bool options, bool valued_only) {
    std::vector<std::string> w;
    if (names)
        for (const auto& sub : c.commands) w.push_back(sub.name);
    if (options)
        for (const auto& o : c.options)
            if (!valued_only || o.takes_value) w.insert(w.end(), o.names.begin(), o.names.end());
    return str::join(w, " ");
}

// One bash function answering a path with a word list: _envfix_<what> "snapshot" -> "gc".
std::string bash_table(const CommandSpec& root, const std::string& what, bool names, bool options, bool valued) {
    std::string s = "_envfix_" + what + "() {\n    case \"$1\" in\n";
    for (const auto& [path, c] : all_commands(root)) {
        std::string list = words(*c, names, options, valued);
        if (!path.empty() && options) list += " " + words(root, false, true, valued);  // global options too
        s += "        \"" + path + "\") echo \"" + list + "\" ;;\n";
    }
    return s + "    esac\n}\n";
}

std::string bash(const CommandSpec& root) {
    std::string s =
        "# envfix completion for bash: `source <(envfix completion bash)` in ~/.bashrc, or save it as\n"
        "# /usr/share/bash-completion/completions/envfix.\n";
    s += bash_table(root, "commands", true, false, false);
    s += bash_table(root, "options", false, true, false);
    s += bash_table(root, "valued", false, true, true);
    s += R"BASH(_envfix() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path="" i w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case "$w" in -*) continue ;; esac
        case " $(_envfix_valued "$path") " in *" ${COMP_WORDS[i-1]} "*) continue ;; esac
        case " $(_envfix_commands "$path") " in *" $w "*) path="${path:+$path }$w" ;; esac
    done
    case " $(_envfix_valued "$path") " in *" $prev "*) COMPREPLY=($(compgen -f -- "$cur")); return ;; esac
    COMPREPLY=($(compgen -W "$(_envfix_commands "$path") $(_envfix_options "$path")" -- "$cur"))
}
complete -o default -F _envfix envfix
)BASH";
    return s;
}

std::string fish_quote(const std::string& s) { return "'" + str::replace_all(str::replace_all(s, "\\", "\\\\"), "'", "\\'") + "'"; }

std::string fish(const CommandSpec& root) {
    std::string s = "# envfix completion for fish: `envfix completion fish > ~/.config/fish/completions/envfix.fish`\n";
    s += "complete -c envfix -f\n";
    for (const auto& [path, c] : all_commands(root)) {
        const std::string parent =
            path.empty() ? "__fish_use_subcommand" : "'__fish_seen_subcommand_from " + path.substr(path.rfind(' ') + 1) + "'";
        for (const auto& sub : c->commands)
            s += "complete -c envfix -n " + parent + " -a " + sub.name + " -d " + fish_quote(sub.description) + "\n";
        const std::string here = path.empty() ? "" : " -n '__fish_seen_subcommand_from " + path.substr(path.rfind(' ') + 1) + "'";
        for (const auto& o : c->options) {
            std::string flags;
            for (const auto& n : o.names) flags += n.starts_with("--") ? " -l " + n.substr(2) : " -s " + n.substr(1);
            s += "complete -c envfix" + here + flags + (o.takes_value ? " -r -F" : "") + " -d " + fish_quote(o.description) + "\n";
        }
    }
    return s;
}

std::string ps_list(const std::string& space_separated) {
    std::vector<std::string> quoted;
    for (const auto& w : str::split(space_separated, ' '))
        if (!w.empty()) quoted.push_back("'" + std::string(w) + "'");
    return "@(" + str::join(quoted, ",") + ")";
}

std::string powershell(const CommandSpec& root) {
    std::string commands, options;
    for (const auto& [path, c] : all_commands(root)) {
        commands += "        '" + path + "' = " + ps_list(words(*c, true, false, false)) + "\n";
        options += "        '" + path +
                   "' = " + ps_list(words(*c, false, true, false) + (path.empty() ? "" : " " + words(root, false, true, false))) + "\n";
    }
    return "# envfix completion for PowerShell: `envfix completion powershell | Out-String | Invoke-Expression` in $PROFILE\n"
           "Register-ArgumentCompleter -Native -CommandName envfix, envfix.exe -ScriptBlock {\n"
           "    param($wordToComplete, $commandAst, $cursorPosition)\n"
           "    $commands = @{\n" +
           commands +
           "    }\n"
           "    $options = @{\n" +
           options +
           "    }\n"
           "    $path = ''\n"
           "    foreach ($e in $commandAst.CommandElements | Select-Object -Skip 1) {\n"
           "        $w = $e.ToString()\n"
           "        if ($e.Extent.StartOffset -ge $cursorPosition) { break }\n"
           "        if ($commands[$path] -contains $w) { $path = ($path + ' ' + $w).Trim() }\n"
           "    }\n"
           "    @($commands[$path]) + @($options[$path]) | Where-Object { $_ -and $_ -like \"$wordToComplete*\" } |\n"
           "        ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }\n"
           "}\n";
}

}  // namespace

std::string completion_script(const CommandSpec& envfix, Shell shell) {
    switch (shell) {
        case Shell::Bash: return bash(envfix);
        case Shell::Zsh:
            // zsh runs bash's completion functions through bashcompinit.
            return "#compdef envfix\n# envfix completion for zsh: `source <(envfix completion zsh)` in ~/.zshrc\n"
                   "autoload -U +X bashcompinit && bashcompinit\n" +
                   bash(envfix);
        case Shell::Fish: return fish(envfix);
        case Shell::PowerShell: return powershell(envfix);
    }
    return "";
}

}  // namespace envfix::cli
