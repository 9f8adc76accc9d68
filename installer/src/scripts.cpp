// Entry points and launcher texts (scripts.hpp).
#include "envfix/installer/scripts.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>

#include "envfix/common/bytes.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::installer {

namespace {

// Python identifiers and dotted paths; non-ASCII bytes pass (Python allows Unicode letters).
bool dotted_name(std::string_view s) {
    if (s.empty() || s.front() == '.' || s.back() == '.') return false;
    char prev = 0;
    for (char c : s) {
        auto u = static_cast<unsigned char>(c);
        bool ok = u >= 0x80 || std::isalnum(u) || c == '_' || c == '.';
        if (!ok || (c == '.' && prev == '.')) return false;
        prev = c;
    }
    return !std::isdigit(static_cast<unsigned char>(s.front()));
}

bool digits_and_dots(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

}  // namespace

std::string unsafe_script_name(std::string_view name) {
    if (name.empty()) return "empty name";
    if (name == "." || name == "..") return "'" + std::string(name) + "' is not a file name";
    for (char c : name) {
        auto u = static_cast<unsigned char>(c);
        if (c == '/' || c == '\\') return "path separator in the name";
        if (c == ':') return "':' in the name";
        if (u < 0x20 || u == 0x7F) return "control character in the name";
    }
    std::string n = str::lower(name);
    if (n.ends_with(".exe")) n.resize(n.size() - 4);
    if (n.starts_with("pypy") || n.starts_with("graalpy")) return "it would shadow the Python interpreter";
    // The environment's activation scripts (venv's, virtualenv's, conda's).
    for (std::string_view a : {"activate", "activate.bat", "activate.csh", "activate.fish", "activate.nu", "activate.ps1", "activate.xsh",
                               "activate_this.py", "deactivate", "deactivate.bat", "deactivate.nu"})
        if (str::lower(name) == a) return "it would replace the environment's activation script";
    if (n.starts_with("python")) {
        std::string_view rest = std::string_view(n).substr(6);
        if (!rest.empty() && rest.back() == 'w') rest.remove_suffix(1);
        if (!rest.empty() && rest.back() == 't') rest.remove_suffix(1);
        if (digits_and_dots(rest)) return "it would shadow the Python interpreter";
    }
    return {};
}

Expected<std::vector<EntryPoint>> parse_entry_points(std::string_view text, std::string_view source) {
    std::vector<EntryPoint> out;
    std::string section;
    size_t line_no = 0;
    for (auto raw : str::split(text, '\n')) {
        ++line_no;
        auto line = str::trim(raw);
        if (line.empty() || line.front() == '#' || line.front() == ';') continue;
        if (line.front() == '[') {
            if (line.back() != ']')
                return fail(ExitCode::BadWheel, "scripts.bad_entry_point",
                            {{"source", std::string(source)}, {"line", std::to_string(line_no)}, {"text", std::string(line)}});
            section = std::string(str::trim(line.substr(1, line.size() - 2)));
            continue;
        }
        if (section != "console_scripts" && section != "gui_scripts") continue;
        auto eq = line.find('=');
        auto bad = [&] {
            return fail(ExitCode::BadWheel, "scripts.bad_entry_point",
                        {{"source", std::string(source)}, {"line", std::to_string(line_no)}, {"text", std::string(line)}});
        };
        if (eq == std::string_view::npos) return bad();
        EntryPoint ep;
        ep.name = std::string(str::trim(line.substr(0, eq)));
        ep.gui = section == "gui_scripts";
        std::string_view value = str::trim(line.substr(eq + 1));
        if (auto bracket = value.find('['); bracket != std::string_view::npos) value = str::trim(value.substr(0, bracket));
        auto colon = value.find(':');
        if (colon == std::string_view::npos) return bad();  // pip: "A callable suffix is required"
        ep.module = std::string(str::trim(value.substr(0, colon)));
        ep.attr = std::string(str::trim(value.substr(colon + 1)));
        if (!dotted_name(ep.module) || !dotted_name(ep.attr)) return bad();
        if (auto why = unsafe_script_name(ep.name); !why.empty())
            return fail(ExitCode::BadWheel, "scripts.unsafe_name",
                        {{"source", std::string(source)}, {"name", ep.name}, {"reason", why}});
        out.push_back(std::move(ep));
    }
    return out;
}

std::vector<EntryPoint> versioned_entry_points(std::vector<EntryPoint> eps, int major, int minor) {
    std::vector<EntryPoint> out;
    const std::string xy = std::to_string(major) + "." + std::to_string(minor);
    auto take = [&](std::string_view base, auto is_versioned, std::vector<std::string> names) {
        auto it = std::find_if(eps.begin(), eps.end(), [&](const EntryPoint& e) { return !e.gui && e.name == base; });
        if (it == eps.end()) return;
        EntryPoint proto = *it;
        eps.erase(std::remove_if(eps.begin(), eps.end(), [&](const EntryPoint& e) { return !e.gui && is_versioned(e.name); }),
                  eps.end());
        for (auto& n : names) {
            EntryPoint e = proto;
            e.name = std::move(n);
            out.push_back(std::move(e));
        }
    };
    take("pip",
         [](std::string_view n) { return n.starts_with("pip") && digits_and_dots(n.substr(3)); },
         {"pip", "pip" + std::to_string(major), "pip" + xy});
    take("easy_install",
         [](std::string_view n) {
             return n == "easy_install" || (n.starts_with("easy_install-") && digits_and_dots(n.substr(13)));
         },
         {"easy_install", "easy_install-" + xy});
    for (auto& e : eps) out.push_back(std::move(e));
    return out;
}

std::string posix_shebang(std::string_view interpreter) {
    std::string exe(interpreter);
    bool spaces = exe.find(' ') != std::string::npos;
    if (spaces) exe = "\"" + exe + "\"";  // distlib's enquote_executable
    if (!spaces && exe.size() + 3 <= 127) return "#!" + exe + "\n";
    return "#!/bin/sh\n'''exec' " + exe + " \"$0\" \"$@\"\n' '''\n";
}

std::string launcher_body(const EntryPoint& ep) {
    std::string import_name = ep.attr.substr(0, ep.attr.find('.'));
    return "# -*- coding: utf-8 -*-\n"
           "import re\n"
           "import sys\n"
           "from " + ep.module + " import " + import_name + "\n"
           "if __name__ == '__main__':\n"
           "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
           "    sys.exit(" + ep.attr + "())\n";
}

std::string posix_launcher(const EntryPoint& ep, std::string_view interpreter) {
    return posix_shebang(interpreter) + launcher_body(ep);
}

namespace {

void put16(std::string& out, uint32_t v) { bytes::put_le(out, v, 2); }
void put32(std::string& out, uint32_t v) { bytes::put_le(out, v, 4); }

// A zip of one stored file, as Python's ZipFile.writestr makes it (its date: 1980-01-01, the
// zip epoch, instead of the clock's, so the same wheel gives the same launcher).
std::string stored_zip(std::string_view name, std::string_view data) {
    const auto crc = static_cast<uint32_t>(::crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    const auto size = static_cast<uint32_t>(data.size()), name_len = static_cast<uint32_t>(name.size());
    constexpr uint32_t kDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01
    auto fields = [&](std::string& out) {
        put16(out, 20);  // version needed: 2.0
        put16(out, 0);  // flags
        put16(out, 0);  // stored
        put16(out, 0);  // time
        put16(out, kDate);
        put32(out, crc);
        put32(out, size);
        put32(out, size);
        put16(out, name_len);
        put16(out, 0);  // extra
    };
    std::string out;
    put32(out, 0x04034b50);
    fields(out);
    out += name;
    out += data;
    const auto central = static_cast<uint32_t>(out.size());
    put32(out, 0x02014b50);
    put16(out, 20);  // made by: 2.0, MS-DOS attributes
    fields(out);
    put16(out, 0);  // comment
    put16(out, 0);  // disk
    put16(out, 0);  // internal attributes
    put32(out, 0600u << 16);  // external attributes: rw------- as writestr sets them
    put32(out, 0);  // the local header's offset
    out += name;
    const auto central_size = static_cast<uint32_t>(out.size()) - central;
    put32(out, 0x06054b50);
    put16(out, 0);
    put16(out, 0);
    put16(out, 1);
    put16(out, 1);
    put32(out, central_size);
    put32(out, central);
    put16(out, 0);
    return out;
}

// distlib's _get_alternate_executable: a GUI script runs pythonw.exe beside python.exe.
std::string gui_interpreter(std::string exe) {
    auto slash = exe.find_last_of('\\');
    std::string leaf = slash == std::string::npos ? exe : exe.substr(slash + 1);
    if (str::lower(leaf) == "python.exe") exe = exe.substr(0, exe.size() - leaf.size()) + "pythonw.exe";
    return exe;
}

}  // namespace

std::string windows_exe_launcher(const EntryPoint& ep, std::string_view launcher, std::string_view interpreter_abs) {
    std::string exe = ep.gui ? gui_interpreter(std::string(interpreter_abs)) : std::string(interpreter_abs);
    if (exe.find(' ') != std::string::npos && !exe.starts_with('"')) exe = "\"" + exe + "\"";  // enquote_executable
    // _build_shebang ends the line with "\n"; _write_script adds os.linesep ("\r\n") after it.
    return std::string(launcher) + "#!" + exe + "\n\r\n" + stored_zip("__main__.py", launcher_body(ep));
}

WindowsLauncher windows_launcher(const EntryPoint& ep, std::string_view interpreter_from_scripts,
                                 std::string_view interpreter_abs) {
    WindowsLauncher w;
    w.cmd_name = ep.name + ".cmd";
    w.script_name = ep.name + (ep.gui ? "-script.pyw" : "-script.py");
    const std::string exe = ep.gui ? gui_interpreter(std::string(interpreter_from_scripts)) : std::string(interpreter_from_scripts);
    // %~dp0 is the folder of the .cmd with a trailing backslash; quoting keeps spaces working.
    w.cmd_text = "@echo off\r\n\"%~dp0" + exe + "\" \"%~dp0" + w.script_name + "\" %*\r\n";
    w.script_text = "#!" + std::string(interpreter_abs) + "\r\n" + str::replace_all(launcher_body(ep), "\n", "\r\n");
    return w;
}

std::optional<std::string> rewrite_python_shebang(std::string_view script, std::string_view interpreter,
                                                  std::string_view line_end) {
    if (!script.starts_with("#!python")) return std::nullopt;
    auto nl = script.find('\n');
    std::string_view rest = nl == std::string_view::npos ? std::string_view() : script.substr(nl + 1);
    return "#!" + std::string(interpreter) + std::string(line_end) + std::string(rest);
}

}  // namespace envfix::installer
