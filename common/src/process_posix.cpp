// POSIX process runner: fork + execve, pipes read with poll(), a new process group so a
// timeout can kill the child and everything it started.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "envfix/common/env.hpp"
#include "envfix/common/process.hpp"
#include "envfix/common/strings.hpp"

extern char** environ;

namespace envfix {

namespace stdfs = std::filesystem;

std::optional<stdfs::path> find_program(const std::string& name, const std::optional<std::string>& path_value) {
    if (name.find('/') != std::string::npos) {
        if (::access(name.c_str(), X_OK) == 0) return stdfs::path(name);
        return std::nullopt;
    }
    std::string path = path_value ? *path_value : env::get_or(EnvVar::Path, "/usr/local/bin:/usr/bin:/bin");
    for (auto dir : str::split(path, ':')) {
        if (dir.empty()) dir = ".";
        stdfs::path candidate = stdfs::path(std::string(dir)) / name;
        std::error_code ec;
        if (::access(candidate.c_str(), X_OK) == 0 && !stdfs::is_directory(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

namespace {

struct Pipe {
    int fd[2] = {-1, -1};
    bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
    void close_end(int i) {
        if (fd[i] >= 0) ::close(fd[i]);
        fd[i] = -1;
    }
    ~Pipe() { close_end(0); close_end(1); }
};

std::vector<std::string> build_environment(const ProcessSpec& spec) {
    std::map<std::string, std::string> vars;
    if (!spec.clear_env) {
        for (char** e = environ; e && *e; ++e) {
            std::string_view kv(*e);
            auto eq = kv.find('=');
            if (eq == std::string_view::npos) continue;
            vars[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
        }
    }
    for (const auto& name : spec.unset_env) vars.erase(name);
    for (const auto& [k, v] : spec.set_env) vars[k] = v;
    std::vector<std::string> out;
    out.reserve(vars.size());
    for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
    return out;
}

}  // namespace

Expected<ProcessResult> run_process(const ProcessSpec& spec) {
    using clock = std::chrono::steady_clock;
    // A child that exits before reading its stdin must not kill us with SIGPIPE: the write
    // then fails with EPIPE instead. Only a default disposition is changed.
    static const bool sigpipe_ignored = [] {
        struct sigaction old {};
        if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
        return true;
    }();
    (void)sigpipe_ignored;
    if (spec.argv.empty())
        return fail(ExitCode::Internal, "process.start_failed", {{"program", "(none)"}, {"reason", "empty argv"}});

    // Resolve the program with the child's PATH before forking (only async-signal-safe calls after).
    std::optional<std::string> child_path;
    for (const auto& [k, v] : spec.set_env)
        if (k == "PATH") child_path = v;
    auto program = find_program(spec.argv[0], child_path);
    if (!program)
        return fail(ExitCode::Internal, "process.start_failed",
                    {{"program", spec.argv[0]}, {"reason", render(msg("reason.not_executable"))}});

    std::vector<std::string> env_strings = build_environment(spec);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_copy = spec.argv;
    std::vector<char*> argv;
    for (auto& s : argv_copy) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::string prog = program->string();
    std::string cwd = spec.cwd ? spec.cwd->string() : std::string();

    Pipe in, out, err, status;
    if (!in.open() || !out.open() || !err.open() || !status.open())
        return fail(ExitCode::Internal, "process.start_failed", {{"program", prog}, {"reason", std::strerror(errno)}});

    auto start = clock::now();
    pid_t pid = ::fork();
    if (pid < 0)
        return fail(ExitCode::Internal, "process.start_failed", {{"program", prog}, {"reason", std::strerror(errno)}});
    if (pid == 0) {
        ::setpgid(0, 0);
        ::signal(SIGPIPE, SIG_DFL);
        ::dup2(in.fd[0], 0);
        if (spec.capture) {
            ::dup2(out.fd[1], 1);
            ::dup2(err.fd[1], 2);
        }
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
            int e = errno;
            (void)!::write(status.fd[1], &e, sizeof e);
            ::_exit(127);
        }
        ::execve(prog.c_str(), argv.data(), envp.data());
        int e = errno;
        (void)!::write(status.fd[1], &e, sizeof e);
        ::_exit(127);
    }
    in.close_end(0);
    out.close_end(1);
    err.close_end(1);
    status.close_end(1);

    // exec succeeded when the CLOEXEC status pipe closes without data.
    int child_errno = 0;
    ssize_t got;
    do { got = ::read(status.fd[0], &child_errno, sizeof child_errno); } while (got < 0 && errno == EINTR);
    if (got == sizeof child_errno) {
        ::waitpid(pid, nullptr, 0);
        return fail(ExitCode::Internal, "process.start_failed", {{"program", prog}, {"reason", std::strerror(child_errno)}});
    }

    ProcessResult result;
    size_t stdin_written = 0;
    if (spec.stdin_data.empty()) in.close_end(1);
    else ::fcntl(in.fd[1], F_SETFL, O_NONBLOCK);
    if (!spec.capture) { out.close_end(0); err.close_end(0); }

    auto deadline = start + spec.timeout;
    char buf[65536];
    while (out.fd[0] >= 0 || err.fd[0] >= 0 || in.fd[1] >= 0) {
        pollfd fds[3];
        int n = 0;
        int idx_out = -1, idx_err = -1, idx_in = -1;
        if (out.fd[0] >= 0) { idx_out = n; fds[n++] = {out.fd[0], POLLIN, 0}; }
        if (err.fd[0] >= 0) { idx_err = n; fds[n++] = {err.fd[0], POLLIN, 0}; }
        if (in.fd[1] >= 0) { idx_in = n; fds[n++] = {in.fd[1], POLLOUT, 0}; }
        int wait_ms = -1;
        if (spec.timeout.count() > 0) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
            if (left <= 0) { result.timed_out = true; break; }
            wait_ms = static_cast<int>(left);
        }
        int r = ::poll(fds, static_cast<nfds_t>(n), wait_ms);
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (r == 0) continue;
        auto drain = [&](int idx, Pipe& p, std::string& sink) {
            if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
            ssize_t k = ::read(p.fd[0], buf, sizeof buf);
            if (k > 0) {
                size_t room = spec.max_output > sink.size() ? spec.max_output - sink.size() : 0;
                sink.append(buf, std::min(room, static_cast<size_t>(k)));
            } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
                p.close_end(0);
            }
        };
        drain(idx_out, out, result.out);
        drain(idx_err, err, result.err);
        if (idx_in >= 0 && (fds[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t k = ::write(in.fd[1], spec.stdin_data.data() + stdin_written, spec.stdin_data.size() - stdin_written);
            if (k > 0) stdin_written += static_cast<size_t>(k);
            if (k < 0 && errno != EAGAIN && errno != EINTR) in.close_end(1);
            if (stdin_written >= spec.stdin_data.size()) in.close_end(1);
        }
    }

    int wstatus = 0;
    while (true) {
        if (result.timed_out) {
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &wstatus, 0);
            break;
        }
        pid_t w = ::waitpid(pid, &wstatus, spec.timeout.count() > 0 ? WNOHANG : 0);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) break;
        if (w == 0) {
            if (clock::now() >= deadline) { result.timed_out = true; continue; }
            ::usleep(2000);
        }
    }
    if (!result.timed_out) {
        if (WIFEXITED(wstatus)) {
            result.exited = true;
            result.exit_code = WEXITSTATUS(wstatus);
        } else if (WIFSIGNALED(wstatus)) {
            result.signal = WTERMSIG(wstatus);
        }
    }
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
    return result;
}

namespace {

// glibc 2.34 and later: posix_spawn, which glibc makes as a vfork-like clone (no copy of this
// process's page tables: the fork of an install holding 50 MB took 2 ms of its end, the spawn
// 0.2 ms). A session of its own, so no terminal's Ctrl-C reaches it; stdin, stdout and stderr on
// the null device; every other descriptor closed (an environment's lock is a descriptor's
// flock); its folder "/" (no caller's folder or mount held). It returns once the program runs
// (exec's failure is its error), and the program is this process's child until this process
// exits (a command starts one, at its end), then init's. 0, an error number, or -1 where this
// C library has not all of it.
int spawn_detached(const std::string& prog, char* const argv[]) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    if (int e = ::posix_spawn_file_actions_init(&actions)) return e;
    if (int e = ::posix_spawnattr_init(&attr)) {
        ::posix_spawn_file_actions_destroy(&actions);
        return e;
    }
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    int e = ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDWR, 0);
    if (!e) e = ::posix_spawn_file_actions_adddup2(&actions, 0, 1);
    if (!e) e = ::posix_spawn_file_actions_adddup2(&actions, 0, 2);
    if (!e) e = ::posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (!e) e = ::posix_spawn_file_actions_addchdir_np(&actions, "/");
    if (!e) e = ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (!e) e = ::posix_spawnattr_setsigmask(&attr, &none);
    if (!e) e = ::posix_spawnattr_setsigdefault(&attr, &defaults);
    pid_t pid = -1;
    if (!e) e = ::posix_spawn(&pid, prog.c_str(), &actions, &attr, argv, environ);
    ::posix_spawnattr_destroy(&attr);
    ::posix_spawn_file_actions_destroy(&actions);
    return e;
#else
    (void)prog;
    (void)argv;
    return -1;
#endif
}

// Elsewhere (macOS, musl), or where the spawn failed (a kernel without close_range and no /proc
// for closefrom): a child in a session of its own makes a grandchild that init adopts, the same
// descriptors, folder and signals as above.
Expected<void> fork_detached(const std::string& prog, char* const argv[]) {
    const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0) return fail(ExitCode::Internal, "process.start_failed", {{"program", prog}, {"reason", std::strerror(errno)}});
    // Closed by the program's exec (CLOEXEC), or carrying exec's errno: read to its end, so this
    // returns once the program holds none of this process's descriptors any more.
    Pipe status;
    if (!status.open()) {
        const int e = errno;
        ::close(null_fd);
        return fail(ExitCode::Internal, "process.start_failed", {{"program", prog}, {"reason", std::strerror(e)}});
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int e = errno;
        ::close(null_fd);
        return fail(ExitCode::Internal, "process.start_failed", {{"program", prog}, {"reason", std::strerror(e)}});
    }
    if (pid == 0) {
        // Only async-signal-safe calls here.
        ::setsid();
        const pid_t g = ::fork();
        if (g != 0) ::_exit(g < 0 ? 127 : 0);
        ::dup2(null_fd, 0);
        ::dup2(null_fd, 1);
        ::dup2(null_fd, 2);
        // The status pipe as descriptor 3 (close-on-exec), then no other descriptor kept.
        if (status.fd[1] != 3) ::dup2(status.fd[1], 3);
        ::fcntl(3, F_SETFD, FD_CLOEXEC);
#if defined(__linux__) && defined(CLOSE_RANGE_UNSHARE)
        if (::close_range(4, ~0U, 0) != 0)  // a kernel older than 5.9
#endif
            for (int fd = 4; fd < 4096; ++fd) ::close(fd);
        ::signal(SIGPIPE, SIG_DFL);
        ::signal(SIGINT, SIG_DFL);
        if (::chdir("/") == 0) ::execv(prog.c_str(), argv);
        const int e = errno;
        (void)!::write(3, &e, sizeof e);
        ::_exit(127);
    }
    ::close(null_fd);
    status.close_end(1);
    int exit_status = 0;
    while (::waitpid(pid, &exit_status, 0) < 0 && errno == EINTR) {
    }
    int child_errno = 0;
    ssize_t got;
    do { got = ::read(status.fd[0], &child_errno, sizeof child_errno); } while (got < 0 && errno == EINTR);
    if (got == sizeof child_errno)
        return fail(ExitCode::Internal, "process.start_failed", {{"program", prog}, {"reason", std::strerror(child_errno)}});
    if (!WIFEXITED(exit_status) || WEXITSTATUS(exit_status) != 0)
        return fail(ExitCode::Internal, "process.start_failed", {{"program", prog}, {"reason", render(msg("reason.not_detached"))}});
    return {};
}

}  // namespace

Expected<void> start_detached(const std::vector<std::string>& argv_in) {
    if (argv_in.empty()) return fail(ExitCode::Internal, "process.start_failed", {{"program", "(none)"}, {"reason", "empty argv"}});
    auto program = find_program(argv_in[0]);
    if (!program)
        return fail(ExitCode::Internal, "process.start_failed",
                    {{"program", argv_in[0]}, {"reason", render(msg("reason.not_executable"))}});
    std::vector<std::string> argv_copy = argv_in;
    std::vector<char*> argv;
    for (auto& s : argv_copy) argv.push_back(s.data());
    argv.push_back(nullptr);
    const std::string prog = program->string();
    // A spawn that failed is tried again with fork, whose error (exec's own) is the one said.
    if (spawn_detached(prog, argv.data()) == 0) return {};
    return fork_detached(prog, argv.data());
}

std::optional<stdfs::path> current_executable() {
    std::error_code ec;
    auto p = stdfs::read_symlink("/proc/self/exe", ec);
    if (ec) return std::nullopt;
    return p;
}

}  // namespace envfix
