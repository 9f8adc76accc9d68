// Facts derived from an environment's files, for interpreters that cannot run here (a Windows
// layout read on Linux, a venv whose base Python was removed).
#include <algorithm>
#include <regex>

#include "envfix/common/fs.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/environment.hpp"
#include "object_file.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

namespace {

std::string cfg_value(const std::vector<std::pair<std::string, std::string>>& cfg, std::string_view key) {
    for (const auto& [k, v] : cfg)
        if (k == key) return v;
    return "";
}

struct Version {
    int major = 0, minor = 0;
    std::string full;  // "3.10.11" when the patch level is known
};

// "3.10.11", "3.12.3.final.0", "3.13" -> parts.
std::optional<Version> parse_version(std::string_view s) {
    static const std::regex re(R"(^(\d+)\.(\d+)(?:\.(\d+))?)");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(s.begin(), s.end(), m, re)) return std::nullopt;
    Version v{std::stoi(m[1].str()), std::stoi(m[2].str()), ""};
    if (m[3].matched) v.full = m[1].str() + "." + m[2].str() + "." + m[3].str();
    return v;
}

// "python312._pth", "python312.zip", "python313t.dll" -> 3.12 / 3.13.
std::optional<Version> version_from_windows_names(const stdfs::path& dir, bool* free_threaded) {
    static const std::regex re(R"(^python(\d)(\d+)(t?)\.(_pth|zip|dll)$)", std::regex::icase);
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        std::smatch m;
        auto name = it->path().filename().string();
        if (std::regex_match(name, m, re)) {
            *free_threaded = !m[3].str().empty();
            return Version{std::stoi(m[1].str()), std::stoi(m[2].str()), ""};
        }
    }
    return std::nullopt;
}

// conda-meta/python-3.10.14-h955ad1f_0.json
std::optional<Version> version_from_conda_meta(const stdfs::path& root) {
    static const std::regex re(R"(^python-(\d+\.\d+\.\d+)-.*\.json$)");
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(root / "conda-meta", ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        std::smatch m;
        auto name = it->path().filename().string();
        if (std::regex_match(name, m, re)) return parse_version(m[1].str());
    }
    return std::nullopt;
}

// lib/python3.X[t]/ of a posix prefix.
std::optional<Version> version_from_lib_dir(const stdfs::path& root, bool* free_threaded) {
    static const std::regex re(R"(^python(\d+)\.(\d+)(t?)$)");
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(root / "lib", ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        std::smatch m;
        auto name = it->path().filename().string();
        if (std::regex_match(name, m, re)) {
            *free_threaded = !m[3].str().empty();
            return Version{std::stoi(m[1].str()), std::stoi(m[2].str()), ""};
        }
    }
    return std::nullopt;
}

bool has_pypy_exe(const stdfs::path& dir) {
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec))
        if (str::lower(it->path().filename().string()).starts_with("pypy")) return true;
    return false;
}

// platform.machine() of the interpreter's executable, read from its header.
std::string machine_of(const stdfs::path& exe, LayoutOs os) {
    auto map = fs::MappedFile::open(exe);
    if (!map) return "";
    auto obj = parse_object_file(map->bytes(), exe.string());
    if (!obj) return "";
    if (os == LayoutOs::Windows) return std::string(pe_machine_name(obj->machine));
    switch (obj->machine) {
        case 62: return "x86_64";
        case 183: return "aarch64";
        case 3: return "i686";
        case 40: return "armv7l";
        case 21: return "ppc64le";
        case 243: return "riscv64";
        case 22: return "s390x";
        default: return "";
    }
}

std::string windows_platform_tag(const std::string& machine) {
    if (machine == "AMD64") return "win_amd64";
    if (machine == "ARM64") return "win_arm64";
    if (machine == "x86") return "win32";
    return "";
}

}  // namespace

PythonFacts facts_from_files(const Environment& env) {
    PythonFacts f;
    f.ran = false;
    f.executable = env.interpreter.string();
    f.prefix = env.root.string();
    f.base_prefix = env.root.string();
    f.data = env.root.string();
    const bool windows = env.layout_os == LayoutOs::Windows;
    std::vector<std::pair<std::string, std::string>> cfg;
    if (env.pyvenv_cfg)
        if (auto text = fs::read_file(*env.pyvenv_cfg)) cfg = parse_pyvenv_cfg(*text);

    // Version: pyvenv.cfg, conda-meta, the Windows DLL/zip/_pth names, lib/python3.X.
    bool free_threaded = false;
    std::optional<Version> v;
    if (!cfg.empty()) {
        v = parse_version(cfg_value(cfg, "version"));
        if (!v || v->full.empty()) v = parse_version(cfg_value(cfg, "version_info"));
        free_threaded = cfg_value(cfg, "abiflags").find('t') != std::string::npos;
    }
    if (!v && env.kind == EnvKind::Conda) v = version_from_conda_meta(env.root);
    if (!v && windows) v = version_from_windows_names(env.interpreter.parent_path(), &free_threaded);
    if (!v && !windows) v = version_from_lib_dir(env.root, &free_threaded);
    if (v) {
        f.major = v->major;
        f.minor = v->minor;
        f.version = v->full;
    }
    if (f.version.empty()) f.unknown.push_back("version");
    if (!v) f.unknown.insert(f.unknown.end(), {"major", "minor"});
    f.free_threaded = free_threaded;

    // Implementation: pyvenv.cfg says it (uv, virtualenv); the embeddable zip and conda's
    // python package are CPython; PyPy keeps lib/pypy3.X (posix) and pypy*.exe (Windows), so a
    // lib/python3.X folder or a Scripts folder without pypy*.exe means CPython.
    std::string impl = str::lower(cfg_value(cfg, "implementation"));
    bool unused = false;
    if (impl.empty() && (env.kind == EnvKind::Embedded || (env.kind == EnvKind::Conda && v))) impl = "cpython";
    if (impl.empty() && !windows && version_from_lib_dir(env.root, &unused)) impl = "cpython";
    if (impl.empty() && windows && env.kind == EnvKind::Venv && !has_pypy_exe(env.interpreter.parent_path())) impl = "cpython";
    if (impl.empty()) {
        f.unknown.insert(f.unknown.end(), {"implementation_name", "implementation_version", "platform_python_implementation"});
    } else {
        f.implementation_name = impl;
        f.platform_python_implementation = impl == "cpython" ? "CPython" : impl == "pypy" ? "PyPy" : impl;
        if (impl == "cpython") f.implementation_version = f.version;
        if (f.implementation_version.empty()) f.unknown.push_back("implementation_version");
    }

    const std::string xy = v ? std::to_string(v->major) + std::to_string(v->minor) : "";
    const std::string dotted = v ? std::to_string(v->major) + "." + std::to_string(v->minor) : "";
    f.platform_machine = machine_of(env.interpreter, env.layout_os);
    if (f.platform_machine.empty()) f.unknown.push_back("platform_machine");
    stdfs::path site;
    if (windows) {
        f.sys_platform = "win32";
        f.os_name = "nt";
        f.platform_system = "Windows";
        const std::string tag = windows_platform_tag(f.platform_machine);
        f.sysconfig_platform = tag == "win_amd64" ? "win-amd64" : tag == "win_arm64" ? "win-arm64" : tag;
        f.abiflags = "";  // always empty on Windows
        if (!tag.empty() && !xy.empty() && impl == "cpython") {
            f.ext_suffix = ".cp" + xy + (free_threaded ? "t" : "") + "-" + tag + ".pyd";
            if (v->minor >= 13) f.soabi = "cp" + xy + (free_threaded ? "t" : "") + "-" + tag;
        }
        site = env.root / "Lib" / "site-packages";
        f.scripts = (env.root / "Scripts").string();
        f.include = (env.root / "Include").string();
    } else {
        f.os_name = "posix";
        if (platform::current_os() == platform::Os::Linux) {
            f.sys_platform = "linux";
            f.platform_system = "Linux";
            if (!f.platform_machine.empty()) f.sysconfig_platform = "linux-" + f.platform_machine;
        }
        if (v && v->minor >= 8) f.abiflags = free_threaded ? "t" : "";
        if (!f.sysconfig_platform.empty() && !xy.empty() && impl == "cpython" && v->minor >= 8) {
            f.soabi = "cpython-" + xy + f.abiflags + "-" + f.platform_machine + "-linux-gnu";
            f.ext_suffix = "." + f.soabi + ".so";
        }
        site = env.root / "lib" / ("python" + dotted + (free_threaded ? "t" : "")) / "site-packages";
        f.scripts = (env.root / "bin").string();
        if (!dotted.empty()) f.include = (env.root / "include" / ("python" + dotted)).string();
    }
    if (!cfg.empty()) {
        // home = the folder of the base interpreter: C:\Python312 on Windows, /usr/bin elsewhere.
        stdfs::path home = cfg_value(cfg, "home");
        if (!home.empty()) f.base_prefix = (windows || home.filename() != "bin" ? home : home.parent_path()).string();
    }
    if (!xy.empty()) f.purelib = f.platlib = site.string();
    const std::pair<const char*, const std::string*> derived[] = {
        {"sys_platform", &f.sys_platform}, {"platform_system", &f.platform_system},
        {"sysconfig_platform", &f.sysconfig_platform}, {"soabi", &f.soabi}, {"ext_suffix", &f.ext_suffix},
        {"abiflags", &f.abiflags}, {"purelib", &f.purelib}, {"platlib", &f.platlib}, {"include", &f.include}};
    for (const auto& [name, value] : derived) {
        // abiflags "" is a real value on Windows and for 3.8+; soabi is "" before 3.13 on Windows.
        const bool empty_is_value = (value == &f.abiflags && (windows || (v && v->minor >= 8))) ||
                                    (value == &f.soabi && windows && v && v->minor < 13);
        if (value->empty() && !empty_is_value) f.unknown.push_back(name);
    }
    f.unknown.insert(f.unknown.end(), {"platform_release", "platform_version", "user_site"});
    if (!windows) f.unknown.push_back("glibc");

    // sys.path: an embedded Python's ._pth decides whether site runs and what is on the path.
    f.site_enabled = true;
    if (env.pth_file) {
        if (auto text = fs::read_file(*env.pth_file)) {
            auto pth = parse_pth(*text);
            f.site_enabled = pth.import_site;
            for (const auto& p : pth.paths) {
                auto dir = (env.interpreter.parent_path() / p).lexically_normal();
                std::error_code ec;
                if (str::lower(dir.filename().string()) == "site-packages" && stdfs::is_directory(dir, ec))
                    f.site_packages.push_back(dir.string());
            }
        }
    }
    std::error_code ec;
    if (!site.empty() && stdfs::is_directory(site, ec) && (f.site_enabled || !env.pth_file) &&
        std::find(f.site_packages.begin(), f.site_packages.end(), site.lexically_normal().string()) == f.site_packages.end())
        f.site_packages.push_back(site.lexically_normal().string());
    return f;
}

}  // namespace envfix::probe
