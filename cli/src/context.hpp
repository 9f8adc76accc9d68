#pragma once
// What every command gets: the global options and the reporter the libraries talk to.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "envfix/common/exit_codes.hpp"
#include "envfix/common/reporter.hpp"

namespace CLI { class App; }
namespace envfix::probe { class FactsCache; }

namespace envfix::cli {

struct GlobalOptions {
    bool json = false;       // one JSON document on stdout, nothing else there
    int verbosity = 0;       // -v: debug notes on stderr
    bool quiet = false;      // -q: warnings and errors only
    bool yes = false;        // answer yes to questions; refuse where consent is needed and absent
    bool no_color = false;
    std::string lang;        // en | zh (default from the environment)
};

class TerminalReporter;

struct Context {
    GlobalOptions opts;
    std::unique_ptr<TerminalReporter> reporter_impl;
    Reporter* reporter = nullptr;
    // Set by a command that finished but has something to report through its exit code
    // (doctor finding an unserved GPU); errors are thrown as Failure instead.
    ExitCode exit_code = ExitCode::Ok;
    // An install asked for ready trees: made once the command ends (ready_trees.hpp).
    bool ready_trees_wanted = false;
    // The note that the current folder chose the app was given (target_options.hpp).
    bool told_current_folder = false;
    // The interpreter facts cache, loaded once by the first target resolved (facts_cache(ctx)),
    // and the interpreters of the environments resolved: where the command changed their .pth
    // files, their facts are learnt again once it ends (ready_trees.hpp).
    std::shared_ptr<probe::FactsCache> facts;
    std::vector<std::filesystem::path> interpreters;
    // When the command began (after the program was loaded): -vv says how long its steps took
    // from here, the time a warm install spends before its own steps among them.
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    long long ms_since_start() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    }
};

// One function per subcommand file (cmd_<verb>.cpp), listed in commands.cpp.
using RegisterCommand = void (*)(CLI::App& app, Context& ctx);
void register_all_commands(CLI::App& app, Context& ctx);

}  // namespace envfix::cli
