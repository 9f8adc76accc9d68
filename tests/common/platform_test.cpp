// platform::reserve_descriptor_table, each case in a child process of its own: the table it
// grows is the process's, and it never shrinks; platform::thread_usage.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "envfix/common/platform.hpp"

using namespace envfix;

namespace {

#ifdef __linux__
int table_size() {  // the kernel's FDSize: entries in this process's descriptor table
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("FDSize:", 0) == 0) return std::stoi(line.substr(7));
    return -1;
}

int open_descriptors() {
    int n = 0;
    for (auto& e : std::filesystem::directory_iterator("/proc/self/fd")) (void)e, ++n;
    return n;
}

// Runs `fn` in a child; its text comes back through a pipe.
std::string in_child(const std::function<std::string()>& fn) {
    int p[2];
    if (::pipe(p) != 0) return "pipe failed";
    pid_t pid = ::fork();
    if (pid == 0) {
        ::close(p[0]);
        std::string out = fn();
        (void)!::write(p[1], out.data(), out.size());
        ::_exit(0);
    }
    ::close(p[1]);
    std::string out;
    char buf[256];
    for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    ::close(p[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return out;
}

void set_soft_limit(rlim_t soft) {
    rlimit l{};
    ::getrlimit(RLIMIT_NOFILE, &l);
    l.rlim_cur = std::min(soft, l.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &l);
}
#endif

}  // namespace

#ifdef __linux__
TEST(DescriptorTable, GrowsToWhatAnInstallUsesAndLeavesNothingOpen) {
    auto out = in_child([] {
        set_soft_limit(8192);
        rlimit l{};
        ::getrlimit(RLIMIT_NOFILE, &l);
        int before = open_descriptors();
        int size = platform::reserve_descriptor_table();
        int wanted = static_cast<int>(std::min<rlim_t>(l.rlim_cur, 4096));
        return std::to_string(size == wanted) + " " + std::to_string(table_size() >= wanted) + " " +
               std::to_string(open_descriptors() - before);
    });
    EXPECT_EQ(out, "1 1 0");
}

TEST(DescriptorTable, StaysWithinTheSoftLimit) {
    auto out = in_child([] {
        set_soft_limit(200);
        int size = platform::reserve_descriptor_table();
        // The kernel sizes tables in powers of two from 64 entries: 200 of them take 256 (more
        // where the parent left a descriptor above that open).
        return std::to_string(size) + " " + std::to_string(table_size() >= 256);
    });
    EXPECT_EQ(out, "200 1");
}

TEST(DescriptorTable, ALastEntryAlreadyTakenLeavesItOpen) {
    auto out = in_child([] {
        set_soft_limit(1024);
        int kept = ::dup2(2, 1023);  // as if inherited from the parent
        int size = platform::reserve_descriptor_table();
        return std::to_string(kept) + " " + std::to_string(size) + " " + std::to_string(::fcntl(1023, F_GETFD) >= 0);
    });
    EXPECT_EQ(out, "1023 1024 1");
}
#endif

#ifdef __linux__
// The -vv step lines' figures: CPU time grows with work done on this thread, waits with sleeps,
// and another thread's work is not counted.
TEST(ThreadUsage, CountsThisThreadsCpuAndWaits) {
    const auto before = platform::thread_usage();
    volatile uint64_t x = 0;  // busy until 20 ms of CPU are counted (a loaded machine takes longer)
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (platform::thread_usage().cpu - before.cpu < std::chrono::milliseconds(20) && std::chrono::steady_clock::now() < give_up)
        for (int i = 0; i < 100000; ++i) x = x + 1;
    for (int i = 0; i < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const auto after = platform::thread_usage();
    EXPECT_GE(after.cpu - before.cpu, std::chrono::milliseconds(20));
    EXPECT_GE(after.waits - before.waits, 3);
    std::thread([] {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
        while (std::chrono::steady_clock::now() < until) {
        }
    }).join();
    EXPECT_LT(platform::thread_usage().cpu - after.cpu, std::chrono::milliseconds(40));
}
#endif
