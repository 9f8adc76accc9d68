// Entry points, launcher texts and script rewriting, table-driven (pure).
#include <gtest/gtest.h>

#include "envfix/installer/scripts.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::installer;
using namespace envfix::test;

TEST(EntryPoints, ReadsConsoleAndGuiScriptsOnly) {
    auto eps = parse_entry_points(
        "[console_scripts]\npip = pip._internal.cli.main:main\n# comment\n; other comment\n"
        "tool=pkg.cli:App.run [extra1]\n\n[gui_scripts]\nviewer = pkg.gui:start\n[other.group]\nx = y:z\n",
        "ep.txt");
    ASSERT_TRUE(eps) << render(eps.error().message, Lang::En);
    ASSERT_EQ(eps->size(), 3u);
    EXPECT_EQ((*eps)[0].name, "pip");
    EXPECT_EQ((*eps)[0].module, "pip._internal.cli.main");
    EXPECT_EQ((*eps)[0].attr, "main");
    EXPECT_EQ((*eps)[1].attr, "App.run");
    EXPECT_TRUE((*eps)[2].gui);
}

TEST(EntryPoints, RefusesBadAndUnsafeOnes) {
    struct Case {
        const char* text;
        const char* key;
    };
    for (const Case& c : std::vector<Case>{
             {"[console_scripts]\nx = mod\n", "scripts.bad_entry_point"},          // no callable (pip refuses too)
             {"[console_scripts]\nx = mod:\n", "scripts.bad_entry_point"},
             {"[console_scripts]\nx = 1mod:f\n", "scripts.bad_entry_point"},
             {"[console_scripts]\nnoequals\n", "scripts.bad_entry_point"},
             {"[console_scripts]\n../../outside = m:f\n", "scripts.unsafe_name"},  // pip#14000
             {"[console_scripts]\n.. = m:f\n", "scripts.unsafe_name"},
             {"[console_scripts]\nsub/x = m:f\n", "scripts.unsafe_name"},
             {"[console_scripts]\npython3 = m:f\n", "scripts.unsafe_name"},
             {"[gui_scripts]\npythonw = m:f\n", "scripts.unsafe_name"},
             {"[console_scripts]\npython3.13t = m:f\n", "scripts.unsafe_name"},
             {"[console_scripts]\npypy3 = m:f\n", "scripts.unsafe_name"},
         }) {
        auto eps = parse_entry_points(c.text, "ep.txt");
        ASSERT_FALSE(eps) << c.text;
        EXPECT_EQ(eps.error().code, ExitCode::BadWheel) << c.text;
        EXPECT_EQ(eps.error().message.key, c.key) << c.text;
    }
}

TEST(EntryPoints, UnsafeScriptNames) {
    for (const char* ok : {"pip", "python-config-helper", "pythonic", "py.test", "ipython", "my_tool", "x.exe.bak"})
        EXPECT_EQ(unsafe_script_name(ok), "") << ok;
    for (const char* bad : {"", ".", "..", "a/b", "a\\b", "c:x", "python", "python3", "python3.12", "Python.exe", "pythonw",
                            "python3.13t", "pypy", "graalpy", "tab\tname"})
        EXPECT_NE(unsafe_script_name(bad), "") << bad;
}

TEST(EntryPoints, PipAndEasyInstallGetTheTargetsVersions) {
    std::vector<EntryPoint> eps = {{"pip", "pip._internal.cli.main", "main"},
                                   {"pip3", "pip._internal.cli.main", "main"},
                                   {"pip3.10", "pip._internal.cli.main", "main"},
                                   {"easy_install", "setuptools.command.easy_install", "main"},
                                   {"easy_install-3.8", "setuptools.command.easy_install", "main"},
                                   {"other", "m", "f"}};
    auto out = versioned_entry_points(eps, 3, 12);
    std::vector<std::string> names;
    for (const auto& e : out) names.push_back(e.name);
    EXPECT_EQ(names, (std::vector<std::string>{"pip", "pip3", "pip3.12", "easy_install", "easy_install-3.12", "other"}));
}

TEST(Launchers, PosixLauncherIsWhatPipWrites) {
    EntryPoint ep{"pip", "pip._internal.cli.main", "main"};
    // bin/pip as pip 24.2 wrote it into a venv at /tmp/pv (byte for byte).
    EXPECT_EQ(posix_launcher(ep, "/tmp/pv/bin/python"),
              "#!/tmp/pv/bin/python\n"
              "# -*- coding: utf-8 -*-\n"
              "import re\n"
              "import sys\n"
              "from pip._internal.cli.main import main\n"
              "if __name__ == '__main__':\n"
              "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
              "    sys.exit(main())\n");
    EntryPoint dotted{"tool", "pkg.cli", "App.run"};
    auto body = launcher_body(dotted);
    EXPECT_NE(body.find("from pkg.cli import App\n"), std::string::npos);
    EXPECT_NE(body.find("sys.exit(App.run())"), std::string::npos);
}

TEST(Launchers, LongOrSpacedInterpretersUseTheShellTrick) {
    EXPECT_EQ(posix_shebang("/a/b/python"), "#!/a/b/python\n");
    EXPECT_EQ(posix_shebang("/my venv/bin/python"), "#!/bin/sh\n'''exec' \"/my venv/bin/python\" \"$0\" \"$@\"\n' '''\n");
    std::string long_path = "/" + std::string(130, 'x') + "/python";
    EXPECT_EQ(posix_shebang(long_path), "#!/bin/sh\n'''exec' " + long_path + " \"$0\" \"$@\"\n' '''\n");
    std::string edge = "/" + std::string(120, 'y') + "/py";  // 124 bytes + "#!" + "\n" = 127: still simple
    ASSERT_EQ(edge.size() + 3, 127u);
    EXPECT_EQ(posix_shebang(edge), "#!" + edge + "\n");
}

TEST(Launchers, WindowsPairRunsThePythonBesideIt) {
    EntryPoint ep{"tool", "pkg.cli", "main"};
    auto w = windows_launcher(ep, "..\\python.exe", "D:\\ComfyUI\\python_embeded\\python.exe");
    EXPECT_EQ(w.cmd_name, "tool.cmd");
    EXPECT_EQ(w.script_name, "tool-script.py");
    EXPECT_EQ(w.cmd_text, "@echo off\r\n\"%~dp0..\\python.exe\" \"%~dp0tool-script.py\" %*\r\n");
    EXPECT_EQ(w.script_text.rfind("#!D:\\ComfyUI\\python_embeded\\python.exe\r\n", 0), 0u);
    EXPECT_EQ(w.script_text.find('\n'), w.script_text.find("\r\n") + 1);
    EntryPoint gui{"viewer", "pkg.gui", "start", true};
    auto g = windows_launcher(gui, "python.exe", "C:\\venv\\Scripts\\python.exe");
    EXPECT_EQ(g.script_name, "viewer-script.pyw");
    EXPECT_EQ(g.cmd_text, "@echo off\r\n\"%~dp0pythonw.exe\" \"%~dp0viewer-script.pyw\" %*\r\n");
}

// distlib's layout (pip's _vendor/distlib/scripts.py, _write_script): the launcher's bytes, the
// shebang ("\n" from _build_shebang, then os.linesep), a zip whose __main__.py is the body; Python's
// own zipfile reads it as the launcher's interpreter will.
TEST(Launchers, WindowsExeIsDistlibsLauncherShebangAndZip) {
    const std::string launcher = std::string("MZ\x90\0launcher bytes", 18);
    EntryPoint ep{"tool", "pkg.cli", "main"};
    const auto exe = windows_exe_launcher(ep, launcher, "C:\\Program Files\\Py\\python.exe");
    ASSERT_EQ(exe.rfind(launcher, 0), 0u);
    const std::string shebang = "#!\"C:\\Program Files\\Py\\python.exe\"\n\r\n";
    ASSERT_EQ(exe.compare(launcher.size(), shebang.size(), shebang), 0) << exe.substr(launcher.size(), 60);
    TempDir dir{"launcher"};
    write_text(dir / "tool.exe", exe);
    auto r = run_program({ENVFIX_TEST_PYTHON, "-c",
                          "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.namelist()); "
                          "sys.stdout.write(z.read('__main__.py').decode())",
                          (dir / "tool.exe").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "['__main__.py']\n" + launcher_body(ep));

    EntryPoint gui{"viewer", "pkg.gui", "start", true};
    const auto w = windows_exe_launcher(gui, launcher, "D:\\env\\python.exe");
    const std::string gui_shebang = "#!D:\\env\\pythonw.exe\n\r\n";
    EXPECT_EQ(w.compare(launcher.size(), gui_shebang.size(), gui_shebang), 0) << w.substr(launcher.size(), 40);
}

TEST(Scripts, PythonShebangIsRewrittenLikePipDoes) {
    EXPECT_EQ(*rewrite_python_shebang("#!python\nprint(1)\n", "/v/bin/python", "\n"), "#!/v/bin/python\nprint(1)\n");
    EXPECT_EQ(*rewrite_python_shebang("#!pythonw -u\r\nx\r\n", "C:\\v\\python.exe", "\r\n"), "#!C:\\v\\python.exe\r\nx\r\n");
    EXPECT_EQ(*rewrite_python_shebang("#!python", "/p", "\n"), "#!/p\n");
    EXPECT_FALSE(rewrite_python_shebang("#!/usr/bin/env python\n", "/p", "\n"));
    EXPECT_FALSE(rewrite_python_shebang("echo hi\n", "/p", "\n"));
}
