#include <signal.h>

#include <atomic>

#include "envfix/common/interrupt.hpp"

namespace envfix {
namespace {
std::atomic<bool> g_interrupted{false};
void on_signal(int sig) {
    if (g_interrupted.exchange(true)) {
        // Second Ctrl-C: the user insists. The journal makes the next run recover.
        ::signal(sig, SIG_DFL);
        ::raise(sig);
    }
}
}  // namespace

void install_interrupt_handler() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
    ::signal(SIGPIPE, SIG_IGN);
}
bool interrupt_requested() { return g_interrupted.load(std::memory_order_relaxed); }
void request_interrupt() { g_interrupted = true; }

}  // namespace envfix
