// Recognising an environment's layout from its files.
#include <algorithm>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

std::string_view env_kind_name(EnvKind k) {
    switch (k) {
        case EnvKind::Venv: return "venv";
        case EnvKind::Conda: return "conda";
        case EnvKind::Embedded: return "embedded";
        case EnvKind::System: return "system";
    }
    return "system";
}

std::string_view layout_os_name(LayoutOs o) { return o == LayoutOs::Windows ? "windows" : "posix"; }

std::string_view env_status_name(EnvStatus s) {
    switch (s) {
        case EnvStatus::Ok: return "ok";
        case EnvStatus::FilesOnly: return "files-only";
        case EnvStatus::Broken: return "broken";
    }
    return "ok";
}

std::string_view env_origin_name(EnvOrigin o) {
    switch (o) {
        case EnvOrigin::Active: return "active";
        case EnvOrigin::PathPython: return "path";
        case EnvOrigin::GivenPython: return "python";
        case EnvOrigin::GivenEnv: return "env";
        case EnvOrigin::App: return "app";
        case EnvOrigin::Virtualenvs: return "virtualenvs";
        case EnvOrigin::CondaList: return "conda";
    }
    return "env";
}

std::vector<std::pair<std::string, std::string>> parse_pyvenv_cfg(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto line : str::split(text, '\n')) {
        line = str::trim(line);
        auto eq = line.find('=');
        if (line.empty() || line[0] == '#' || eq == std::string_view::npos) continue;
        out.emplace_back(str::lower(str::trim(line.substr(0, eq))), std::string(str::trim(line.substr(eq + 1))));
    }
    return out;
}

PthFile parse_pth(std::string_view text) {
    PthFile out;
    for (auto line : str::split(text, '\n')) {
        line = str::trim(line);
        if (line.empty() || line[0] == '#') continue;
        if (line == "import site" || line.starts_with("import site ") || line.starts_with("import site;")) {
            out.import_site = true;
            continue;
        }
        if (line.starts_with("import ")) continue;  // other import lines run code; not paths
        out.paths.emplace_back(line);
    }
    return out;
}

namespace {

bool is_file(const stdfs::path& p) {
    std::error_code ec;
    return stdfs::is_regular_file(p, ec);
}
bool is_dir(const stdfs::path& p) {
    std::error_code ec;
    return stdfs::is_directory(p, ec);
}
bool present(const stdfs::path& p) {
    std::error_code ec;
    return stdfs::exists(p, ec) || stdfs::is_symlink(p, ec);
}

// python3XX._pth (or python._pth) beside an embedded interpreter.
std::optional<stdfs::path> find_pth(const stdfs::path& dir) {
    std::error_code ec;
    std::vector<stdfs::path> found;
    for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name.starts_with("python") && name.ends_with("._pth")) found.push_back(it->path());
    }
    if (found.empty()) return std::nullopt;
    std::sort(found.begin(), found.end());
    return found.front();
}

// The interpreter of a posix layout: bin/python, else bin/python3, else bin/python3.X.
stdfs::path posix_interpreter(const stdfs::path& root) {
    for (const char* n : {"python", "python3"})
        if (present(root / "bin" / n)) return root / "bin" / n;
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(root / "bin", ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name.starts_with("python3.") && name.find('-') == std::string::npos) return it->path();
    }
    return root / "bin" / "python";
}

Environment make(EnvKind kind, LayoutOs os, const stdfs::path& root, const stdfs::path& interpreter) {
    Environment e;
    e.kind = kind;
    e.layout_os = os;
    e.root = root;
    e.interpreter = interpreter;
    if (kind == EnvKind::Venv) e.pyvenv_cfg = root / "pyvenv.cfg";
    if (kind == EnvKind::Embedded) e.pth_file = find_pth(interpreter.parent_path());
    return e;
}

}  // namespace

stdfs::path absolute_normal(const stdfs::path& p) {
    std::error_code ec;
    auto a = stdfs::absolute(p, ec);
    auto n = (ec ? p : a).lexically_normal();
    // "dir/" normalises to "dir/" with an empty filename; drop it so parent_path() works.
    if (!n.has_filename() && n.has_parent_path() && n != n.root_path()) n = n.parent_path();
    return n;
}

Expected<Environment> inspect_environment_dir(const stdfs::path& dir_in) {
    const auto dir = absolute_normal(dir_in);
    if (!is_dir(dir)) {
        if (present(dir)) return fail(ExitCode::EnvNotFound, "env.not_an_env", {{"path", dir.string()}});
        return fail(ExitCode::EnvNotFound, "env.not_found", {{"path", dir.string()}});
    }
    if (is_file(dir / "pyvenv.cfg")) {
        // A Windows venv keeps Scripts\python.exe; a posix one bin/python.
        if (is_file(dir / "Scripts" / "python.exe") || (is_dir(dir / "Scripts") && !is_dir(dir / "bin")))
            return make(EnvKind::Venv, LayoutOs::Windows, dir, dir / "Scripts" / "python.exe");
        return make(EnvKind::Venv, LayoutOs::Posix, dir, posix_interpreter(dir));
    }
    if (is_dir(dir / "conda-meta")) {
        if (is_file(dir / "python.exe") || is_dir(dir / "Library"))
            return make(EnvKind::Conda, LayoutOs::Windows, dir, dir / "python.exe");
        return make(EnvKind::Conda, LayoutOs::Posix, dir, posix_interpreter(dir));
    }
    if (is_file(dir / "python.exe")) {
        const bool embedded = find_pth(dir).has_value();
        return make(embedded ? EnvKind::Embedded : EnvKind::System, LayoutOs::Windows, dir, dir / "python.exe");
    }
    if (present(dir / "bin" / "python3") || present(dir / "bin" / "python"))
        return make(EnvKind::System, LayoutOs::Posix, dir, posix_interpreter(dir));
    return fail(ExitCode::EnvNotFound, "env.not_an_env", {{"path", dir.string()}});
}

Expected<Environment> inspect_interpreter(const stdfs::path& python_in) {
    const auto python = absolute_normal(python_in);
    if (!present(python)) return fail(ExitCode::EnvNotFound, "env.no_interpreter", {{"path", python.string()}});
    if (is_dir(python)) return inspect_environment_dir(python);
    const auto bin = python.parent_path();
    const LayoutOs os = str::lower(python.extension().string()) == ".exe" ? LayoutOs::Windows : LayoutOs::Posix;
    // The symlink is not followed: a venv's bin/python points at the base interpreter, and the
    // venv is what the user named.
    if (is_file(bin.parent_path() / "pyvenv.cfg")) return make(EnvKind::Venv, os, bin.parent_path(), python);
    if (is_file(bin / "pyvenv.cfg")) return make(EnvKind::Venv, os, bin, python);
    if (is_dir(bin / "conda-meta")) return make(EnvKind::Conda, os, bin, python);
    if (is_dir(bin.parent_path() / "conda-meta")) return make(EnvKind::Conda, os, bin.parent_path(), python);
    if (os == LayoutOs::Windows && find_pth(bin)) return make(EnvKind::Embedded, os, bin, python);
    const bool in_bin = bin.filename() == "bin" || bin.filename() == "Scripts";
    return make(EnvKind::System, os, in_bin ? bin.parent_path() : bin, python);
}

}  // namespace envfix::probe
