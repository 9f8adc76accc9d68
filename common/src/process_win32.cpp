// Windows process runner: CreateProcessW with an argv quoted per the MSVCRT rules, pipes
// drained by two threads, a job object so a timeout ends the child and what it started.
#include <windows.h>

#include <map>
#include <thread>

#include "envfix/common/env.hpp"
#include "envfix/common/process.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/common/utf8.hpp"
#include "envfix/common/win32_error.hpp"

namespace envfix {

namespace stdfs = std::filesystem;

namespace {

using utf8::widen;

// CommandLineToArgvW-compatible quoting.
void append_quoted(std::wstring& cmd, const std::wstring& arg) {
    if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
        cmd += arg;
        return;
    }
    cmd += L'"';
    for (size_t i = 0;; ++i) {
        size_t backslashes = 0;
        while (i < arg.size() && arg[i] == L'\\') { ++i; ++backslashes; }
        if (i == arg.size()) { cmd.append(backslashes * 2, L'\\'); break; }
        if (arg[i] == L'"') { cmd.append(backslashes * 2 + 1, L'\\'); cmd += L'"'; }
        else { cmd.append(backslashes, L'\\'); cmd += arg[i]; }
    }
    cmd += L'"';
}

std::string last_error_text() { return win32::error_text(GetLastError()); }

}  // namespace

std::optional<stdfs::path> find_program(const std::string& name, const std::optional<std::string>& path_value) {
    auto exists = [](const stdfs::path& p) { std::error_code ec; return stdfs::is_regular_file(p, ec); };
    stdfs::path direct(name);
    if (direct.has_parent_path()) {
        if (exists(direct)) return direct;
        if (exists(stdfs::path(name + ".exe"))) return stdfs::path(name + ".exe");
        return std::nullopt;
    }
    std::string path = path_value ? *path_value : env::get_or(EnvVar::Path, "");
    for (auto dir : str::split(path, ';')) {
        if (dir.empty()) continue;
        for (const char* ext : {"", ".exe", ".bat", ".cmd"}) {
            stdfs::path candidate = stdfs::path(std::string(dir)) / (name + ext);
            if (exists(candidate)) return candidate;
        }
    }
    return std::nullopt;
}

Expected<ProcessResult> run_process(const ProcessSpec& spec) {
    using clock = std::chrono::steady_clock;
    if (spec.argv.empty())
        return fail(ExitCode::Internal, "process.start_failed", {{"program", "(none)"}, {"reason", "empty argv"}});
    std::optional<std::string> child_path;
    for (const auto& [k, v] : spec.set_env)
        if (str::iequals(k, "PATH")) child_path = v;
    auto program = find_program(spec.argv[0], child_path);
    if (!program)
        return fail(ExitCode::Internal, "process.start_failed", {{"program", spec.argv[0]}, {"reason", render(msg("reason.not_found"))}});

    std::wstring cmd;
    for (size_t i = 0; i < spec.argv.size(); ++i) {
        if (i) cmd += L' ';
        append_quoted(cmd, widen(i == 0 ? program->string() : spec.argv[i]));
    }

    // Environment block: sorted, case-insensitive names, double-NUL terminated.
    std::map<std::wstring, std::wstring> vars;
    auto key = [](std::wstring k) { for (auto& c : k) c = static_cast<wchar_t>(towupper(c)); return k; };
    std::map<std::wstring, std::wstring> original_case;
    if (!spec.clear_env) {
        LPWCH block = GetEnvironmentStringsW();
        for (LPWCH p = block; p && *p; p += wcslen(p) + 1) {
            std::wstring kv(p);
            auto eq = kv.find(L'=', 1);
            if (eq == std::wstring::npos) continue;
            vars[key(kv.substr(0, eq))] = kv.substr(eq + 1);
            original_case[key(kv.substr(0, eq))] = kv.substr(0, eq);
        }
        FreeEnvironmentStringsW(block);
    }
    for (const auto& n : spec.unset_env) vars.erase(key(widen(n)));
    for (const auto& [k, v] : spec.set_env) {
        vars[key(widen(k))] = widen(v);
        original_case[key(widen(k))] = widen(k);
    }
    std::wstring env_block;
    for (const auto& [k, v] : vars) {
        env_block += original_case[k] + L"=" + v;
        env_block += L'\0';
    }
    env_block += L'\0';

    SECURITY_ATTRIBUTES sa{sizeof sa, nullptr, TRUE};
    HANDLE out_r = nullptr, out_w = nullptr, err_r = nullptr, err_w = nullptr, in_r = nullptr, in_w = nullptr;
    CreatePipe(&out_r, &out_w, &sa, 0);
    CreatePipe(&err_r, &err_w, &sa, 0);
    CreatePipe(&in_r, &in_w, &sa, 0);
    SetHandleInformation(out_r, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(err_r, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(in_w, HANDLE_FLAG_INHERIT, 0);

    STARTUPINFOW si{};
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = in_r;
    si.hStdOutput = spec.capture ? out_w : GetStdHandle(STD_OUTPUT_HANDLE);
    si.hStdError = spec.capture ? err_w : GetStdHandle(STD_ERROR_HANDLE);
    PROCESS_INFORMATION pi{};
    std::wstring cwd = spec.cwd ? spec.cwd->wstring() : std::wstring();
    HANDLE job = CreateJobObjectW(nullptr, nullptr);
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);

    auto start = clock::now();
    BOOL ok = CreateProcessW(nullptr, cmd.data(), nullptr, nullptr, TRUE,
                             CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW | CREATE_SUSPENDED, env_block.data(),
                             cwd.empty() ? nullptr : cwd.c_str(), &si, &pi);
    CloseHandle(out_w);
    CloseHandle(err_w);
    CloseHandle(in_r);
    if (!ok) {
        std::string why = last_error_text();
        CloseHandle(out_r); CloseHandle(err_r); CloseHandle(in_w); CloseHandle(job);
        return fail(ExitCode::Internal, "process.start_failed", {{"program", program->string()}, {"reason", why}});
    }
    AssignProcessToJobObject(job, pi.hProcess);
    ResumeThread(pi.hThread);

    ProcessResult result;
    auto reader = [&spec](HANDLE h, std::string& sink) {
        char buf[65536];
        DWORD n = 0;
        while (ReadFile(h, buf, sizeof buf, &n, nullptr) && n > 0) {
            size_t room = spec.max_output > sink.size() ? spec.max_output - sink.size() : 0;
            sink.append(buf, std::min<size_t>(room, n));
        }
    };
    std::thread t_out(reader, out_r, std::ref(result.out));
    std::thread t_err(reader, err_r, std::ref(result.err));
    std::thread t_in([&] {
        DWORD written = 0;
        if (!spec.stdin_data.empty())
            WriteFile(in_w, spec.stdin_data.data(), static_cast<DWORD>(spec.stdin_data.size()), &written, nullptr);
        CloseHandle(in_w);
    });

    DWORD wait = WaitForSingleObject(pi.hProcess, spec.timeout.count() > 0 ? static_cast<DWORD>(spec.timeout.count()) : INFINITE);
    if (wait == WAIT_TIMEOUT) {
        result.timed_out = true;
        TerminateJobObject(job, 1);
        WaitForSingleObject(pi.hProcess, INFINITE);
    } else {
        DWORD code = 0;
        GetExitCodeProcess(pi.hProcess, &code);
        result.exited = true;
        result.exit_code = static_cast<int>(code);
    }
    t_in.join();
    CloseHandle(job);  // kills what the child left running (KILL_ON_JOB_CLOSE)
    t_out.join();
    t_err.join();
    CloseHandle(out_r);
    CloseHandle(err_r);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
    return result;
}

Expected<void> start_detached(const std::vector<std::string>& argv) {
    if (argv.empty()) return fail(ExitCode::Internal, "process.start_failed", {{"program", "(none)"}, {"reason", "empty argv"}});
    auto program = find_program(argv[0]);
    if (!program)
        return fail(ExitCode::Internal, "process.start_failed", {{"program", argv[0]}, {"reason", render(msg("reason.not_executable"))}});
    std::wstring cmd;
    for (size_t i = 0; i < argv.size(); ++i) {
        if (i) cmd += L' ';
        append_quoted(cmd, i == 0 ? program->wstring() : widen(argv[i]));
    }
    STARTUPINFOW si{};
    si.cb = sizeof si;
    PROCESS_INFORMATION pi{};
    // No console, no handle inherited, a process group of its own (no Ctrl-C from this console),
    // out of the caller's job where the job allows it (a CI job object that kills what it holds
    // when it closes), and its working folder the program's own (not holding the caller's).
    const std::wstring folder = program->parent_path().wstring();
    const DWORD flags = DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_UNICODE_ENVIRONMENT;
    if (!CreateProcessW(program->wstring().c_str(), cmd.data(), nullptr, nullptr, FALSE, flags | CREATE_BREAKAWAY_FROM_JOB, nullptr,
                        folder.empty() ? nullptr : folder.c_str(), &si, &pi) &&
        !CreateProcessW(program->wstring().c_str(), cmd.data(), nullptr, nullptr, FALSE, flags, nullptr,
                        folder.empty() ? nullptr : folder.c_str(), &si, &pi))
        return fail(ExitCode::Internal, "process.start_failed", {{"program", program->string()}, {"reason", last_error_text()}});
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    return {};
}

std::optional<stdfs::path> current_executable() {
    std::wstring buf(32768, L'\0');
    const DWORD n = GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
    if (n == 0 || n >= buf.size()) return std::nullopt;
    buf.resize(n);
    return stdfs::path(buf);
}

}  // namespace envfix
