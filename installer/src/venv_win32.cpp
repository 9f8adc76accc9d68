// Windows venv layout and interpreter copies (venv_platform.hpp). Since Python 3.7.2 a venv's
// Scripts\python.exe is a copy of the base's venvlauncher that finds the base through
// pyvenv.cfg; an embeddable Python has no venv module, so python.exe, pythonw.exe and the
// Python DLLs are copied instead (the layout venv used before the launcher).
#include "venv_platform.hpp"

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::installer::venvplat {

namespace stdfs = std::filesystem;

namespace {
Unexpected<Error> write_error(const stdfs::path& p, const std::error_code& ec) {
    return fail(ExitCode::PermissionDenied, "fs.write_failed", {{"path", p.string()}, {"reason", ec.message()}});
}
}  // namespace

Layout layout(const probe::PythonFacts&) {
    Layout l;
    l.bin_name = "Scripts";
    l.site_packages = stdfs::path("Lib") / "site-packages";
    l.include = "Include";
    l.template_os = "nt";
    return l;
}

Expected<stdfs::path> install_interpreter(const stdfs::path& tmp, const probe::PythonFacts& base, const stdfs::path& base_executable) {
    std::error_code ec;
    auto scripts = tmp / "Scripts";
    stdfs::create_directories(scripts, ec);
    if (ec) return write_error(scripts, ec);
    stdfs::path home = base_executable.parent_path();
    stdfs::path launchers = stdlib_dir(base) / "venv" / "scripts" / "nt";
    bool free_threaded = base.free_threaded;
    auto copy = [&](const stdfs::path& from, const stdfs::path& to) -> Expected<void> {
        stdfs::copy_file(from, to, stdfs::copy_options::overwrite_existing, ec);
        if (ec) return write_error(to, ec);
        return {};
    };
    if (stdfs::exists(launchers / "venvlauncher.exe", ec)) {
        ENVFIX_TRY_VOID(copy(launchers / (free_threaded ? "venvlaunchert.exe" : "venvlauncher.exe"), scripts / "python.exe"));
        if (stdfs::exists(launchers / "venvwlauncher.exe", ec))
            ENVFIX_TRY_VOID(copy(launchers / (free_threaded ? "venvwlaunchert.exe" : "venvwlauncher.exe"), scripts / "pythonw.exe"));
        return scripts / "python.exe";
    }
    if (stdfs::exists(launchers / "python.exe", ec)) {  // 3.7.2 - 3.12 name the launcher python.exe
        ENVFIX_TRY_VOID(copy(launchers / "python.exe", scripts / "python.exe"));
        if (stdfs::exists(launchers / "pythonw.exe", ec)) ENVFIX_TRY_VOID(copy(launchers / "pythonw.exe", scripts / "pythonw.exe"));
        return scripts / "python.exe";
    }
    for (stdfs::directory_iterator it(home, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = str::lower(it->path().filename().string());
        bool wanted = name == "python.exe" || name == "pythonw.exe" ||
                      (name.ends_with(".dll") && (name.starts_with("python") || name.starts_with("vcruntime")));
        if (wanted) ENVFIX_TRY_VOID(copy(it->path(), scripts / it->path().filename()));
    }
    return scripts / "python.exe";
}

stdfs::path stdlib_dir(const probe::PythonFacts& base) {
    stdfs::path prefix = base.base_prefix.empty() ? base.prefix : base.base_prefix;
    return prefix / "Lib";
}

}  // namespace envfix::installer::venvplat
