#pragma once
// One lock per environment, so two envfix processes never change it at once: the environment's
// folder itself locked (fs::FileLock's folder target), so taking it writes nothing into it.
//
//   ENVFIX_TRY(auto lock, lock_environment(env.root, /*wait=*/false, reporter));  // Locked (64)
#include <filesystem>

#include "envfix/common/file_lock.hpp"
#include "envfix/common/reporter.hpp"

namespace envfix::installer {

// wait = false: ExitCode::Locked at once when another process holds it ("install.locked",
// naming the folder and the holder's pid where known). wait = true: says it waits (info), then
// blocks until the holder finishes; Ctrl-C meanwhile exits Interrupted with nothing changed.
Expected<fs::FileLock> lock_environment(const std::filesystem::path& root, bool wait, Reporter& reporter);

}  // namespace envfix::installer
