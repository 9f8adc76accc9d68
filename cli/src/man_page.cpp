// envfix(1) from the command model (command_model.hpp), made at build time as build/envfix.1.
#include <string>

#include "command_model.hpp"
#include "envfix/common/exit_codes.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::cli {

namespace {

// Text as troff shows it: backslashes and hyphens escaped, no line read as a request.
std::string roff(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
    return out;
}

std::string options_block(const std::vector<OptionSpec>& options) {
    std::string s;
    for (const auto& o : options) {
        s += ".TP\n.B " + roff(str::join(o.names, ", ")) + (o.takes_value ? " \\fIVALUE\\fR" : "") + "\n";
        s += roff(o.description) + "\n";
    }
    return s;
}

void commands_block(const CommandSpec& c, const std::string& path, std::string& s) {
    for (const auto& sub : c.commands) {
        const std::string full = path.empty() ? sub.name : path + " " + sub.name;
        s += ".SS \"envfix " + roff(full) + "\"\n" + roff(sub.description) + "\n";
        s += options_block(sub.options);
        commands_block(sub, full, s);
    }
}

}  // namespace

std::string man_page(const CommandSpec& envfix, const std::string& version) {
    std::string s = ".TH ENVFIX 1 \"\" \"envfix " + roff(version) + "\" \"User Commands\"\n";
    s += ".SH NAME\nenvfix \\- " + roff(envfix.description) + "\n";
    s += ".SH SYNOPSIS\n.B envfix\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n";
    s += ".SH DESCRIPTION\nenvfix finds why a GPU framework (torch) cannot run on this machine's GPUs and driver, "
         "and installs a build that can, atomically, with snapshots to roll back. "
         "Each command's options follow; \\fBenvfix COMMAND \\-\\-help\\fR says the same.\n";
    s += ".SH OPTIONS\n" + options_block(envfix.options);
    s += ".SH COMMANDS\n";
    commands_block(envfix, "", s);
    s += ".SH \"EXIT STATUS\"\n";
    for (const auto& e : exit_code_table())
        s += ".TP\n.B " + std::to_string(static_cast<int>(e.code)) + "\n" + roff(std::string(e.name)) + ": " + roff(e.meaning) + "\n";
    s += ".SH ENVIRONMENT\nSee docs/environment.md; \\fBNO_COLOR\\fR turns colours off, \\fBENVFIX_LANG=zh\\fR selects Chinese.\n";
    return s;
}

}  // namespace envfix::cli
