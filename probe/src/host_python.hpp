#pragma once
// What differs between the hosts envfix runs on when looking for Python (host_python_posix.cpp,
// host_python_win32.cpp).
#include <filesystem>
#include <optional>

namespace envfix::probe {

// The interpreter a user gets by typing python3 (posix) / python (Windows) in a shell.
std::optional<std::filesystem::path> host_python_on_path();

}  // namespace envfix::probe
