#include "envfix/standards/tags.hpp"

#include "chars.hpp"

namespace envfix::standards {

namespace {

Error bad_tag(std::string_view text) { return make_error(ExitCode::BadInput, "tag.invalid", {{"text", std::string(text)}}); }

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t b = 0;
    for (;;) {
        size_t e = s.find(sep, b);
        out.push_back(s.substr(b, e == std::string_view::npos ? e : e - b));
        if (e == std::string_view::npos) return out;
        b = e + 1;
    }
}

}  // namespace

Expected<Tag> Tag::parse(std::string_view triple) {
    auto parts = split(triple, '-');
    if (parts.size() != 3) return unexpected(bad_tag(triple));
    for (auto p : parts)
        if (p.empty()) return unexpected(bad_tag(triple));
    return Tag{chars::lower(parts[0]), chars::lower(parts[1]), chars::lower(parts[2])};
}

Expected<std::vector<Tag>> parse_tag_set(std::string_view compressed) {
    auto parts = split(compressed, '-');
    if (parts.size() != 3) return unexpected(bad_tag(compressed));
    std::vector<std::vector<std::string_view>> lists;
    for (auto p : parts) {
        lists.push_back(split(p, '.'));
        for (auto x : lists.back())
            if (x.empty()) return unexpected(bad_tag(compressed));
    }
    std::vector<Tag> out;
    for (auto i : lists[0])
        for (auto a : lists[1])
            for (auto p : lists[2]) {
                Tag t{chars::lower(i), chars::lower(a), chars::lower(p)};
                bool seen = false;
                for (const auto& o : out) seen = seen || o == t;
                if (!seen) out.push_back(std::move(t));
            }
    return out;
}

SupportedTags::SupportedTags(std::vector<Tag> ordered) {
    for (auto& t : ordered) {
        if (index_.emplace(t.to_string(), tags_.size()).second) tags_.push_back(std::move(t));
    }
}

std::optional<size_t> SupportedTags::priority(const Tag& t) const {
    auto it = index_.find(t.to_string());
    if (it == index_.end()) return std::nullopt;
    return it->second;
}

std::optional<size_t> SupportedTags::rank(std::span<const Tag> wheel_tags) const {
    std::optional<size_t> best;
    for (const auto& t : wheel_tags)
        if (auto p = priority(t); p && (!best || *p < *best)) best = p;
    return best;
}

namespace {

struct PyVersion {
    int major = 0;
    int minor = 0;
};

PyVersion py_version(const probe::PythonFacts& f) {
    if (f.major > 0) return {f.major, f.minor};
    PyVersion v;
    size_t dot = f.version.find('.');
    v.major = std::atoi(f.version.substr(0, dot).c_str());
    if (dot != std::string::npos) v.minor = std::atoi(f.version.c_str() + dot + 1);
    return v;
}

std::string nodot(PyVersion v) { return std::to_string(v.major) + std::to_string(v.minor); }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool is_windows(const probe::PythonFacts& f) { return f.sys_platform == "win32" || f.platform_system == "Windows"; }
bool is_macos(const probe::PythonFacts& f) { return f.platform_system == "Darwin" || f.sys_platform == "darwin"; }
bool is_linux(const probe::PythonFacts& f) {
    return f.platform_system == "Linux" || (f.platform_system.empty() && f.sys_platform.rfind("linux", 0) == 0);
}

// packaging's _normalize_string.
std::string normalize(std::string s) {
    for (char& c : s)
        if (c == '.' || c == '-' || c == ' ') c = '_';
    return s;
}

// struct.calcsize("P") == 4, read off the extension suffix (".cpython-312-i386-linux-gnu.so").
bool is_32bit(const probe::PythonFacts& f) {
    for (const std::string* s : {&f.ext_suffix, &f.soabi})
        if (contains(*s, "-i386-") || contains(*s, "-i686-") || contains(*s, "-arm-linux-gnueabi")) return true;
    return false;
}

std::vector<std::string> cpython_abis(const probe::PythonFacts& f, PyVersion v) {
    const std::string& flags = f.abiflags;
    // Windows has no abiflags: a debug build shows in the "_d" extension suffix.
    bool debug = contains(flags, "d") || f.ext_suffix.rfind("_d.", 0) == 0;
    bool threading = (v.major > 3 || (v.major == 3 && v.minor >= 13)) && (f.free_threaded || contains(flags, "t"));
    bool old = v.major < 3 || (v.major == 3 && v.minor < 8);
    // Windows reports no WITH_PYMALLOC, which packaging reads as "m" (cp37m wheels).
    bool pymalloc = old && (contains(flags, "m") || is_windows(f));
    bool ucs4 = (v.major < 3 || (v.major == 3 && v.minor < 3)) && contains(flags, "u");
    std::string base = "cp" + nodot(v) + (threading ? "t" : "");
    std::vector<std::string> abis{base + (debug ? "d" : "") + (pymalloc ? "m" : "") + (ucs4 ? "u" : "")};
    if (debug && !old) abis.push_back(base);  // debug builds also load normal extensions
    return abis;
}

std::vector<std::string> generic_abis(const probe::PythonFacts& f, PyVersion v) {
    const std::string& ext = f.ext_suffix;
    if (ext.empty() || ext[0] != '.') return {};
    auto parts = split(ext, '.');
    if (parts.size() < 3) return cpython_abis(f, v);  // ".pyd" of old Windows builds
    std::string_view soabi = parts[1];
    auto fields = split(soabi, '-');
    auto join = [&](size_t n) {
        std::string out;
        for (size_t i = 0; i < n && i < fields.size(); ++i) out += (i ? "-" : "") + std::string(fields[i]);
        return out;
    };
    std::string abi;
    if (soabi.rfind("cpython", 0) == 0)
        abi = "cp" + (fields.size() > 1 ? std::string(fields[1]) : std::string());
    else if (soabi.rfind("cp", 0) == 0)
        abi = std::string(fields[0]);
    else if (soabi.rfind("pypy", 0) == 0)
        abi = join(2);
    else if (soabi.rfind("graalpy", 0) == 0)
        abi = join(3);
    else if (!soabi.empty())
        abi = std::string(soabi);
    else
        return {};
    return {normalize(abi)};
}

void manylinux_platforms(const std::vector<std::string>& archs, std::pair<int, int> glibc, std::vector<std::string>& out) {
    static const std::string_view allowed[] = {"x86_64", "aarch64", "ppc64", "ppc64le", "s390x", "loongarch64", "riscv64"};
    bool compatible = false;
    for (const auto& a : archs) {
        // armv7l and i686 need an ELF check of the interpreter (hard-float / 32-bit x86): the
        // probe has run it, so they are taken as compatible.
        if (a == "armv7l" || a == "i686") compatible = true;
        for (auto ok : allowed) compatible = compatible || a == ok;
    }
    if (!compatible) return;
    std::pair<int, int> too_old{2, 16};
    for (const auto& a : archs)
        if (a == "x86_64" || a == "i686") too_old = {2, 4};
    std::vector<std::pair<int, int>> max_list{glibc};
    for (int major = glibc.first - 1; major > 1; --major) max_list.push_back({major, 50});
    for (const auto& arch : archs) {
        for (auto [major, max_minor] : max_list) {
            int min_minor = major == too_old.first ? too_old.second : -1;
            for (int minor = max_minor; minor > min_minor; --minor) {
                out.push_back("manylinux_" + std::to_string(major) + "_" + std::to_string(minor) + "_" + arch);
                if (major == 2 && minor == 17) out.push_back("manylinux2014_" + arch);
                if (major == 2 && minor == 12) out.push_back("manylinux2010_" + arch);
                if (major == 2 && minor == 5) out.push_back("manylinux1_" + arch);
            }
        }
    }
}

std::vector<std::string> linux_platforms(const probe::PythonFacts& f) {
    std::string linux = normalize(f.sysconfig_platform.empty() ? "linux-" + f.platform_machine : f.sysconfig_platform);
    if (linux.rfind("linux_", 0) != 0) return {linux};
    if (is_32bit(f)) {
        if (linux == "linux_x86_64") linux = "linux_i686";
        if (linux == "linux_aarch64") linux = "linux_armv8l";
    }
    std::string arch = linux.substr(6);
    std::vector<std::string> archs{arch};
    if (arch == "armv8l") archs.push_back("armv7l");
    std::vector<std::string> out;
    if (f.glibc) manylinux_platforms(archs, *f.glibc, out);
    if (f.musl)
        for (const auto& a : archs)
            for (int minor = f.musl->second; minor >= 0; --minor)
                out.push_back("musllinux_" + std::to_string(f.musl->first) + "_" + std::to_string(minor) + "_" + a);
    for (const auto& a : archs) out.push_back("linux_" + a);
    return out;
}

// macOS version from the Darwin release (platform.release()): Darwin 20-24 are macOS 11-15,
// Darwin 25 is macOS 26, Darwin 8-19 are 10.4-10.15. Unknown: 11.0.
std::pair<int, int> macos_version(const probe::PythonFacts& f) {
    int darwin = std::atoi(f.platform_release.c_str());
    if (darwin >= 25) return {darwin + 1, 0};
    if (darwin >= 20) return {darwin - 9, 0};
    if (darwin >= 4) return {10, darwin - 4};
    return kDefaultTargetMacos;
}

std::vector<std::string> mac_binary_formats(std::pair<int, int> version, const std::string& arch) {
    std::vector<std::string> formats{arch};
    if (arch == "x86_64") {
        if (version < std::pair{10, 4}) return {};
        formats.insert(formats.end(), {"intel", "fat64", "fat32"});
    } else if (arch == "i386") {
        if (version < std::pair{10, 4}) return {};
        formats.insert(formats.end(), {"intel", "fat32", "fat"});
    } else if (arch == "ppc64") {
        if (version > std::pair{10, 5} || version < std::pair{10, 4}) return {};
        formats.push_back("fat64");
    } else if (arch == "ppc") {
        if (version > std::pair{10, 6}) return {};
        formats.insert(formats.end(), {"fat32", "fat"});
    }
    if (arch == "arm64" || arch == "x86_64") formats.push_back("universal2");
    if (arch == "x86_64" || arch == "i386" || arch == "ppc64" || arch == "ppc" || arch == "intel") formats.push_back("universal");
    return formats;
}

std::vector<std::string> mac_platforms(const probe::PythonFacts& f) {
    auto version = macos_version(f);
    std::string arch = f.platform_machine;
    if (is_32bit(f)) arch = arch.rfind("ppc", 0) == 0 ? "ppc" : "i386";
    std::vector<std::string> out;
    auto add = [&](int major, int minor) {
        for (const auto& fmt : mac_binary_formats({major, minor}, arch))
            out.push_back("macosx_" + std::to_string(major) + "_" + std::to_string(minor) + "_" + fmt);
    };
    if (version >= std::pair{10, 0} && version < std::pair{11, 0})
        for (int minor = version.second; minor >= 0; --minor) add(10, minor);
    if (version >= std::pair{11, 0}) {
        for (int major = version.first; major > 10; --major) add(major, 0);
        // 11+ runs binaries for earlier releases: x86_64 ones, or universal2 on Apple silicon.
        for (int minor = 16; minor > 3; --minor) {
            if (arch == "x86_64")
                add(10, minor);
            else
                out.push_back("macosx_10_" + std::to_string(minor) + "_universal2");
        }
    }
    return out;
}

std::string windows_platform(const probe::PythonFacts& f) {
    if (!f.sysconfig_platform.empty()) return normalize(f.sysconfig_platform);
    std::string m = chars::lower(f.platform_machine);
    if (m == "arm64" || m == "aarch64") return "win_arm64";
    if (m == "x86" || m == "i386" || m == "i686" || is_32bit(f)) return "win32";
    return "win_amd64";
}

std::string interpreter_short_name(const std::string& name) {
    if (name == "cpython") return "cp";
    if (name == "pypy") return "pp";
    if (name == "ironpython") return "ip";
    if (name == "jython") return "jy";
    if (name == "python") return "py";
    return name;
}

}  // namespace

std::vector<std::string> platform_tags(const probe::PythonFacts& f) {
    if (is_macos(f)) return mac_platforms(f);
    if (is_linux(f)) return linux_platforms(f);
    if (is_windows(f)) return {windows_platform(f)};
    return {normalize(f.sysconfig_platform)};
}

std::string interpreter_tag(const probe::PythonFacts& f) {
    return interpreter_short_name(f.implementation_name.empty() ? "cpython" : f.implementation_name) + nodot(py_version(f));
}

SupportedTags supported_tags(const probe::PythonFacts& f) {
    const PyVersion v = py_version(f);
    const std::string name = interpreter_short_name(f.implementation_name.empty() ? "cpython" : f.implementation_name);
    const std::string interpreter = name + nodot(v);
    const auto platforms = platform_tags(f);
    std::vector<Tag> tags;
    auto add_all = [&](const std::string& i, const std::string& a) {
        for (const auto& p : platforms) tags.push_back({i, a, p});
    };

    if (name == "cp") {
        auto abis = cpython_abis(f, v);
        for (const auto& a : abis) add_all(interpreter, a);
        bool threading = abis[0].size() > 2 + nodot(v).size() && abis[0][2 + nodot(v).size()] == 't';
        bool abi3 = (v.major > 3 || (v.major == 3 && v.minor >= 2)) && !threading;
        if (abi3) add_all(interpreter, "abi3");
        add_all(interpreter, "none");
        if (abi3)
            for (int minor = v.minor - 1; minor > 1; --minor) add_all("cp" + std::to_string(v.major) + std::to_string(minor), "abi3");
    } else {
        auto abis = generic_abis(f, v);
        bool has_none = false;
        for (const auto& a : abis) has_none = has_none || a == "none";
        if (!has_none) abis.push_back("none");
        for (const auto& a : abis) add_all(interpreter, a);
    }

    // compatible_tags(): pure-Python and interpreter-only wheels.
    std::vector<std::string> py_range{"py" + nodot(v), "py" + std::to_string(v.major)};
    for (int minor = v.minor - 1; minor >= 0; --minor) py_range.push_back("py" + std::to_string(v.major) + std::to_string(minor));
    for (const auto& py : py_range) add_all(py, "none");
    if (name == "cp") tags.push_back({"cp" + nodot(v), "none", "any"});
    if (name == "pp") tags.push_back({"pp3", "none", "any"});
    for (const auto& py : py_range) tags.push_back({py, "none", "any"});
    return SupportedTags(std::move(tags));
}

}  // namespace envfix::standards
