// Where Windows puts the NVIDIA driver's user-space pieces: nvcuda.dll and nvml.dll in
// System32 (DynLib::open looks there for bare names); older drivers kept nvml.dll and
// nvidia-smi.exe under "NVIDIA Corporation\NVSMI" in Program Files.
#include <windows.h>
#include <shlobj.h>

#include <string>

#include "dynlib.hpp"
#include "envfix/common/utf8.hpp"

namespace envfix::probe {

namespace {
using utf8::narrow;

std::string nvsmi_folder() {
    PWSTR folder = nullptr;
    std::string out;
    if (SUCCEEDED(::SHGetKnownFolderPath(FOLDERID_ProgramFiles, 0, nullptr, &folder)) && folder)
        out = narrow(folder) + "\\NVIDIA Corporation\\NVSMI\\";
    if (folder) ::CoTaskMemFree(folder);
    return out;
}

std::string system32() {
    wchar_t buf[MAX_PATH];
    UINT n = ::GetSystemDirectoryW(buf, MAX_PATH);
    return n ? narrow({buf, n}) + "\\" : std::string();
}
}  // namespace

std::vector<std::string> default_libcuda_names() { return {"nvcuda.dll"}; }

std::vector<std::string> default_libnvml_names() {
    std::vector<std::string> out{"nvml.dll"};
    if (auto f = nvsmi_folder(); !f.empty()) out.push_back(f + "nvml.dll");
    return out;
}

std::vector<std::string> default_nvidia_smi_paths() {
    std::vector<std::string> out{"nvidia-smi.exe"};
    if (auto s = system32(); !s.empty()) out.push_back(s + "nvidia-smi.exe");
    if (auto f = nvsmi_folder(); !f.empty()) out.push_back(f + "nvidia-smi.exe");
    return out;
}

}  // namespace envfix::probe
