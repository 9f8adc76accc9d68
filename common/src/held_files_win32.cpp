// Which running program has which file loaded: every process's module list (Toolhelp), compared
// with the files by their full paths, case folded as Windows compares names.
#include <windows.h>
// after windows.h, which it needs
#include <tlhelp32.h>

#include <map>
#include <optional>

#include "envfix/common/held_files.hpp"
#include "envfix/common/utf8.hpp"

namespace envfix::fs {

namespace {

std::wstring folded(std::wstring s) {
    if (!s.empty()) ::CharUpperBuffW(s.data(), static_cast<DWORD>(s.size()));
    for (auto& c : s)
        if (c == L'/') c = L'\\';
    return s;
}

// The entry of `wanted` that is `module` or one of its folders (a move takes a whole folder out).
std::optional<size_t> entry_holding(const std::map<std::wstring, size_t>& wanted, const std::wstring& module) {
    for (size_t end = module.size(); end != std::wstring::npos && end > 0; end = module.rfind(L'\\', end - 1)) {
        auto it = wanted.find(module.substr(0, end));
        if (it != wanted.end()) return it->second;
    }
    return std::nullopt;
}

}  // namespace

std::vector<HeldFile> programs_holding(const std::vector<std::filesystem::path>& files) {
    std::map<std::wstring, size_t> wanted;  // folded path -> index in `files`
    for (size_t i = 0; i < files.size(); ++i) wanted.emplace(folded(files[i].lexically_normal().wstring()), i);
    if (wanted.empty()) return {};
    HANDLE procs = ::CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
    if (procs == INVALID_HANDLE_VALUE) return {};
    std::map<size_t, HeldFile> found;
    PROCESSENTRY32W pe{};
    pe.dwSize = sizeof pe;
    const DWORD self = ::GetCurrentProcessId();
    for (BOOL more = ::Process32FirstW(procs, &pe); more; more = ::Process32NextW(procs, &pe)) {
        if (pe.th32ProcessID == self || pe.th32ProcessID == 0) continue;
        HANDLE mods = ::CreateToolhelp32Snapshot(TH32CS_SNAPMODULE, pe.th32ProcessID);
        if (mods == INVALID_HANDLE_VALUE) continue;  // not ours to read, or gone
        MODULEENTRY32W me{};
        me.dwSize = sizeof me;
        for (BOOL m = ::Module32FirstW(mods, &me); m; m = ::Module32NextW(mods, &me)) {
            const auto i = entry_holding(wanted, folded(me.szExePath));
            if (i && !found.count(*i))
                found.emplace(*i, HeldFile{std::filesystem::path(me.szExePath), utf8::narrow(pe.szExeFile), pe.th32ProcessID});
        }
        ::CloseHandle(mods);
    }
    ::CloseHandle(procs);
    std::vector<HeldFile> out;
    for (auto& [i, h] : found) out.push_back(std::move(h));
    return out;
}

}  // namespace envfix::fs
