// Windows: LoadLibraryExW. A bare name ("nvcuda.dll") is looked up in System32 only, where the
// driver installs it, so a DLL of the same name in the current folder is never picked up; a
// path (ENVFIX_LIBCUDA) is loaded as given, its own folder searched for its dependencies.
#include <windows.h>

#include <iterator>

#include "dynlib.hpp"

namespace envfix::probe {

namespace {
std::wstring widen(const std::string& s) {
    if (s.empty()) return {};
    int n = ::MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
    std::wstring w(static_cast<size_t>(n), L'\0');
    ::MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), w.data(), n);
    return w;
}

std::string narrow(const wchar_t* w, size_t len) {
    if (len == 0) return {};
    int n = ::WideCharToMultiByte(CP_UTF8, 0, w, static_cast<int>(len), nullptr, 0, nullptr, nullptr);
    std::string s(static_cast<size_t>(n), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, w, static_cast<int>(len), s.data(), n, nullptr, nullptr);
    return s;
}

std::string last_error_text(DWORD code) {
    wchar_t* buf = nullptr;
    DWORD len = ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                     FORMAT_MESSAGE_IGNORE_INSERTS,
                                 nullptr, code, 0, reinterpret_cast<wchar_t*>(&buf), 0, nullptr);
    std::string text = buf ? narrow(buf, len) : std::string();
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
    return n ? narrow(buf, n) : std::string();
}

}  // namespace envfix::probe
