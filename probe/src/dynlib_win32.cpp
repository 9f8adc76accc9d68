// Windows: LoadLibraryExW. A bare name ("nvcuda.dll") is looked up in System32 only, where the
// driver installs it, so a DLL of the same name in the current folder is never picked up; a
// path (ENVFIX_LIBCUDA) is loaded as given, its own folder searched for its dependencies.
#include <windows.h>

#include <iterator>

#include "dynlib.hpp"
#include "envfix/common/utf8.hpp"

namespace envfix::probe {

namespace {
using utf8::narrow;
using utf8::widen;

std::string last_error_text(DWORD code) {
    wchar_t* buf = nullptr;
    DWORD len = ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                     FORMAT_MESSAGE_IGNORE_INSERTS,
                                 nullptr, code, 0, reinterpret_cast<wchar_t*>(&buf), 0, nullptr);
    std::string text = buf ? narrow({buf, len}) : std::string();
    if (buf) ::LocalFree(buf);
    // System messages end in a full stop and a line break; the reason goes inside a sentence.
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '.')) text.pop_back();
    return text.empty() ? "error " + std::to_string(code) : text;
}

bool is_path(const std::string& name) {
    return name.find('\\') != std::string::npos || name.find('/') != std::string::npos;
}
}  // namespace

std::optional<DynLib> DynLib::open(const std::string& name, std::string& error) {
    std::wstring w = widen(name);
    DWORD flags = is_path(name) ? LOAD_WITH_ALTERED_SEARCH_PATH : LOAD_LIBRARY_SEARCH_SYSTEM32;
    HMODULE h = ::LoadLibraryExW(w.c_str(), nullptr, flags);
    if (!h) {
        error = last_error_text(::GetLastError());
        return std::nullopt;
    }
    return DynLib(reinterpret_cast<void*>(h));
}

void* DynLib::symbol(const char* name) const {
    return reinterpret_cast<void*>(::GetProcAddress(reinterpret_cast<HMODULE>(handle_), name));
}

std::string DynLib::path() const {
    wchar_t buf[MAX_PATH * 4];
    DWORD n = ::GetModuleFileNameW(reinterpret_cast<HMODULE>(handle_), buf, static_cast<DWORD>(std::size(buf)));
    return n ? narrow({buf, n}) : std::string();
}

}  // namespace envfix::probe
