// The ENVFIX_FAULT_AFTER test hook (fault.hpp).
#include "envfix/installer/fault.hpp"

#include <atomic>
#include <string>

#include "envfix/common/env.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"
#include "file_ops.hpp"

namespace envfix::installer {

namespace {

struct FaultSetting {
    uint64_t after = 0;  // 0: off
    bool interrupt = false;
};

const FaultSetting& setting() {
    static const FaultSetting s = [] {
        FaultSetting f;
        auto v = env::get(EnvVar::EnvfixFaultAfter);
        if (!v) return f;
        std::string text = *v;
        if (text.ends_with(":int")) {
            f.interrupt = true;
            text.resize(text.size() - 4);
        }
        auto n = str::to_int(text);
        if (n && *n > 0) f.after = static_cast<uint64_t>(*n);
        return f;
    }();
    return s;
}

std::atomic<uint64_t> g_passed{0};

}  // namespace

void fault_point() {
    uint64_t n = g_passed.fetch_add(1, std::memory_order_relaxed) + 1;
    const auto& s = setting();
    if (s.after == 0 || n != s.after) return;
    if (s.interrupt) {
        request_interrupt();
        return;
    }
    fileops::kill_self();
}

uint64_t fault_points_passed() { return g_passed.load(std::memory_order_relaxed); }

}  // namespace envfix::installer
