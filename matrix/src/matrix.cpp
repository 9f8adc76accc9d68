#include "envfix/matrix/matrix.hpp"

#include <algorithm>

#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::matrix {

std::string_view os_key(OsKind os) {
    switch (os) {
        case OsKind::Linux: return "linux";
        case OsKind::Windows: return "windows";
        case OsKind::MacOs: return "macos";
    }
    return "linux";
}

std::string_view cpu_key(CpuKind cpu) { return cpu == CpuKind::Aarch64 ? "aarch64" : "x86_64"; }

std::string Platform::key() const {
    // Apple calls its 64-bit ARM "arm64"; the wheel tags do too.
    if (os == OsKind::MacOs && cpu == CpuKind::Aarch64) return "macos-arm64";
    return std::string(os_key(os)) + "-" + std::string(cpu_key(cpu));
}

std::optional<OsKind> parse_os(std::string_view s) {
    std::string l = str::lower(str::trim(s));
    if (l == "linux") return OsKind::Linux;
    if (l == "windows" || l == "win32" || l == "win" || l == "nt") return OsKind::Windows;
    if (l == "macos" || l == "darwin" || l == "mac" || l == "osx") return OsKind::MacOs;
    return std::nullopt;
}

std::optional<CpuKind> parse_cpu(std::string_view s) {
    std::string l = str::lower(str::trim(s));
    if (l == "x86_64" || l == "amd64" || l == "x64") return CpuKind::X86_64;
    if (l == "aarch64" || l == "arm64") return CpuKind::Aarch64;
    return std::nullopt;
}

std::optional<Platform> host_platform() {
    auto os = parse_os(platform::os_name(platform::current_os()));
    auto cpu = parse_cpu(platform::machine());
    if (!os || !cpu) return std::nullopt;
    return Platform{*os, *cpu};
}

std::optional<Platform> Platform::parse(std::string_view key) {
    auto dash = key.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    auto os = parse_os(key.substr(0, dash));
    auto cpu = parse_cpu(key.substr(dash + 1));
    if (!os || !cpu) return std::nullopt;
    Platform p{*os, *cpu};
    if (p.key() != str::lower(key)) return std::nullopt;  // only the canonical spellings
    return p;
}

std::string_view to_string(Channel c) { return c == Channel::Nightly ? "nightly" : "stable"; }

std::string_view to_string(Confidence c) {
    switch (c) {
        case Confidence::Primary: return "primary";
        case Confidence::Measured: return "measured";
        case Confidence::ThirdParty: return "third-party";
        case Confidence::Unconfirmed: return "unconfirmed";
    }
    return "unconfirmed";
}

std::string_view to_string(VariantStatus s) {
    switch (s) {
        case VariantStatus::Official: return "official";
        case VariantStatus::Extra: return "extra";
        case VariantStatus::Experimental: return "experimental";
    }
    return "official";
}

std::string SourceRef::str() const { return line > 0 ? file + ":" + std::to_string(line) : file; }

const Build* Variant::build(const Platform& p) const {
    for (const auto& b : builds)
        if (b.platform == p) return &b;
    return nullptr;
}

const Variant* Release::variant(std::string_view name) const {
    for (const auto& v : variants)
        if (v.name == name) return &v;
    return nullptr;
}

std::vector<std::string> Release::python_for(const Platform& p) const {
    std::vector<std::string> out;
    for (const auto& py : python)
        if (offers_python(py, p)) out.push_back(py);
    return out;
}

bool Release::offers_python(std::string_view py, const Platform& p) const {
    if (std::find(python.begin(), python.end(), py) == python.end()) return false;
    for (const auto& [version, platforms] : python_limited)
        if (version == py) return std::find(platforms.begin(), platforms.end(), p) != platforms.end();
    return true;
}

const Toolkit* Matrix::toolkit(CudaVersion v) const {
    for (const auto& t : toolkits)
        if (t.version == v) return &t;
    return nullptr;
}

const Architecture* Matrix::architecture(ComputeCapability cc) const {
    for (const auto& a : architectures)
        if (a.cc == cc) return &a;
    return nullptr;
}

const CompatFloor* Matrix::floor(int cuda_major) const {
    for (const auto& f : floors)
        if (f.major == cuda_major) return &f;
    return nullptr;
}

const GpuDevice* Matrix::device(uint16_t pci_id) const {
    auto it = std::lower_bound(devices.begin(), devices.end(), pci_id, [](const GpuDevice& d, uint16_t id) { return d.pci_id < id; });
    return it != devices.end() && it->pci_id == pci_id ? &*it : nullptr;
}

std::optional<CudaVersion> Matrix::driver_cuda(const DriverVersion& d) const {
    const DriverBranch* best = nullptr;
    for (const auto& b : branches)
        if (b.branch <= d.branch() && (!best || b.branch > best->branch)) best = &b;
    if (!best) return std::nullopt;
    return best->cuda;
}

std::optional<PtxIsa> Matrix::max_ptx_isa(CudaVersion driver_cuda) const {
    const Toolkit* best = nullptr;
    for (const auto& t : toolkits)
        if (t.version <= driver_cuda && (!best || t.version > best->version)) best = &t;
    if (!best) return std::nullopt;
    return best->ptx_isa;
}

std::vector<const Release*> Matrix::newest_first(std::optional<Channel> channel) const {
    std::vector<const Release*> out;
    for (auto it = releases.rbegin(); it != releases.rend(); ++it)
        if (!channel || it->channel == *channel) out.push_back(&*it);
    return out;
}

std::optional<std::string> normalize_python(std::string_view s) {
    std::string v = str::lower(str::trim(s));
    if (v.starts_with("cp")) v = v.substr(2);
    bool threaded = false;
    if (!v.empty() && v.back() == 't') {
        threaded = true;
        v.pop_back();
    }
    std::string major, minor;
    auto dot = v.find('.');
    if (dot == std::string::npos) {
        // "312" (the cp312 tag style)
        if (v.size() < 2 || v[0] != '3') return std::nullopt;
        major = "3";
        minor = v.substr(1);
    } else {
        major = v.substr(0, dot);
        auto rest = v.substr(dot + 1);
        auto dot2 = rest.find('.');
        minor = rest.substr(0, dot2);
        if (dot2 != std::string::npos) {
            if (threaded) return std::nullopt;  // "3.13.1t" is not a spelling anyone uses
            if (!str::to_int(rest.substr(dot2 + 1))) return std::nullopt;
        }
    }
    auto ma = str::to_int(major);
    auto mi = str::to_int(minor);
    if (!ma || !mi || *ma != 3 || *mi < 0 || *mi > 99 || minor.size() > 2) return std::nullopt;
    return "3." + std::to_string(*mi) + (threaded ? "t" : "");
}

}  // namespace envfix::matrix
