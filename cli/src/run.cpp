#include <CLI/CLI.hpp>

#include <cstdio>

#include "context.hpp"
#include "envfix/common/error.hpp"
#include "envfix/common/interrupt.hpp"
#include "output.hpp"
#include "ready_trees.hpp"
#include "style.hpp"
#include "terminal_reporter.hpp"

#ifndef ENVFIX_VERSION
#define ENVFIX_VERSION "0.0.0"
#endif

namespace envfix::cli {

namespace {

void report_error(const Context& ctx, const Error& e) {
    std::string text = render(e.message);
    std::string line = "envfix: " + paint_err("error:", Tone::Bad) + " " + text + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    if (ctx.opts.json) {
        Json j;
        j["schema_version"] = kJsonSchemaVersion;
        j["warnings"] = warnings_json(ctx);  // the why of some failures (snapshots skipped as unreadable)
        j["error"] = error_json(e);
        print_json(j);
    }
}

}  // namespace

int run(int argc, char** argv) {
    install_interrupt_handler();
    set_language(language_from_environment());

    Context ctx;
    CLI::App app{"envfix: ends \"no kernel image is available for execution on the device\" by installing "
                 "the framework build that runs on your GPU and driver.",
                 "envfix"};
    app.set_version_flag("-V,--version", std::string("envfix ") + ENVFIX_VERSION);
    app.require_subcommand(1);
    app.fallthrough();  // global options are accepted after the subcommand too
    app.add_flag("--json", ctx.opts.json, "print one JSON document on stdout (docs/json.md)");
    app.add_flag("-v,--verbose", ctx.opts.verbosity, "more detail on stderr");
    app.add_flag("-q,--quiet", ctx.opts.quiet, "only warnings and errors");
    app.add_flag("-y,--yes", ctx.opts.yes, "answer yes to questions (scripts)");
    app.add_flag("--no-color", ctx.opts.no_color, "no colours");
    app.add_option("--lang", ctx.opts.lang, "language of messages: en or zh")->check(CLI::IsMember({"en", "zh"}));
    app.parse_complete_callback([&] {
        if (ctx.opts.lang == "zh") set_language(Lang::Zh);
        if (ctx.opts.lang == "en") set_language(Lang::En);
        init_style(ctx.opts);
        ctx.reporter_impl = std::make_unique<TerminalReporter>(ctx.opts);
        ctx.reporter = ctx.reporter_impl.get();
    });
    register_all_commands(app, ctx);

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
