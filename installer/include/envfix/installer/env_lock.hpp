#pragma once
// One lock per environment, so two envfix processes never change it at once. POSIX: flock()
// on the environment's folder itself, so taking the lock writes nothing into the environment;
// the holder's pid is read from /proc/locks on Linux. Windows: a named mutex derived from the
// folder's path (released by the system when its holder dies).
//
//   auto lock = EnvLock::acquire(env.root, /*wait=*/false, reporter);  // Locked (64) when held
#include <filesystem>
#include <memory>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"

namespace envfix::installer {

class EnvLock {
public:
    // wait = false: ExitCode::Locked at once when another process holds it ("install.locked",
    // naming the folder and the holder's pid where known). wait = true: says it waits (info),
    // then blocks until the holder finishes.
    static Expected<EnvLock> acquire(const std::filesystem::path& root, bool wait, Reporter& reporter);
    EnvLock(EnvLock&&) noexcept;
    EnvLock& operator=(EnvLock&&) noexcept;
    ~EnvLock();

private:
    EnvLock() = default;
    intptr_t handle_ = -1;
};

}  // namespace envfix::installer
