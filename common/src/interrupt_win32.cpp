#include <windows.h>

#include <atomic>

#include "envfix/common/interrupt.hpp"

namespace envfix {
namespace {
std::atomic<bool> g_interrupted{false};
BOOL WINAPI on_ctrl(DWORD type) {
    if (type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT) {
        return g_interrupted.exchange(true) ? FALSE : TRUE;
    }
    return FALSE;
}
}  // namespace

void install_interrupt_handler() { SetConsoleCtrlHandler(on_ctrl, TRUE); }
bool interrupt_requested() { return g_interrupted.load(std::memory_order_relaxed); }
void request_interrupt() { g_interrupted = true; }

}  // namespace envfix
