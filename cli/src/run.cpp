#include <CLI/CLI.hpp>

#include <cstdio>

#include "context.hpp"
#include "envfix/common/error.hpp"
#include "envfix/common/interrupt.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "probe_view.hpp"
#include "ready_trees.hpp"
#include "style.hpp"
#include "terminal_reporter.hpp"

#ifndef ENVFIX_VERSION
#define ENVFIX_VERSION "0.0.0"
#endif

namespace envfix::cli {

namespace {

void report_error(const Context& ctx, const Error& e) {
    print_error_line(e);
    if (ctx.opts.json) {
        Json j;
        j["schema_version"] = kJsonSchemaVersion;
        j["warnings"] = warnings_json(ctx);  // the why of some failures (snapshots skipped as unreadable)
        j["error"] = error_json(e);
        print_json(j);
    }
}

// The language of the help texts, known before the commands are defined: --lang where given,
// else the environment's (LANG, ENVFIX_LANG ...). The man page and the completion scripts are
// build outputs and stay English.
Lang language_before_parsing(int argc, char** argv) {
    Lang lang = language_from_environment();
    bool build_output = false, help = false;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        build_output = build_output || a == "man-page" || a == "completion";
        help = help || a == "-h" || a == "--help";
        std::string_view value = a.starts_with("--lang=") ? a.substr(7) : (a == "--lang" && i + 1 < argc) ? argv[i + 1] : "";
        if (value == "zh") lang = Lang::Zh;
        if (value == "en") lang = Lang::En;
    }
    return build_output && !help ? Lang::En : lang;
}

// CLI11's own words in the help layout, and its groups, in the help's language. Value types
// (TEXT, UINT) stay: CLI11 pads columns by bytes, and they read as placeholders.
void localize_help_layout(CLI::App& app) {
    auto f = app.get_formatter();
    for (const auto& [label, key] : std::initializer_list<std::pair<const char*, const char*>>{{"Usage", "help.label.usage"},
                                                                                               {"OPTIONS", "help.label.options"},
                                                                                               {"SUBCOMMAND", "help.label.subcommand"},
                                                                                               {"SUBCOMMANDS", "help.label.subcommands"},
                                                                                               {"Positionals", "help.label.positionals"},
                                                                                               {"REQUIRED", "help.label.required"}})
        f->label(label, help_text(key));
    app.option_defaults()->group(help_text("help.group.options"));
    // A bad command line: CLI11's own text, introduced in the user's language.
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return render(msg("cli.bad_command_line", {{"what", e.what()}})) + "\n" + render(msg("cli.run_help")) + "\n";
    });
    app.group(help_text("help.group.subcommands"));
}

// Each command's -h,--help, which CLI11 makes before the command takes the options' group.
void group_help_flags(CLI::App& app, const std::string& group) {
    if (auto* h = app.get_help_ptr()) h->group(group);
    for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) group_help_flags(*sub, group);
}

}  // namespace

int run(int argc, char** argv) {
    install_interrupt_handler();
    set_language(language_before_parsing(argc, argv));

    Context ctx;
    CLI::App app{help_text("help.envfix"), "envfix"};
    localize_help_layout(app);
    app.set_help_flag("-h,--help", help_text("help.global.help"));
    app.set_version_flag("-V,--version", std::string("envfix ") + ENVFIX_VERSION, help_text("help.global.version"));
    app.require_subcommand(1);
    app.fallthrough();  // global options are accepted after the subcommand too
    app.add_flag("--json", ctx.opts.json, help_text("help.global.json"));
    app.add_flag("-v,--verbose", ctx.opts.verbosity, help_text("help.global.verbose"));
    app.add_flag("-q,--quiet", ctx.opts.quiet, help_text("help.global.quiet"));
    app.add_flag("-y,--yes", ctx.opts.yes, help_text("help.global.yes"));
    app.add_flag("--no-color", ctx.opts.no_color, help_text("help.global.no_color"));
    app.add_option("--lang", ctx.opts.lang, help_text("help.global.lang"))->check(CLI::IsMember({"en", "zh"}));
    app.parse_complete_callback([&] {
        if (ctx.opts.lang == "zh") set_language(Lang::Zh);
        if (ctx.opts.lang == "en") set_language(Lang::En);
        init_style(ctx.opts);
        ctx.reporter_impl = std::make_unique<TerminalReporter>(ctx.opts);
        ctx.reporter = ctx.reporter_impl.get();
    });
    register_all_commands(app, ctx);
    group_help_flags(app, help_text("help.group.options"));

    try {
        app.parse(argc, argv);
        make_ready_after(ctx);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);  // prints help/version or the parse error
        return rc == 0 ? 0 : static_cast<int>(ExitCode::Usage);
    } catch (const Failure& f) {
        report_error(ctx, f.error());
        return static_cast<int>(f.code());
    } catch (const std::exception& e) {
        report_error(ctx, make_error(ExitCode::Internal, "cli.internal", {{"what", e.what()}}));
        return static_cast<int>(ExitCode::Internal);
    }
    // A command that noticed Ctrl-C failed with ExitCode::Interrupted above; one that finished
    // anyway (the install had passed its commit point) reports what it did.
    return static_cast<int>(ctx.exit_code);
}

}  // namespace envfix::cli
