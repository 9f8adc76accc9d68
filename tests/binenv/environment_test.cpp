// Environment layouts: real venvs (Debian's python3, pyenv 3.8-3.13), a broken venv, a conda
// prefix, Windows layouts read on Linux from their files.
#include <gtest/gtest.h>

#include "envfix/probe/environment.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "layouts.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::probe;
namespace stdfs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(Environment, DebianVenvRunsOnceAndKnowsItself) {
    test::TempDir dir;
    test::make_venv(dir / "venv", true);
    auto env = inspect_environment_dir(dir / "venv");
    ASSERT_TRUE(env) << render(env.error().message, Lang::En);
    EXPECT_EQ(env->kind, EnvKind::Venv);
    EXPECT_EQ(env->layout_os, LayoutOs::Posix);
    EXPECT_EQ(env->interpreter, dir / "venv" / "bin" / "python");
    ASSERT_TRUE(env->pyvenv_cfg);
    load_facts(*env, {});
    ASSERT_EQ(env->status, EnvStatus::Ok) << (env->problem ? render(env->problem->message, Lang::En) : "");
    const auto& f = env->facts;
    EXPECT_TRUE(f.ran);
    EXPECT_TRUE(f.unknown.empty());
    EXPECT_EQ(f.major, 3);
    EXPECT_EQ(f.implementation_name, "cpython");
    EXPECT_EQ(stdfs::path(f.prefix), dir / "venv");
    EXPECT_EQ(f.base_prefix, "/usr");
    EXPECT_EQ(f.sys_platform, "linux");
    EXPECT_TRUE(f.glibc.has_value());
    EXPECT_TRUE(f.site_enabled);
    EXPECT_FALSE(f.user_site_enabled);  // a venv without system site-packages
    const auto site = dir / "venv" / "lib" / ("python3." + std::to_string(f.minor)) / "site-packages";
    ASSERT_FALSE(env->site_packages.empty());
    EXPECT_EQ(env->site_packages.front(), site);
    EXPECT_EQ(stdfs::path(f.purelib), site);
    EXPECT_EQ(stdfs::path(f.scripts), dir / "venv" / "bin");
    EXPECT_NE(f.ext_suffix.find("cpython-3"), std::string::npos);
}

TEST(Environment, PyenvVenvs38To313) {
    auto pythons = test::pyenv_pythons({"3.8", "3.9", "3.10", "3.11", "3.12", "3.13"});
    if (pythons.empty()) GTEST_SKIP() << "no pyenv interpreters on this machine";
    test::TempDir dir;
    for (const auto& python : pythons) {
        SCOPED_TRACE(python.string());
        auto version = python.parent_path().parent_path().filename().string();  // "3.12.1"
        auto venv = dir / ("v" + version);
        test::make_venv(venv, true, python);
        auto env = inspect_environment_dir(venv);
        ASSERT_TRUE(env);
        load_facts(*env, {});
        ASSERT_EQ(env->status, EnvStatus::Ok);
        EXPECT_EQ(env->facts.version, version);
        EXPECT_EQ(stdfs::path(env->facts.base_prefix), python.parent_path().parent_path());
        EXPECT_EQ(env->site_packages.front().filename(), "site-packages");
        // The same answers from files alone (what envfix says when the interpreter is gone).
        auto files = facts_from_files(*env);
        EXPECT_FALSE(files.ran);
        EXPECT_EQ(files.version, env->facts.version);
        EXPECT_EQ(files.purelib, env->facts.purelib);
        EXPECT_EQ(files.platform_machine, env->facts.platform_machine);
        EXPECT_EQ(files.ext_suffix, env->facts.ext_suffix);
        EXPECT_EQ(files.base_prefix, env->facts.base_prefix);
    }
}

TEST(Environment, OldAndAncientInterpretersStillReport) {
    auto pythons = test::pyenv_pythons({"2.7", "3.6", "3.7"});
    if (pythons.empty()) GTEST_SKIP() << "no pyenv interpreters on this machine";
    for (const auto& python : pythons) {
        SCOPED_TRACE(python.string());
        auto f = run_interpreter_facts(python, std::chrono::seconds(20));
        ASSERT_TRUE(f) << render(f.error().message, Lang::En);  // 2.7: the -E -s fallback
        EXPECT_EQ(stdfs::path(f->executable), python);
        EXPECT_GT(f->major, 1);
    }
}

TEST(Environment, BrokenVenvIsReadFromItsFiles) {
    test::TempDir dir;
    test::make_venv(dir / "venv", true);
    // The base interpreter is gone: every bin/python* link dangles.
    for (const char* n : {"python", "python3", "python3.11", "python3.12", "python3.13"}) stdfs::remove(dir / "venv/bin" / n);
    stdfs::create_symlink("/nonexistent/python3.11", dir / "venv/bin/python");
    auto env = inspect_environment_dir(dir / "venv");
    ASSERT_TRUE(env);
    load_facts(*env, {});
    EXPECT_EQ(env->status, EnvStatus::Broken);
    ASSERT_TRUE(env->problem);
    EXPECT_EQ(env->problem->code, ExitCode::EnvBroken);
    EXPECT_EQ(env->problem->message.key, "env.interpreter_missing");
    EXPECT_NE(render(env->problem->message, Lang::En).find((dir / "venv").string()), std::string::npos);
    EXPECT_FALSE(env->facts.ran);
    EXPECT_EQ(env->facts.major, 3);
    EXPECT_FALSE(env->facts.version.empty());  // pyvenv.cfg's "version = 3.11.2"
    ASSERT_EQ(env->site_packages.size(), 1u);
    EXPECT_TRUE(has(env->facts.unknown, "platform_machine"));
}

TEST(Environment, CondaPrefix) {
    test::TempDir dir;
    auto prefix = test::make_conda_prefix(dir / "envs" / "sd", test::test_python(), "3.11.2");
    auto env = inspect_environment_dir(prefix);
    ASSERT_TRUE(env);
    EXPECT_EQ(env->kind, EnvKind::Conda);
    EXPECT_EQ(env->interpreter, prefix / "bin" / "python3");
    auto files = facts_from_files(*env);
    EXPECT_EQ(files.version, "3.11.2");
    EXPECT_EQ(files.implementation_name, "cpython");
    EXPECT_EQ(files.purelib, (prefix / "lib/python3.11/site-packages").string());
    load_facts(*env, {});
    EXPECT_EQ(env->status, EnvStatus::Ok);
    EXPECT_EQ(env->facts.major, 3);
}

TEST(Environment, EmbeddedPythonWithImportSite) {
    test::TempDir dir;
    auto root = test::make_embedded(dir / "ComfyUI_windows_portable" / "python_embeded",
                                    "python312.zip\n.\nLib/site-packages\n../ComfyUI\n\n# Uncomment to run site.main() automatically\nimport site\n");
    auto env = inspect_environment_dir(root);
    ASSERT_TRUE(env);
    EXPECT_EQ(env->kind, EnvKind::Embedded);
    EXPECT_EQ(env->layout_os, LayoutOs::Windows);
    ASSERT_TRUE(env->pth_file);
    EXPECT_EQ(env->pth_file->filename(), "python312._pth");
    load_facts(*env, {});
    EXPECT_EQ(env->status, EnvStatus::FilesOnly);
    ASSERT_TRUE(env->problem);
    EXPECT_EQ(env->problem->message.key, "env.foreign_layout");
    const auto& f = env->facts;
    EXPECT_FALSE(f.ran);
    EXPECT_EQ(f.major, 3);
    EXPECT_EQ(f.minor, 12);
    EXPECT_TRUE(f.version.empty());
    EXPECT_TRUE(has(f.unknown, "version"));
    EXPECT_EQ(f.implementation_name, "cpython");
    EXPECT_EQ(f.sys_platform, "win32");
    EXPECT_EQ(f.os_name, "nt");
    EXPECT_EQ(f.platform_machine, "AMD64");
    EXPECT_EQ(f.sysconfig_platform, "win-amd64");
    EXPECT_EQ(f.ext_suffix, ".cp312-win_amd64.pyd");
    EXPECT_TRUE(f.site_enabled);
    ASSERT_EQ(env->site_packages.size(), 1u);
    EXPECT_EQ(env->site_packages[0], root / "Lib" / "site-packages");
    EXPECT_FALSE(has(f.unknown, "glibc"));  // not a thing on Windows
}

TEST(Environment, EmbeddedPythonWithoutImportSite) {
    test::TempDir dir;
    // As python.org ships it: "#import site" commented out. Lib/site-packages is still on
    // sys.path when the ._pth lists it, and not otherwise.
    auto listed = test::make_embedded(dir / "a", "python312.zip\n.\nLib/site-packages\n#import site\n");
    auto env = inspect_environment_dir(listed);
    ASSERT_TRUE(env);
    load_facts(*env, {});
    EXPECT_FALSE(env->facts.site_enabled);
    EXPECT_EQ(env->site_packages.size(), 1u);
    auto bare = test::make_embedded(dir / "b", "python312.zip\n.\n\n#import site\n");
    auto env2 = inspect_environment_dir(bare);
    ASSERT_TRUE(env2);
    load_facts(*env2, {});
    EXPECT_FALSE(env2->facts.site_enabled);
    EXPECT_TRUE(env2->site_packages.empty());
}

TEST(Environment, WindowsVenvReadOnLinux) {
    test::TempDir dir;
    auto root = test::make_windows_venv(dir / "venv",
                                        "home = C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python310\n"
                                        "include-system-site-packages = false\nversion = 3.10.11\n");
    auto env = inspect_environment_dir(root);
    ASSERT_TRUE(env);
    EXPECT_EQ(env->kind, EnvKind::Venv);
    EXPECT_EQ(env->layout_os, LayoutOs::Windows);
    EXPECT_EQ(env->interpreter, root / "Scripts" / "python.exe");
    load_facts(*env, {});
    EXPECT_EQ(env->status, EnvStatus::FilesOnly);
    EXPECT_EQ(env->facts.version, "3.10.11");
    EXPECT_EQ(env->facts.base_prefix, "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python310");
    EXPECT_EQ(env->facts.soabi, "");  // Windows has none before 3.13, and that is known
    EXPECT_FALSE(has(env->facts.unknown, "soabi"));
    EXPECT_EQ(env->facts.implementation_name, "cpython");  // no pypy*.exe beside python.exe
    EXPECT_EQ(env->facts.ext_suffix, ".cp310-win_amd64.pyd");
    EXPECT_EQ(env->site_packages, std::vector<stdfs::path>{root / "Lib" / "site-packages"});
}

TEST(Environment, InterpreterPathsLeadToTheirEnvironment) {
    test::TempDir dir;
    test::make_venv(dir / "venv", true);
    auto v = inspect_interpreter(dir / "venv" / "bin" / "python3");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->kind, EnvKind::Venv);
    EXPECT_EQ(v->root, dir / "venv");
    auto slash = inspect_environment_dir((dir / "venv").string() + "/");
    ASSERT_TRUE(slash);
    EXPECT_EQ(slash->root, dir / "venv");
    auto sys = inspect_interpreter(test::test_python());
    ASSERT_TRUE(sys);
    EXPECT_EQ(sys->kind, EnvKind::System);
    EXPECT_EQ(sys->root, test::test_python().parent_path().parent_path());
    auto emb = inspect_interpreter(test::make_embedded(dir / "pe", "python312.zip\n.\n") / "python.exe");
    ASSERT_TRUE(emb);
    EXPECT_EQ(emb->kind, EnvKind::Embedded);
    auto conda = inspect_interpreter(test::make_conda_prefix(dir / "c", test::test_python(), "3.11.2") / "bin" / "python3");
    ASSERT_TRUE(conda);
    EXPECT_EQ(conda->kind, EnvKind::Conda);
    EXPECT_EQ(conda->root, dir / "c");
}

TEST(Environment, NotEnvironmentsAreClearErrors) {
    test::TempDir dir;
    test::write_text(dir / "file.txt", "x");
    stdfs::create_directories(dir / "empty");
    struct C {
        stdfs::path path;
        std::string key;
    };
    for (const auto& c : {C{dir / "missing", "env.not_found"}, C{dir / "file.txt", "env.not_an_env"},
                          C{dir / "empty", "env.not_an_env"}}) {
        auto e = inspect_environment_dir(c.path);
        ASSERT_FALSE(e);
        EXPECT_EQ(e.error().code, ExitCode::EnvNotFound);
        EXPECT_EQ(e.error().message.key, c.key);
        EXPECT_NE(render(e.error().message, Lang::En).find(c.path.string()), std::string::npos);
    }
    auto p = inspect_interpreter(dir / "nope" / "python");
    ASSERT_FALSE(p);
    EXPECT_EQ(p.error().message.key, "env.no_interpreter");
}

TEST(Environment, PyvenvCfgAndPthParsersTable) {
    auto cfg = parse_pyvenv_cfg("home = /usr/bin\nInclude-System-Site-Packages = true\n# c\n\nversion_info = 3.12.3.final.0\nbad line\n");
    ASSERT_EQ(cfg.size(), 3u);
    EXPECT_EQ(cfg[0], (std::pair<std::string, std::string>{"home", "/usr/bin"}));
    EXPECT_EQ(cfg[1], (std::pair<std::string, std::string>{"include-system-site-packages", "true"}));
    EXPECT_EQ(cfg[2].second, "3.12.3.final.0");
    struct C {
        std::string text;
        bool site;
        size_t paths;
    };
    for (const auto& c : {C{"python312.zip\n.\n\n#import site\n", false, 2}, C{"python312.zip\r\n.\r\nimport site\r\n", true, 2},
                          C{"import site  \n", true, 0}, C{"# import site\nLib\\site-packages\n", false, 1},
                          C{"import sys; sys.path.append('x')\n", false, 0}, C{"", false, 0}}) {
        auto pth = parse_pth(c.text);
        EXPECT_EQ(pth.import_site, c.site) << c.text;
        EXPECT_EQ(pth.paths.size(), c.paths) << c.text;
    }
}

}  // namespace
