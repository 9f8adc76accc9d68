#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace envfix::platform {

enum class Os { Linux, Windows, MacOs, Other };
Os current_os();
std::string_view os_name(Os os);  // "linux", "windows", "macos", "other"
std::string_view machine();        // "x86_64", "aarch64", ... (uname -m / PROCESSOR_ARCHITECTURE)
bool is_wsl();                     // Linux under WSL (reads /proc/version)
// This boot's identity, read from `file` (Linux's boot_id; tests give another); nullopt where
// there is none (Windows, macOS, an unreadable or empty file).
std::optional<std::string> boot_id(const std::filesystem::path& file = "/proc/sys/kernel/random/boot_id");
bool stdout_is_terminal();
bool stderr_is_terminal();
int terminal_width();              // 80 when unknown
// Called once at start. Windows: a console shows envfix's UTF-8 text (its output code page is
// 65001 while envfix runs, put back at exit, so Chinese reads right on a code page 936 console)
// and takes the progress line's VT sequences; pipes and files get UTF-8 bytes either way.
// Elsewhere nothing.
void prepare_console();
// Windows: the user's display language is Chinese (GetUserDefaultUILanguage), the message
// layer's last choice after --lang, ENVFIX_LANG and the locale variables. Elsewhere false.
bool ui_language_is_chinese();
// Called once at start: memory freed by worker threads goes back to the system (glibc keeps
// large blocks in each thread's arena otherwise; docs/performance.md, "Peak memory of a cold install").
void bound_allocator();
// Called once at start, before any thread: the process's descriptor table made as large as an
// install will use (up to 4096 entries, within RLIMIT_NOFILE). Linux grows the table of a process
// with several threads only after an RCU grace period (expand_fdtable: synchronize_rcu), which
// holds a warm install 10-40 ms on the GPU machine and a cold one four times as long; grown while
// the process has one thread, it waits for nothing (docs/performance.md).
// Returns the table's size now (0 where unknown, and on Windows, whose handles grow otherwise).
int reserve_descriptor_table();
// Gives the heap's free memory back to the system (every thread's arena): after a phase with
// many threads, before one that peaks on its own.
void release_free_memory();
// How far a thread yields. Ahead: work done ahead of need, beside transfers that must not be
// slowed (Linux: nice 10). Idle: work needed after that work ends, beside it (nice 19: it takes
// the cores the others leave).
enum class ThreadPriority { Ahead, Idle };
// The calling thread (and the threads it starts) yields the cores to the others when they are
// all busy. Linux: for this thread alone; elsewhere nothing.
void lower_thread_priority(ThreadPriority how = ThreadPriority::Ahead);

// What the calling thread has used so far: CPU time (user + system), and how often it stopped
// because it waited (a lock, the disk) or was preempted while it could run. Tells a step that
// works slowly from one that waits (-vv). Linux: getrusage(RUSAGE_THREAD); Windows: the CPU time.
struct ThreadUsage {
    std::chrono::microseconds cpu{0};
    long waits = 0, preempted = 0;
};
ThreadUsage thread_usage();

}  // namespace envfix::platform
