// The environment's lock in the install's own words (env_lock.hpp).
#include "envfix/installer/env_lock.hpp"

namespace envfix::installer {

Expected<fs::FileLock> lock_environment(const std::filesystem::path& root, bool wait, Reporter& reporter) {
    return fs::FileLock::acquire(root, {.target = fs::FileLock::Target::Folder,
                                        .wait = wait,
                                        .on_wait = [&](const Message& m) { reporter.info(m); },
                                        .words = {.locked = "install.locked",
                                                  .waiting = "install.lock_waiting",
                                                  .failed = "install.lock_failed",
                                                  .interrupted = "install.interrupted",
                                                  .unopenable = ExitCode::EnvNotFound}});
}

}  // namespace envfix::installer
