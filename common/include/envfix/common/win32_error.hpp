#pragma once
// Windows error codes (GetLastError) in envfix's terms, shared by the *_win32.cpp files of every
// layer. Defined in common/src/fs_win32.cpp; declared on Windows only.
#ifdef _WIN32
#include <filesystem>
#include <string>

#include "envfix/common/error.hpp"
#include "envfix/common/expected.hpp"

namespace envfix::win32 {

// The system's sentence for the code, trimmed.
std::string error_text(unsigned long code);
// Disk full → DiskFull; access denied, write-protected, sharing or lock violations →
// PermissionDenied; anything else Internal.
ExitCode exit_code_for(unsigned long code);
// "fs.write_failed" for `path`, with the code's exit code and sentence.
Unexpected<Error> write_error(const std::filesystem::path& path, unsigned long code);

}  // namespace envfix::win32
#endif
