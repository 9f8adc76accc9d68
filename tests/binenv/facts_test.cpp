// Interpreter facts: one run, its output parsed, cached, invalidated when the interpreter or
// its config files change; interpreters that fail, hang or print garbage.
#include <gtest/gtest.h>

#include <thread>

#include "envfix/probe/environment.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "layouts.hpp"
#include "envfix/common/strings.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::probe;
namespace stdfs = std::filesystem;
using namespace std::chrono_literals;

namespace {

TEST(Facts, DebianPythonFromOneRun) {
    auto f = run_interpreter_facts(test::test_python(), 20s);
    ASSERT_TRUE(f) << render(f.error().message, Lang::En);
    EXPECT_TRUE(f->ran);
    EXPECT_EQ(f->major, 3);
    EXPECT_EQ(f->platform_system, "Linux");
    EXPECT_EQ(f->os_name, "posix");
    EXPECT_EQ(f->platform_python_implementation, "CPython");
    EXPECT_TRUE(f->glibc.has_value());
    EXPECT_FALSE(f->musl.has_value());
    EXPECT_FALSE(f->soabi.empty());
    EXPECT_FALSE(f->sysconfig_platform.empty());
    EXPECT_FALSE(f->site_packages.empty());
}

TEST(Facts, OutputParserTable) {
    const std::string good = R"(ENVFIX_FACTS {"version": "3.12.3", "major": 3, "minor": 12, "glibc": [2, 39], "musl": null,)"
                             R"( "site_packages": ["/x/site-packages"], "site_enabled": false})";
    struct C {
        std::string name;
        std::string out;
        bool ok;
    };
    const std::vector<C> cases = {
        {"plain", good + "\n", true},
        {"noise before (sitecustomize prints)", "hello from sitecustomize\n" + good + "\n", true},
        {"no marker", "{\"version\": \"3.12.3\"}\n", false},
        {"not json", "ENVFIX_FACTS {oops\n", false},
        {"not an object", "ENVFIX_FACTS [1, 2]\n", false},
        {"no version", "ENVFIX_FACTS {\"major\": 3}\n", false},
        {"wrong type", "ENVFIX_FACTS {\"version\": 3, \"major\": 3}\n", false},
        {"empty", "", false},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto f = parse_interpreter_output(c.out, "/py");
        EXPECT_EQ(f.has_value(), c.ok);
        if (f) {
            EXPECT_EQ(f->version, "3.12.3");
            EXPECT_EQ(f->glibc, std::make_pair(2, 39));
            EXPECT_FALSE(f->site_enabled);
            EXPECT_EQ(f->site_packages, std::vector<std::string>{"/x/site-packages"});
        } else {
            EXPECT_EQ(f.error().code, ExitCode::EnvBroken);
            EXPECT_EQ(f.error().message.key, "env.bad_facts");
            EXPECT_NE(render(f.error().message, Lang::En).find("/py"), std::string::npos);
        }
    }
}

TEST(Facts, SecondReadComesFromTheCacheUntilTheInterpreterChanges) {
    test::TempDir dir;
    auto python = dir / "bin" / "python3";
    auto log = dir / "runs.log";
    test::write_recording_python(python, log, test::test_python());
    auto cache_file = dir / "cache" / "interpreters-v1.json";
    {
        auto cache = FactsCache::load(cache_file);
        ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
        EXPECT_EQ(test::count_lines(log), 1);
        ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
        EXPECT_EQ(test::count_lines(log), 1);  // in-memory hit
        ASSERT_TRUE(cache.save());
    }
    {
        auto cache = FactsCache::load(cache_file);  // a new envfix process
        auto f = interpreter_facts(python, &cache, 20s);
        ASSERT_TRUE(f);
        EXPECT_EQ(f->major, 3);
        EXPECT_EQ(test::count_lines(log), 1);
        EXPECT_FALSE(cache.dirty());
    }
    // A changed interpreter (size and mtime) is run again.
    std::this_thread::sleep_for(20ms);
    test::write_recording_python(python, log, test::test_python());
    test::write_text(python, test::read_text(python) + "# upgraded\n");
    {
        auto cache = FactsCache::load(cache_file);
        ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
        EXPECT_EQ(test::count_lines(log), 2);
    }
}

TEST(Facts, PyvenvCfgChangeInvalidates) {
    test::TempDir dir;
    auto python = dir / "venv" / "bin" / "python";
    auto log = dir / "runs.log";
    test::write_recording_python(python, log, test::test_python());
    test::write_text(dir / "venv" / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
    auto cache = FactsCache::in_memory();
    ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
    ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
    EXPECT_EQ(test::count_lines(log), 1);
    std::this_thread::sleep_for(20ms);
    test::write_text(dir / "venv" / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\n");
    ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
    EXPECT_EQ(test::count_lines(log), 2);
}

TEST(Facts, AVenvMadeAgainFromTheSameInterpreterKeepsItsFacts) {
    // As `python -m venv` makes it: bin/python a link to the base, pyvenv.cfg beside bin/. Made
    // again (new inodes, new mtimes) with the same text, its facts come from the cache.
    test::TempDir dir;
    auto base = dir / "base" / "python3";
    auto log = dir / "runs.log";
    test::write_recording_python(base, log, test::test_python());
    auto make_venv = [&](const std::string& cfg) {
        std::filesystem::remove_all(dir / "venv");
        std::filesystem::create_directories(dir / "venv" / "bin");
        std::filesystem::create_symlink(base, dir / "venv" / "bin" / "python");
        test::write_text(dir / "venv" / "pyvenv.cfg", cfg);
    };
    const std::string cfg = "home = " + (dir / "base").string() + "\ninclude-system-site-packages = false\n";
    auto python = dir / "venv" / "bin" / "python";
    auto cache = FactsCache::in_memory();
    make_venv(cfg);
    ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
    std::this_thread::sleep_for(20ms);
    make_venv(cfg);
    ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
    EXPECT_EQ(test::count_lines(log), 1);
    make_venv(cfg + "version = 3.99.0\n");  // another base's venv at the same path
    ASSERT_TRUE(interpreter_facts(python, &cache, 20s));
    EXPECT_EQ(test::count_lines(log), 2);
}

TEST(Facts, ANewVenvsFactsComeFromAnotherVenvOfTheSameBase) {
    // Real venvs of Debian's python3 and of the other interpreters here: the facts moved from a
    // cached sibling are what the new venv's interpreter reports, field for field.
    std::vector<std::filesystem::path> bases = {test::test_python()};
    if (const char* home = std::getenv("HOME"))
        for (const char* v : {"3.8", "3.10", "3.12", "3.13"}) {
            std::error_code ec;
            for (auto it = std::filesystem::directory_iterator(std::filesystem::path(home) / ".pyenv/versions", ec);
                 !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
                if (it->path().filename().string().starts_with(std::string(v) + ".") && std::filesystem::exists(it->path() / "bin/python3"))
                    bases.push_back(it->path() / "bin/python3");
        }
    for (const auto& base : bases) {
        SCOPED_TRACE(base.string());
        test::TempDir dir;
        auto a = test::make_venv(dir / "a", true, base);
        auto b = test::make_venv(dir / "b b", true, base);  // a space in its path
        auto truth = run_interpreter_facts(b, 20s);
        ASSERT_TRUE(truth) << render(truth.error().message, Lang::En);
        auto cache = FactsCache::in_memory();
        EXPECT_FALSE(cache.derive(b));  // nothing cached yet
        ASSERT_TRUE(interpreter_facts(a, &cache, 20s));
        auto derived = cache.derive(b);
        ASSERT_TRUE(derived);
        for (const auto& f : python_facts_string_fields()) EXPECT_EQ((*derived).*(f.member), (*truth).*(f.member)) << f.name;
        for (const auto& f : python_facts_bool_fields()) EXPECT_EQ((*derived).*(f.member), (*truth).*(f.member)) << f.name;
        EXPECT_EQ(derived->site_packages, truth->site_packages);
        EXPECT_EQ(derived->major, truth->major);
        EXPECT_EQ(derived->minor, truth->minor);
        EXPECT_EQ(derived->glibc, truth->glibc);
        // Not from a venv whose pyvenv.cfg says otherwise, nor through a linked folder.
        test::write_text(dir / "b b" / "pyvenv.cfg",
                         str::replace_all(test::read_text(dir / "b b" / "pyvenv.cfg"), "include-system-site-packages = false",
                                          "include-system-site-packages = true"));
        EXPECT_FALSE(cache.derive(b));
        std::filesystem::create_directory_symlink(dir / "a", dir / "link");
        EXPECT_FALSE(cache.derive(dir / "link" / "bin" / "python"));
        // What derive needs is kept in the cache file.
        auto c = test::make_venv(dir / "c", true, base);
        {
            auto saved = FactsCache::load(dir / "cache.json");
            ASSERT_TRUE(interpreter_facts(a, &saved, 20s));
            ASSERT_TRUE(saved.save());
        }
        EXPECT_TRUE(FactsCache::load(dir / "cache.json").derive(c));
    }
}

TEST(Facts, ASiblingWhosePathDiffersIsNotCopied) {
    // A sibling's .pth that adds a site-packages folder of its own, a sibling probed while its
    // site-packages was missing, and a new venv that holds a .pth itself: the interpreter is run.
    test::TempDir dir;
    const auto base = test::test_python();
    auto a = test::make_venv(dir / "a", true, base);
    auto b = test::make_venv(dir / "b", true, base);
    auto site_of = [&](const std::filesystem::path& python) {
        auto f = run_interpreter_facts(python, 20s);
        EXPECT_TRUE(f);
        return std::filesystem::path(f ? f->purelib : "");
    };
    const auto a_site = site_of(a), b_site = site_of(b);
    {
        std::filesystem::create_directories(dir / "x" / "site-packages");
        test::write_text(a_site / "extra.pth", (dir / "x" / "site-packages").string() + "\n");
        auto cache = FactsCache::in_memory();
        auto fa = interpreter_facts(a, &cache, 20s);
        ASSERT_TRUE(fa);
        ASSERT_EQ(fa->site_packages.size(), 2u) << "the .pth folder is listed";
        EXPECT_FALSE(cache.derive(b));
        // Its .pth gone (as when A is made again): its cached facts, with the .pth's folder, are not used.
        EXPECT_TRUE(cache.find(a));
        std::filesystem::remove(a_site / "extra.pth");
        EXPECT_FALSE(cache.find(a));
    }
    {
        std::filesystem::rename(a_site, dir / "aside");
        auto cache = FactsCache::in_memory();
        ASSERT_TRUE(interpreter_facts(a, &cache, 20s));
        std::filesystem::rename(dir / "aside", a_site);
        EXPECT_FALSE(cache.derive(b));
    }
    {
        auto cache = FactsCache::in_memory();
        ASSERT_TRUE(interpreter_facts(a, &cache, 20s));
        EXPECT_TRUE(cache.derive(b));
        test::write_text(b_site / "editable.pth", "/somewhere\n");
        EXPECT_FALSE(cache.derive(b));
    }
}

TEST(Facts, OutdatedEntriesAndWhatWasWatchedBeforeTheRun) {
    test::TempDir dir;
    auto a = test::make_venv(dir / "a", true, test::test_python());
    auto cache = FactsCache::in_memory();
    EXPECT_FALSE(cache.outdated(a));  // no entry: nothing to learn again
    EXPECT_FALSE(cache.watched_now(a));
    auto facts = interpreter_facts(a, &cache, 20s);
    ASSERT_TRUE(facts);
    EXPECT_FALSE(cache.outdated(a));
    const std::filesystem::path site = facts->purelib;
    // An install brings a .pth: the entry is outdated.
    const auto before = cache.watched_now(a);
    ASSERT_TRUE(before);
    test::write_text(site / "first.pth", "import sys\n");
    EXPECT_TRUE(cache.outdated(a));
    // A run that began before it (what it watched taken then) leaves the entry outdated: its facts
    // may predate the .pth.
    cache.put(a, *facts, before);
    EXPECT_TRUE(cache.outdated(a));
    // Watched before a run that began after it: current.
    const auto now = cache.watched_now(a);
    cache.put(a, *facts, now);
    EXPECT_FALSE(cache.outdated(a));
    EXPECT_TRUE(cache.find(a));
    // Its interpreter gone (the venv removed): not outdated, nothing to run.
    std::filesystem::remove_all(dir / "a");
    EXPECT_FALSE(cache.find(a));
    EXPECT_FALSE(cache.outdated(a));
}

TEST(Facts, SavingWritesOnlyWhatThisProcessPut) {
    // Two envfix processes: one learns a venv's facts again in the background while another,
    // which loaded the cache before, saves its own entry: the older copy it loaded is not written
    // back over the newer one.
    test::TempDir dir;
    auto a = test::make_venv(dir / "a", true, test::test_python());
    auto b = test::make_venv(dir / "b", true, test::test_python());
    const auto file = dir / "cache.json";
    std::filesystem::path site;
    {
        auto first = FactsCache::load(file);
        auto f = interpreter_facts(a, &first, 20s);
        ASSERT_TRUE(f);
        site = f->purelib;
        ASSERT_TRUE(first.save());
    }
    test::write_text(site / "added.pth", "import sys\n");
    auto other = FactsCache::load(file);  // loaded now: a's entry outdated in it
    {
        auto background = FactsCache::load(file);
        ASSERT_TRUE(interpreter_facts(a, &background, 20s));
        ASSERT_TRUE(background.save());
    }
    ASSERT_TRUE(other.find(b) == std::nullopt);
    // b's facts made in the other process (a run, not derived: a has a .pth now).
    auto fb = run_interpreter_facts(b, 20s);
    ASSERT_TRUE(fb);
    other.put(b, *fb);
    ASSERT_TRUE(other.save());
    auto after = FactsCache::load(file);
    EXPECT_TRUE(after.find(a)) << "the background's entry was kept";
    EXPECT_TRUE(after.find(b));
}

TEST(Facts, CacheFileIsVersionedAndSurvivesDamage) {
    test::TempDir dir;
    auto file = dir / "interpreters-v1.json";
    test::write_text(file, "{\"version\": 1, \"entries\": {\"/x\": {\"stamp\": 5}}}");
    auto cache = FactsCache::load(file);
    EXPECT_FALSE(cache.find("/x"));
    ASSERT_TRUE(interpreter_facts(test::test_python(), &cache, 20s));
    ASSERT_TRUE(cache.save());
    auto text = test::read_text(file);
    EXPECT_NE(text.find("\"version\":1"), std::string::npos);
    EXPECT_NE(text.find(test::test_python().string()), std::string::npos);
    EXPECT_EQ(FactsCache::stamp(dir / "missing"), "");
    // An interpreter under a folder whose name is not UTF-8: saved without an error.
    auto odd = dir / std::string("b\xff\xfe" "d") / "python3";
    test::write_recording_python(odd, dir / "odd.log", test::test_python());
    auto facts = interpreter_facts(test::test_python(), &cache, 20s);
    ASSERT_TRUE(facts);
    cache.put(odd, *facts);
    EXPECT_TRUE(cache.save());
}

TEST(Facts, MisbehavingInterpretersAreEnvBroken) {
    test::TempDir dir;
    test::write_script(dir / "fails", "#!/bin/sh\necho 'Fatal Python error: init_fs_encoding' >&2\nexit 1\n");
    test::write_script(dir / "hangs", "#!/bin/sh\nsleep 30\n");
    test::write_script(dir / "garbage", "#!/bin/sh\ncat >/dev/null\necho 'ENVFIX_FACTS {'\n");
    test::write_text(dir / "not-executable", "#!/bin/sh\n");
    struct C {
        std::string name;
        std::string key;
    };
    for (const auto& c : {C{"fails", "env.run_exit"}, C{"hangs", "env.run_timeout"}, C{"garbage", "env.bad_facts"},
                          C{"not-executable", "env.run_failed"}}) {
        SCOPED_TRACE(c.name);
        auto started = std::chrono::steady_clock::now();
        auto f = run_interpreter_facts(dir / c.name, 1s);
        ASSERT_FALSE(f);
        EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
        EXPECT_EQ(f.error().code, ExitCode::EnvBroken);
        EXPECT_EQ(f.error().message.key, c.key);
        auto text = render(f.error().message, Lang::En);
        EXPECT_NE(text.find((dir / c.name).string()), std::string::npos) << text;
        EXPECT_EQ(text.find('\n'), std::string::npos) << text;
        if (c.name == "fails") {
            EXPECT_NE(text.find("init_fs_encoding"), std::string::npos) << text;
        }
    }
}

TEST(Facts, TheScriptIsSentOnStdinAndIsolated) {
    // A hostile json.py in the working folder or on PYTHONPATH must not shadow the stdlib.
    test::TempDir dir;
    test::write_text(dir / "json.py", "raise SystemExit('shadowed')\n");
    setenv("PYTHONPATH", dir.path().c_str(), 1);
    auto f = run_interpreter_facts(test::test_python(), 20s);
    unsetenv("PYTHONPATH");
    ASSERT_TRUE(f) << render(f.error().message, Lang::En);
    EXPECT_NE(interpreter_script().find("ENVFIX_FACTS"), std::string_view::npos);
}

}  // namespace
