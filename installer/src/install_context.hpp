#pragma once
// What every stage of one install (install.cpp) reads: the environment, the request, where its
// files go, and the -vv clock of its phases.
#include <chrono>
#include <filesystem>
#include <vector>

#include "envfix/common/platform.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "envfix/standards/tags.hpp"

namespace envfix::installer {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// -vv: how long each phase took, with this thread's CPU time, waits and preemptions in it: a
// phase slower on one machine than another says whether it waited or was kept from the cores.
class PhaseClock {
public:
    explicit PhaseClock(Reporter& reporter) : reporter_(reporter), at_(Clock::now()), used_(platform::thread_usage()) {}
    void lap(const char* phase);

private:
    Reporter& reporter_;
    Clock::time_point at_;
    platform::ThreadUsage used_;
};

struct InstallContext {
    const probe::Environment& env;
    const InstallRequest& request;
    Reporter& reporter;
    InstallScheme scheme;
    ScriptTarget target;
    standards::SupportedTags supported;
    std::filesystem::path unpacked_root;  // the unpacked-wheel cache
    std::vector<std::filesystem::path> areas;  // the folders a transaction may change
    PhaseClock clock;
    void lap(const char* phase) { clock.lap(phase); }
};

// Errors: EnvBroken (no interpreter to run), PermissionDenied (EXTERNALLY-MANAGED, unless the
// request breaks system packages), the install scheme's.
Expected<InstallContext> make_install_context(const probe::Environment& env, const InstallRequest& request, Reporter& reporter);

}  // namespace envfix::installer
