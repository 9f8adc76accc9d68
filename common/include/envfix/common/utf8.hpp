#pragma once
// envfix's narrow strings are UTF-8 on every OS: arguments, environment variables, the text of
// files it reads, paths made from them. Linux passes bytes through; Windows converts at the edges
// (docs/windows.md, "Non-ASCII paths").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envfix::utf8 {

// The command line as UTF-8 strings. Windows: the wide command line (the narrow argv is in the
// ANSI code page, where "张三" becomes "??"); elsewhere argv as given.
std::vector<std::string> arguments(int argc, char** argv);
// An environment variable's value as UTF-8 (Windows: _wgetenv); nullopt when unset.
std::optional<std::string> environment_variable(const std::string& name);

#ifdef _WIN32
std::wstring widen(std::string_view s);
std::string narrow(std::wstring_view w);
#endif

}  // namespace envfix::utf8
