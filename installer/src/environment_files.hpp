#pragma once
// The files that make a folder an environment: the interpreter and its links, pyvenv.cfg, the
// activation scripts, an embedded Python's ._pth, its DLLs and standard library zip. No wheel may
// write them and no RECORD — an old one, or one planted in an environment made elsewhere — may
// remove them: install refuses a wheel that writes one (BadWheel), and install, uninstall and
// rollback leave them where they are.
#include <filesystem>
#include <set>

#include "envfix/installer/wheel_plan.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::installer {

// Those of them that exist, lexically normal.
std::set<std::filesystem::path> environment_files(const probe::Environment& env, const InstallScheme& scheme);

}  // namespace envfix::installer
