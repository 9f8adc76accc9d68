#pragma once
// The one process runner: argv only (never a shell), optional timeout, output captured.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix {

struct ProcessSpec {
    std::vector<std::string> argv;                            // argv[0] is a path or a PATH name
    std::vector<std::pair<std::string, std::string>> set_env;  // added / overridden
    std::vector<std::string> unset_env;
    bool clear_env = false;                                   // start from an empty environment
    std::optional<std::filesystem::path> cwd;
    std::chrono::milliseconds timeout{0};                     // 0: none
    std::string stdin_data;                                   // written to the child's stdin
    bool capture = true;                                      // false: inherit stdout/stderr
    size_t max_output = 64u << 20;                            // per stream, the rest is dropped
};

struct ProcessResult {
    int exit_code = -1;  // valid when exited
    int signal = 0;      // POSIX: terminating signal, 0 if none
    bool exited = false;
    bool timed_out = false;
    std::string out;
    std::string err;
    std::chrono::milliseconds elapsed{0};
    bool ok() const { return exited && exit_code == 0; }
};

// Fails (ExitCode::Internal, key "process.start_failed") only when the program cannot be
// started; a program that runs and fails is a ProcessResult.
Expected<ProcessResult> run_process(const ProcessSpec& spec);

// Starts `argv` (this process's environment, no shell) detached: its own session, stdin,
// stdout and stderr on the null device, no other descriptor or handle inherited, its working
// folder "/" (Windows: the program's folder), not waited for; it goes on after this process
// exits. With glibc it stays this process's child (never reaped: a command starts one, at its
// end) until this process exits; elsewhere init's at once. Fails ("process.start_failed") only
// when it cannot be started.
Expected<void> start_detached(const std::vector<std::string>& argv);

// The running program's own file (to start it again), nullopt when the system does not say.
std::optional<std::filesystem::path> current_executable();

// First executable named `name` on PATH (or `path_value` when given).
std::optional<std::filesystem::path> find_program(const std::string& name,
                                                   const std::optional<std::string>& path_value = {});

}  // namespace envfix
