#include "command_model.hpp"

#include <CLI/CLI.hpp>

namespace envfix::cli {

namespace {

OptionSpec option_spec(const CLI::Option& o) {
    OptionSpec s;
    for (const auto& l : o.get_lnames()) s.names.push_back("--" + l);
    for (const auto& n : o.get_snames()) s.names.push_back("-" + n);
    s.description = o.get_description();
    s.takes_value = o.get_expected_min() > 0;
    return s;
}

}  // namespace

CommandSpec command_model(const CLI::App& app) {
    CommandSpec c;
    c.name = app.get_name();
    c.description = app.get_description();
    for (const CLI::Option* o : app.get_options()) {
        // Positionals and hidden options (an empty group) are not offered.
        if (o->get_lnames().empty() && o->get_snames().empty()) continue;
        if (o->get_group().empty()) continue;
        c.options.push_back(option_spec(*o));
    }
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); }))
        c.commands.push_back(command_model(*sub));
    return c;
}

}  // namespace envfix::cli
