// Creating a venv without the venv module (venv.hpp).
#include "envfix/installer/venv.hpp"

#include <algorithm>
#include <random>

#include "envfix/common/fs.hpp"
#include "envfix/common/process.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/environment.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "venv_platform.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

bool at_least(const probe::PythonFacts& f, int major, int minor) {
    return f.major > major || (f.major == major && f.minor >= minor);
}

// Python's shlex.quote.
std::string shell_quote(std::string_view s) {
    if (s.empty()) return "''";
    bool safe = std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("@%+=:,./-_").find(c) != std::string_view::npos;
    });
    if (safe) return std::string(s);
    return "'" + str::replace_all(std::string(s), "'", "'\"'\"'") + "'";
}

Unexpected<Error> write_error(const stdfs::path& p, const std::error_code& ec) {
    return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", p.string()}, {"reason", ec.message()}});
}

Expected<probe::PythonFacts> facts_of(const stdfs::path& python) {
    return probe::run_interpreter_facts(python, std::chrono::seconds(30));
}

Expected<void> install_activation_scripts(const stdfs::path& tmp, const stdfs::path& final_dir, const stdfs::path& env_exe,
                                          const probe::PythonFacts& base, const venvplat::Layout& layout) {
    stdfs::path templates = venvplat::stdlib_dir(base) / "venv" / "scripts";
    VenvScriptValues v;
    v.dir = final_dir.string();
    v.name = final_dir.filename().string();
    v.prompt = at_least(base, 3, 13) ? v.name : "(" + v.name + ") ";
    v.bin_name = layout.bin_name;
    v.python = (final_dir / layout.bin_name / env_exe.filename()).string();
    for (const char* sub : {"common", layout.template_os.c_str()}) {
        std::error_code ec;
        for (stdfs::directory_iterator it(templates / sub, ec), end; !ec && it != end; it.increment(ec)) {
            if (!it->is_regular_file(ec)) continue;
            std::string name = it->path().filename().string();
            std::string lower = str::lower(name);
            if (lower.ends_with(".exe") || lower.ends_with(".pdb")) continue;  // launchers: install_interpreter
            auto text = fs::read_file(it->path());
            if (!text) continue;
            auto dest = tmp / layout.bin_name / name;
            ENVFIX_TRY_VOID(fs::write_file_atomic(dest, render_venv_script(*text, name, v)));
            std::error_code pe;
            stdfs::permissions(dest, it->status(ec).permissions(), pe);
        }
    }
    return {};
}

}  // namespace

std::string pyvenv_cfg_text(const probe::PythonFacts& base, const stdfs::path& base_executable, const stdfs::path& real_executable,
                            const std::string& creator) {
    std::string out = "home = " + base_executable.parent_path().string() + "\n";
    out += "include-system-site-packages = false\n";
    out += "version = " + base.version + "\n";
    if (at_least(base, 3, 11)) out += "executable = " + real_executable.string() + "\n";
    if (!creator.empty()) out += "envfix = " + creator + "\n";
    return out;
}

std::string render_venv_script(std::string_view templ, std::string_view script_name, const VenvScriptValues& v) {
    // Templates written for quoted values (CPython's gh-124651 fix) leave __VENV_DIR__ bare;
    // older ones put it in double quotes themselves and get the raw value.
    bool quote = templ.find("__VENV_DIR__") != std::string_view::npos && templ.find("\"__VENV_DIR__\"") == std::string_view::npos;
    std::string name = str::lower(script_name);
    auto q = [&](const std::string& s) -> std::string {
        if (!quote || name.ends_with(".bat")) return s;
        if (name.ends_with(".ps1")) return "'" + str::replace_all(s, "'", "''") + "'";
        return shell_quote(s);
    };
    std::string out(templ);
    out = str::replace_all(out, "__VENV_DIR__", q(v.dir));
    out = str::replace_all(out, "__VENV_NAME__", q(v.name));
    out = str::replace_all(out, "__VENV_PROMPT__", q(v.prompt));
    out = str::replace_all(out, "__VENV_BIN_NAME__", q(v.bin_name));
    out = str::replace_all(out, "__VENV_PYTHON__", q(v.python));
    return out;
}

Expected<VenvResult> create_venv(const VenvOptions& o, Reporter& reporter) {
    // The base interpreter, as given (venv keeps the path it was started by, unresolved).
    stdfs::path base = o.base_python;
    if (base.empty() || (!base.has_parent_path() && !stdfs::exists(base))) {
        auto found = find_program(base.empty() ? "python3" : base.string());
        if (!found) return fail(ExitCode::EnvNotFound, "env.no_interpreter", {{"path", base.empty() ? "python3" : base.string()}});
        base = *found;
    }
    base = stdfs::absolute(base).lexically_normal();
    std::error_code ec;
    if (!stdfs::exists(base, ec)) return fail(ExitCode::EnvNotFound, "env.no_interpreter", {{"path", base.string()}});
    ENVFIX_TRY(auto facts, facts_of(base));
    if (!facts.base_prefix.empty() && facts.prefix != facts.base_prefix) {
        // A venv's interpreter as base: venv would use sys._base_executable, the one its
        // pyvenv.cfg's home names.
        auto cfg = fs::read_file(stdfs::path(facts.prefix) / "pyvenv.cfg");
        if (cfg)
            for (const auto& [k, val] : probe::parse_pyvenv_cfg(*cfg))
                if (k == "home" && stdfs::exists(stdfs::path(val) / base.filename(), ec)) {
                    base = stdfs::path(val) / base.filename();
                    ENVFIX_TRY(facts, facts_of(base));
                }
    }

    stdfs::path dir = stdfs::absolute(o.dir).lexically_normal();
    if (stdfs::exists(dir, ec)) {
        if (stdfs::exists(dir / "pyvenv.cfg", ec)) {
            reporter.info(msg("install.venv_exists", {{"path", dir.string()}}));
            auto layout = venvplat::layout(facts);
            return VenvResult{dir / layout.bin_name / (layout.bin_name == "bin" ? "python" : "python.exe"), false};
        }
        if (!stdfs::is_directory(dir, ec) || !stdfs::is_empty(dir, ec))
            return fail(ExitCode::BadInput, "install.venv_dir_busy", {{"path", dir.string()}});
    }
    stdfs::create_directories(dir.parent_path(), ec);
    if (ec) return write_error(dir.parent_path(), ec);

    // Built beside the target and renamed into place: a crash leaves a hidden temporary
    // folder, never half a venv at `dir`.
    std::random_device rd;
    stdfs::path tmp = dir.parent_path() / ("." + dir.filename().string() + ".envfix-tmp-" + std::to_string(rd() % 1000000007u));
    struct Cleanup {
        stdfs::path p;
        bool keep = false;
        ~Cleanup() {
            std::error_code e;
            if (!keep) stdfs::remove_all(p, e);
        }
    } cleanup{tmp};
    auto layout = venvplat::layout(facts);
    for (const auto& d : {tmp / layout.site_packages, tmp / layout.include}) {
        stdfs::create_directories(d, ec);
        if (ec) return write_error(d, ec);
    }
    ENVFIX_TRY(auto env_exe, venvplat::install_interpreter(tmp, facts, base));
    auto real = stdfs::canonical(base, ec);
    ENVFIX_TRY_VOID(fs::write_file_atomic(tmp / "pyvenv.cfg", pyvenv_cfg_text(facts, base, ec ? base : real, o.creator)));
    if (at_least(facts, 3, 13))
        ENVFIX_TRY_VOID(fs::write_file_atomic(tmp / ".gitignore",
                                              "# Created by venv; see https://docs.python.org/3/library/venv.html\n*\n"));
    ENVFIX_TRY_VOID(install_activation_scripts(tmp, dir, env_exe, facts, layout));
    if (stdfs::exists(dir, ec)) stdfs::remove(dir, ec);  // the empty folder it replaces
    stdfs::rename(tmp, dir, ec);
    if (ec) return write_error(dir, ec);
    cleanup.keep = true;
    fs::sync_dir(dir.parent_path());
    return VenvResult{dir / layout.bin_name / env_exe.filename(), true};
}

}  // namespace envfix::installer
