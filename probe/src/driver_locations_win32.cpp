// Where Windows puts the NVIDIA driver's user-space pieces: nvcuda.dll and nvml.dll in
// System32 (DynLib::open looks there for bare names); older drivers kept nvml.dll and
// nvidia-smi.exe under "NVIDIA Corporation\NVSMI" in Program Files; DCH drivers keep all of them
// in their DriverStore folder (System32\DriverStore\FileRepository\nv*.inf_amd64_<hash>\, with
// nvcuda64.dll there for nvcuda.dll), from which the installer copies what System32 gets — an
// install that left a copy out is still found there.
#include <windows.h>
#include <shlobj.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>

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
// `leaf` in the driver's DriverStore folders that hold it, the newest first (an update may leave
// the previous driver's folder behind).
std::vector<std::string> driver_store(const std::string& leaf) {
    namespace stdfs = std::filesystem;
    const auto s32 = system32();
    if (s32.empty()) return {};
    std::vector<std::pair<stdfs::file_time_type, std::string>> found;
    std::error_code ec;
    for (stdfs::directory_iterator it(stdfs::u8path(s32 + "DriverStore\\FileRepository"), ec), end; !ec && it != end; it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (name.size() < 3 || (name[0] != 'n' && name[0] != 'N') || (name[1] != 'v' && name[1] != 'V') ||
            name.find(".inf_") == std::string::npos)
            continue;
        const auto file = it->path() / leaf;
        std::error_code fec;
        if (auto t = stdfs::last_write_time(file, fec); !fec) found.emplace_back(t, file.string());
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (auto& f : found) out.push_back(std::move(f.second));
    return out;
}

void append(std::vector<std::string>& to, std::vector<std::string> more) {
    for (auto& m : more) to.push_back(std::move(m));
}
}  // namespace

std::vector<std::string> default_libcuda_names() {
    std::vector<std::string> out{"nvcuda.dll"};
    append(out, driver_store("nvcuda64.dll"));
    return out;
}

std::vector<std::string> default_libnvml_names() {
    std::vector<std::string> out{"nvml.dll"};
    if (auto f = nvsmi_folder(); !f.empty()) out.push_back(f + "nvml.dll");
    append(out, driver_store("nvml.dll"));
    return out;
}

std::vector<std::string> default_nvidia_smi_paths() {
    std::vector<std::string> out{"nvidia-smi.exe"};
    if (auto s = system32(); !s.empty()) out.push_back(s + "nvidia-smi.exe");
    if (auto f = nvsmi_folder(); !f.empty()) out.push_back(f + "nvidia-smi.exe");
    append(out, driver_store("nvidia-smi.exe"));
    return out;
}

}  // namespace envfix::probe
