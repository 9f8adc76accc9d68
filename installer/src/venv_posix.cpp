// POSIX venv layout and interpreter links (venv_platform.hpp).
#include "venv_platform.hpp"

#include <vector>

#include "envfix/common/fs.hpp"

namespace envfix::installer::venvplat {

namespace stdfs = std::filesystem;

namespace {
std::string xy(const probe::PythonFacts& f) { return std::to_string(f.major) + "." + std::to_string(f.minor); }
Unexpected<Error> write_error(const stdfs::path& p, const std::error_code& ec) {
    return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", p.string()}, {"reason", ec.message()}});
}
}  // namespace

Layout layout(const probe::PythonFacts& base) {
    Layout l;
    l.bin_name = "bin";
    std::string lib = (base.implementation_name == "pypy" ? "pypy" : "python") + xy(base) + (base.free_threaded ? "t" : "");
    l.site_packages = stdfs::path("lib") / lib / "site-packages";
    l.include = base.major > 3 || (base.major == 3 && base.minor >= 11) ? stdfs::path("include") / lib : stdfs::path("include");
    l.template_os = "posix";
    return l;
}

Expected<stdfs::path> install_interpreter(const stdfs::path& tmp, const probe::PythonFacts& base, const stdfs::path& base_executable) {
    std::error_code ec;
    auto bin = tmp / "bin";
    stdfs::create_directories(bin, ec);
    if (ec) return write_error(bin, ec);
    // lib64 -> lib on 64-bit Linux, as venv does (Issue 21197).
    const auto& m = base.platform_machine;
    if (base.sys_platform != "darwin" && (m.ends_with("64") || m == "s390x" || m == "ppc64le")) {
        stdfs::create_directory_symlink("lib", tmp / "lib64", ec);
        if (ec) return write_error(tmp / "lib64", ec);
    }
    std::string exe_name = base_executable.filename().string();
    stdfs::create_symlink(base_executable, bin / exe_name, ec);
    if (ec) return write_error(bin / exe_name, ec);
    std::vector<std::string> names = {"python", "python" + std::to_string(base.major)};
    if (base.major > 3 || base.minor >= 9) names.push_back("python" + xy(base));  // venv adds python3.X from 3.9
    for (const auto& name : names) {
        if (name == exe_name) continue;
        stdfs::create_symlink(exe_name, bin / name, ec);
        if (ec) return write_error(bin / name, ec);
    }
    return bin / exe_name;
}

stdfs::path stdlib_dir(const probe::PythonFacts& base) {
    stdfs::path prefix = base.base_prefix.empty() ? base.prefix : base.base_prefix;
    return prefix / "lib" / ((base.implementation_name == "pypy" ? "pypy" : "python") + xy(base));
}

}  // namespace envfix::installer::venvplat
