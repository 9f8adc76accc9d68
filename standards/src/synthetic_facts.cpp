// Facts for an interpreter on another machine, as the probe would have reported them there.
#include "chars.hpp"
#include "envfix/standards/tags.hpp"

namespace envfix::standards {

namespace {

enum class Os { Linux, Windows, MacOs };

struct Arch {
    std::string machine;  // platform.machine()
    std::string sysconfig;  // sysconfig.get_platform() suffix / value
    std::string triplet;  // multiarch part of SOABI on Linux
};

std::optional<Os> parse_os(std::string_view s) {
    std::string o = chars::lower(s);
    if (o == "linux") return Os::Linux;
    if (o == "windows" || o == "win" || o == "win32" || o == "nt") return Os::Windows;
    if (o == "macos" || o == "darwin" || o == "macosx" || o == "osx" || o == "mac") return Os::MacOs;
    return std::nullopt;
}

std::optional<Arch> parse_arch(Os os, std::string_view s, bool musl) {
    std::string a = chars::lower(s);
    bool x64 = a == "x86_64" || a == "amd64" || a == "x64";
    bool arm64 = a == "aarch64" || a == "arm64";
    bool x86 = a == "i686" || a == "i386" || a == "x86" || a == "win32";
    const std::string libc = musl ? "linux-musl" : "linux-gnu";
    switch (os) {
        case Os::Linux:
            if (x64) return Arch{"x86_64", "linux-x86_64", "x86_64-" + libc};
            if (arm64) return Arch{"aarch64", "linux-aarch64", "aarch64-" + libc};
            if (x86) return Arch{"i686", "linux-i686", "i386-" + libc};
            if (a == "armv7l" || a == "armv7" || a == "armhf") return Arch{"armv7l", "linux-armv7l", "arm-" + libc + "eabihf"};
            if (a == "ppc64le") return Arch{"ppc64le", "linux-ppc64le", "powerpc64le-" + libc};
            if (a == "ppc64") return Arch{"ppc64", "linux-ppc64", "powerpc64-" + libc};
            if (a == "s390x" || a == "riscv64" || a == "loongarch64") return Arch{a, "linux-" + a, a + "-" + libc};
            return std::nullopt;
        case Os::Windows:
            if (x64) return Arch{"AMD64", "win-amd64", "win_amd64"};
            if (arm64) return Arch{"ARM64", "win-arm64", "win_arm64"};
            if (x86) return Arch{"x86", "win32", "win32"};
            return std::nullopt;
        case Os::MacOs:
            if (arm64) return Arch{"arm64", "arm64", "darwin"};
            if (x64) return Arch{"x86_64", "x86_64", "darwin"};
            return std::nullopt;
    }
    return std::nullopt;
}

// "3.12", "3.12.4", "3.13t".
bool parse_python(std::string_view s, int& major, int& minor, std::optional<int>& patch, bool& threaded) {
    if (!s.empty() && s.back() == 't') {
        threaded = true;
        s.remove_suffix(1);
    }
    int parts[3] = {0, 0, 0};
    size_t n = 0, i = 0;
    while (n < 3) {
        size_t b = i;
        while (i < s.size() && chars::digit(s[i]) && i - b < 4) parts[n] = parts[n] * 10 + (s[i++] - '0');
        if (i == b) return false;
        ++n;
        if (i == s.size()) break;
        if (s[i++] != '.') return false;
    }
    if (i != s.size() || n < 2 || parts[0] < 2) return false;
    major = parts[0];
    minor = parts[1];
    if (n == 3) patch = parts[2];
    return true;
}

std::string darwin_release(std::pair<int, int> macos) {
    int darwin = macos.first >= 26 ? macos.first - 1 : (macos.first >= 11 ? macos.first + 9 : macos.second + 4);
    return std::to_string(darwin) + ".0.0";
}

}  // namespace

Expected<probe::PythonFacts> synthetic_facts(const TargetPlatform& t) {
    probe::PythonFacts f;
    std::optional<int> patch;
    bool threaded = t.free_threaded;
    if (!parse_python(t.python, f.major, f.minor, patch, threaded))
        return fail(ExitCode::Usage, "target.bad_python", {{"version", t.python}});
    auto os = parse_os(t.os);
    if (!os) return fail(ExitCode::Usage, "target.unknown_os", {{"os", t.os}});
    bool musl = *os == Os::Linux && t.musl.has_value();
    auto arch = parse_arch(*os, t.arch, musl);
    if (!arch) return fail(ExitCode::Usage, "target.unknown_arch", {{"arch", t.arch}, {"os", t.os}});

    const bool pypy = chars::lower(t.implementation) == "pypy";
    const std::string nodot = std::to_string(f.major) + std::to_string(f.minor);
    f.ran = false;
    f.version = std::to_string(f.major) + "." + std::to_string(f.minor) + "." + std::to_string(patch.value_or(0));
    if (!patch) f.unknown.push_back("version");
    f.free_threaded = threaded && !pypy;
    f.implementation_name = pypy ? "pypy" : "cpython";
    f.platform_python_implementation = pypy ? "PyPy" : "CPython";
    f.implementation_version = pypy ? "" : f.version;
    if (pypy) f.unknown.push_back("implementation_version");

    const bool old = f.major == 3 && f.minor < 8;
    const std::string abi_tag = (pypy ? "pypy" + nodot + "-pp73" : "cpython-" + nodot) + (f.free_threaded ? "t" : "");
    switch (*os) {
        case Os::Linux:
            f.sys_platform = "linux";
            f.os_name = "posix";
            f.platform_system = "Linux";
            f.sysconfig_platform = arch->sysconfig;
            f.abiflags = std::string(f.free_threaded ? "t" : "") + (old && !pypy ? "m" : "");
            f.soabi = abi_tag + (old && !pypy ? "m" : "") + "-" + arch->triplet;
            f.ext_suffix = "." + f.soabi + ".so";
            if (musl)
                f.musl = t.musl;
            else
                f.glibc = t.glibc.value_or(kDefaultTargetGlibc);
            f.unknown.push_back("platform_release");
            break;
        case Os::Windows:
            f.sys_platform = "win32";
            f.os_name = "nt";
            f.platform_system = "Windows";
            f.sysconfig_platform = arch->sysconfig;
            f.soabi = pypy ? abi_tag + "-" + arch->triplet : "cp" + nodot + (f.free_threaded ? "t" : "") + "-" + arch->triplet;
            f.ext_suffix = "." + f.soabi + ".pyd";
            f.unknown.push_back("platform_release");
            break;
        case Os::MacOs: {
            auto macos = t.macos.value_or(kDefaultTargetMacos);
            f.sys_platform = "darwin";
            f.os_name = "posix";
            f.platform_system = "Darwin";
            f.platform_release = darwin_release(macos);
            f.sysconfig_platform = "macosx-" + std::to_string(macos.first) + "." + std::to_string(macos.second) + "-" + arch->sysconfig;
            f.abiflags = std::string(f.free_threaded ? "t" : "") + (old && !pypy ? "m" : "");
            f.soabi = abi_tag + (old && !pypy ? "m" : "") + "-darwin";
            f.ext_suffix = "." + f.soabi + ".so";
            break;
        }
    }
    f.platform_machine = arch->machine;
    for (const char* field :
         {"executable", "platform_version", "prefix", "base_prefix", "purelib", "platlib", "scripts", "data", "include"})
        f.unknown.push_back(field);
    return f;
}

}  // namespace envfix::standards
