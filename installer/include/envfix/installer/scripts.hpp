#pragma once
// Scripts a wheel brings: console and GUI entry points (entry_points.txt) turned into
// launchers, and `#!python` scripts from `.data/scripts/` pointed at the target interpreter.
// Pure: text in, text out; tested without disk.
//
//   auto eps = parse_entry_points(text, "pip-24.2.dist-info/entry_points.txt");
//   auto specs = versioned_entry_points(*eps, 3, 12);      // pip's pip3 / pip3.12 rule
//   posix_launcher(specs[0], "/venv/bin/python");          // the script pip would write
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::installer {

struct EntryPoint {
    std::string name;    // the command: "pip"
    std::string module;  // "pip._internal.cli.main"
    std::string attr;    // "main" (dotted attributes allowed: "App.run")
    bool gui = false;    // [gui_scripts]
};

// The [console_scripts] and [gui_scripts] sections (other groups are ignored), read as
// importlib.metadata reads them: "name = module:attr [extras]", '#' and ';' comments.
// Errors: ExitCode::BadWheel, "scripts.bad_entry_point" (no ":attr", bad names),
// "scripts.unsafe_name" (a name that would land outside the scripts folder or shadow python).
Expected<std::vector<EntryPoint>> parse_entry_points(std::string_view text, std::string_view source);

// Why a script name is refused ("" when fine): path separators, ":", ".", "..", control
// characters, or a name that shadows the interpreter (python, python3, python3.12, pythonw,
// python3.13t, pypy*, graalpy*, with or without ".exe") or an activation script (activate, Activate.ps1 …).
std::string unsafe_script_name(std::string_view name);

// pip's rule for the entry points pip and setuptools build into universal wheels: "pip" also
// gives "pipX" and "pipX.Y" for the target Python, other "pipN[.M]" entries are dropped; the
// same for "easy_install" ("easy_install-X.Y").
std::vector<EntryPoint> versioned_entry_points(std::vector<EntryPoint> eps, int major, int minor);

// The first line of a POSIX launcher for `interpreter`, as distlib (pip) builds it: "#!path\n",
// or, for paths with spaces or longer than 127 bytes, the "/bin/sh" line with an exec trick.
std::string posix_shebang(std::string_view interpreter);
// The Python body of a launcher (distlib's template, which pip, installer and uv also write).
std::string launcher_body(const EntryPoint& ep);
// A POSIX launcher: posix_shebang + launcher_body; byte for byte what pip writes.
std::string posix_launcher(const EntryPoint& ep, std::string_view interpreter);

// Windows, as pip writes it: "<name>.exe", distlib's launcher (`launcher`: t64.exe for console
// scripts, w64.exe for GUI ones, the bytes of the environment's own pip) followed by
// "#!<interpreter>\n\r\n" (pythonw.exe for GUI scripts, quoted when it holds a space) and a zip
// holding the body as __main__.py, which the launcher runs the interpreter on.
std::string windows_exe_launcher(const EntryPoint& ep, std::string_view launcher, std::string_view interpreter_abs);

// Windows without a launcher to copy (an environment without pip): two files, "<name>.cmd", which runs the environment's own
// python.exe (pythonw.exe for GUI scripts) by a path relative to the .cmd itself (so a moved
// portable folder keeps working), and "<name>-script.py" (".pyw" for GUI) with the body.
struct WindowsLauncher {
    std::string cmd_name, cmd_text;
    std::string script_name, script_text;
};
// `interpreter_from_scripts`: the interpreter's path relative to the scripts folder, with
// backslashes ("python.exe" in a venv's Scripts, "..\\python.exe" for an embedded Python).
WindowsLauncher windows_launcher(const EntryPoint& ep, std::string_view interpreter_from_scripts,
                                 std::string_view interpreter_abs);

// pip's fix_script: a script whose first line starts with "#!python" (also "#!pythonw") gets
// "#!<interpreter><line end>" instead; nullopt when the script does not start that way.
std::optional<std::string> rewrite_python_shebang(std::string_view script, std::string_view interpreter,
                                                  std::string_view line_end);

}  // namespace envfix::installer
