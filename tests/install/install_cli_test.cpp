// `envfix install` and `envfix recover` end to end: the built binary, real venvs, wheels built
// by tests/tools/mkwheel.py, the installed scripts run.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "envfix/common/hash.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/standards/installed.hpp"
#include "install_fixtures.hpp"

using namespace envfix;
using namespace envfix::test;
using Json = nlohmann::ordered_json;

namespace {

class InstallCli : public ::testing::Test {
protected:
    void SetUp() override {
        home = dir / "home";
        venv = dir / "venv";
        make_bare_venv(venv);
        sp = site_packages(venv);
    }
    RunResult envfix(std::vector<std::string> args, const EnvList& env = {}) { return run_envfix(args, env, home); }
    stdfs::path wheel(const Json& spec) { return build_wheel(spec, dir / "wheels"); }
    // Everything of the venv but envfix's facts cache (outside it anyway).
    Tree state() { return snapshot(venv); }

    TempDir dir;
    stdfs::path home, venv, sp;
};

Json demo_spec(const std::string& version) {
    return {{"name", "demo-pkg"},
            {"version", version},
            {"files",
             {{"demo_pkg/__init__.py", "VERSION = '" + version + "'\n"},
              {"demo_pkg/cli.py", "def main():\n    print('demo says hi')\n    return 0\n"},
              {"demo_pkg/run.sh", {{"text", "#!/bin/sh\necho run\n"}, {"mode", 493}}}}},
            {"data",
             {{"scripts/demo-tool", {{"text", "#!python\nimport demo_pkg\nprint('tool', demo_pkg.VERSION)\n"}, {"mode", 493}}},
              {"headers/demo.h", "#define DEMO 1\n"},
              {"data/share/demo/readme.txt", "hello\n"}}},
            {"entry_points", {{"console_scripts", {{"demo-cli", "demo_pkg.cli:main"}}}, {"gui_scripts", {{"demo-gui", "demo_pkg.cli:main"}}}}}};
}

std::string sha256_record(const std::string& data) {
    Sha256 h;
    h.update(data);
    auto d = h.finish();
    return base64_urlsafe_nopad(d.data(), d.size());
}

}  // namespace

TEST_F(InstallCli, InstallsFilesScriptsAndMetadataAsPipWould) {
    auto w = wheel(demo_spec("1.0"));
    auto r = envfix({"install", "--env", venv.string(), w.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("installed demo-pkg 1.0"), std::string::npos) << r.out;

    EXPECT_TRUE(stdfs::exists(sp / "demo_pkg" / "cli.py"));
    EXPECT_TRUE((stdfs::status(sp / "demo_pkg" / "run.sh").permissions() & stdfs::perms::owner_exec) != stdfs::perms::none);
    EXPECT_TRUE((stdfs::status(sp / "demo_pkg" / "cli.py").permissions() & stdfs::perms::owner_exec) == stdfs::perms::none);
    EXPECT_EQ(read_text(venv / "share" / "demo" / "readme.txt"), "hello\n");
    auto header = venv / "include" / "site" / sp.parent_path().filename() / "demo-pkg" / "demo.h";
    EXPECT_TRUE(stdfs::exists(header)) << header;
    // #!python pointed at the venv's interpreter; launchers as pip writes them.
    auto tool = read_text(venv / "bin" / "demo-tool");
    EXPECT_EQ(tool.substr(0, tool.find('\n')), "#!" + (venv / "bin" / "python").string());
    auto launcher = read_text(venv / "bin" / "demo-cli");
    EXPECT_EQ(launcher.substr(0, launcher.find('\n')), "#!" + (venv / "bin" / "python").string());
    EXPECT_NE(launcher.find("from demo_pkg.cli import main"), std::string::npos);

    // The scripts run.
    auto cli = run_program({(venv / "bin" / "demo-cli").string()});
    EXPECT_EQ(cli.code, 0) << cli.err;
    EXPECT_EQ(cli.out, "demo says hi\n");
    auto t = run_program({(venv / "bin" / "demo-tool").string()});
    EXPECT_EQ(t.out, "tool 1.0\n") << t.err;

    // Metadata: INSTALLER, REQUESTED, direct_url.json, and a RECORD listing every file written
    // with its real hash and size.
    auto di = sp / "demo_pkg-1.0.dist-info";
    EXPECT_EQ(read_text(di / "INSTALLER"), "envfix\n");
    EXPECT_TRUE(stdfs::exists(di / "REQUESTED"));
    auto du = Json::parse(read_text(di / "direct_url.json"));
    EXPECT_EQ(du["url"], "file://" + w.string());
    EXPECT_EQ(du["archive_info"]["hashes"]["sha256"], sha256_hex(read_text(w)));
    auto rows = standards::parse_record(read_text(di / "RECORD"), "RECORD");
    ASSERT_TRUE(rows);
    size_t listed = 0;
    for (const auto& row : *rows) {
        auto p = (sp / row.path).lexically_normal();
        ASSERT_TRUE(stdfs::exists(p)) << row.path;
        if (row.path.ends_with("/RECORD")) {
            EXPECT_TRUE(row.hash_digest.empty());
            continue;
        }
        ++listed;
        EXPECT_EQ(row.hash_algorithm, "sha256") << row.path;
        EXPECT_EQ(row.hash_digest, sha256_record(read_text(p))) << row.path;
        EXPECT_EQ(row.size, stdfs::file_size(p)) << row.path;
    }
    // 3 package files, 3 data files, 2 launchers, METADATA, WHEEL, entry_points.txt, INSTALLER,
    // REQUESTED, direct_url.json.
    EXPECT_EQ(listed, 14u);
    // Nothing of envfix is left in the environment but its snapshots (docs/snapshots.md): no
    // journal, no staging folder.
    EXPECT_TRUE(stdfs::exists(venv / ".envfix" / "snapshots" / "1.snap"));
    for (const auto& e : stdfs::directory_iterator(venv / ".envfix"))
        EXPECT_TRUE(e.path().filename() == "snapshots" || e.path().filename() == "store") << e.path();
    for (const auto& e : stdfs::recursive_directory_iterator(venv))
        EXPECT_EQ(e.path().filename().string().find(".envfix-tx"), std::string::npos) << e.path();
}

TEST_F(InstallCli, UpgradeRemovesTheOldFilesAndTheirBytecodeButNotOthers) {
    Json v1 = {{"name", "demo"}, {"version", "1"},
               {"files", {{"demo/__init__.py", "x = 1\n"}, {"demo/old.py", "y = 1\n"}, {"demo/sub/deep.py", "z = 1\n"}}}};
    Json v2 = {{"name", "demo"}, {"version", "2"}, {"files", {{"demo/__init__.py", "x = 2\n"}, {"demo/new.py", "n = 2\n"}}}};
    ASSERT_EQ(envfix({"install", "--env", venv.string(), wheel(v1).string()}).code, 0);
    // Bytecode as Python writes it, and a file of the user's in the package folder.
    auto compile = run_program({(venv / "bin" / "python").string(), "-m", "compileall", "-q", (sp / "demo").string()});
    ASSERT_EQ(compile.code, 0) << compile.err;
    write_text(sp / "demo" / "user-notes.txt", "mine\n");
    auto r = envfix({"install", "--env", venv.string(), wheel(v2).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("removed demo 1"), std::string::npos) << r.out;
    EXPECT_FALSE(stdfs::exists(sp / "demo" / "old.py"));
    EXPECT_FALSE(stdfs::exists(sp / "demo" / "sub"));
    EXPECT_FALSE(stdfs::exists(sp / "demo-1.dist-info"));
    EXPECT_EQ(read_text(sp / "demo" / "__init__.py"), "x = 2\n");
    EXPECT_EQ(read_text(sp / "demo" / "user-notes.txt"), "mine\n");
    // The bytecode of every replaced or removed .py went; the folder with it, being empty.
    EXPECT_FALSE(stdfs::exists(sp / "demo" / "__pycache__"));
    auto py = run_program({(venv / "bin" / "python").string(), "-c", "import demo, demo.new; print(demo.x)"});
    EXPECT_EQ(py.out, "2\n") << py.err;
}

TEST_F(InstallCli, DryRunSaysWhatWouldChangeAndChangesNothing) {
    ASSERT_EQ(envfix({"install", "--env", venv.string(), wheel(demo_spec("1.0")).string()}).code, 0);
    auto before = state();
    auto r = envfix({"install", "--env", venv.string(), "--dry-run", wheel(demo_spec("2.0")).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("would remove demo-pkg 1.0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("would install demo-pkg 2.0"), std::string::npos) << r.out;
    EXPECT_EQ(tree_diff(before, state()), "");
}

TEST_F(InstallCli, JsonDocumentDescribesTheChange) {
    ASSERT_EQ(envfix({"install", "--env", venv.string(), wheel(demo_spec("1.0")).string()}).code, 0);
    auto r = envfix({"install", "--json", "--env", venv.string(), wheel(demo_spec("2.0")).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["schema_version"], 2);
    EXPECT_EQ(j["environment"]["root"], venv.string());
    ASSERT_EQ(j["installed"].size(), 1u);
    EXPECT_EQ(j["installed"][0]["name"], "demo-pkg");
    EXPECT_EQ(j["installed"][0]["version"], "2.0");
    ASSERT_EQ(j["removed"].size(), 1u);
    EXPECT_EQ(j["removed"][0]["version"], "1.0");
    EXPECT_GT(j["transaction"]["files_written"].get<int>(), 10);
    EXPECT_GE(j["transaction"]["moves"].get<int>(), 2);
    EXPECT_TRUE(j["error"].is_null());
    // The same version again: unchanged, nothing written.
    auto again = envfix({"install", "--json", "--env", venv.string(), wheel(demo_spec("2.0")).string()});
    ASSERT_EQ(again.code, 0);
    EXPECT_EQ(again.json()["unchanged"].size(), 1u);
    EXPECT_TRUE(again.json()["transaction"].is_null());
}

TEST_F(InstallCli, RefusalsLeaveTheEnvironmentAsItWas) {
    ASSERT_EQ(envfix({"install", "--env", venv.string(), wheel(demo_spec("1.0")).string()}).code, 0);
    Json other_python = {{"name", "demo-pkg"}, {"version", "3"}, {"tags", {"cp27-cp27mu-manylinux1_x86_64"}}};
    Json windows = {{"name", "demo-pkg"}, {"version", "3"}, {"tags", {"py3-none-win_amd64"}}};
    Json needs_new_python = {{"name", "demo-pkg"}, {"version", "3"}, {"requires_python", ">=3.99"}};
    Json needs_deps = {{"name", "needy"}, {"version", "1"}, {"requires_dist", {"missing-dep>=1", "demo-pkg<1", "skipped; python_version<'3'"}}};
    auto sdist = dir / "wheels" / "demo-pkg-3.0.tar.gz";
    write_text(sdist, "not really");
    struct Case {
        std::vector<std::string> args;
        int code;
        const char* text;  // in the error line
    };
    std::vector<Case> cases = {
        {{wheel(other_python).string()}, 61, "cp27"},
        {{wheel(windows).string()}, 61, "win_amd64"},
        {{wheel(needs_new_python).string()}, 61, ">=3.99"},
        {{sdist.string()}, 67, "demo-pkg-3.0.tar.gz"},
        {{"requests"}, 2, "\"requests\" is not part of the framework stack"},
        {{"torch==2.7.0", wheel(demo_spec("2.0")).string()}, 2, "not both"},
        {{(dir / "missing-1.0-py3-none-any.whl").string()}, 3, "missing-1.0-py3-none-any.whl"},
        {{wheel(needs_deps).string()}, 30, "missing-dep>=1"},
        {{wheel(demo_spec("2.0")).string(), wheel(demo_spec("3.0")).string()}, 2, "demo"},
    };
    for (const auto& c : cases) {
        auto before = state();
        std::vector<std::string> args = {"install", "--env", venv.string()};
        args.insert(args.end(), c.args.begin(), c.args.end());
        auto r = envfix(args);
        EXPECT_EQ(r.code, c.code) << c.args[0] << "\n" << r.err;
        auto line = first_error_line(r);
        EXPECT_NE(line.find(c.text), std::string::npos) << line;
        EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line:\n" << r.err;
        EXPECT_EQ(tree_diff(before, state()), "") << c.args[0];
    }
    // --no-deps installs it and says what is missing.
    auto r = envfix({"install", "--no-deps", "--env", venv.string(), wheel(needs_deps).string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("missing-dep>=1"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("demo-pkg<1 (1.0)"), std::string::npos) << r.err;
}

TEST_F(InstallCli, ADistributionWithoutRecordIsNotTouched) {
    ASSERT_EQ(envfix({"install", "--env", venv.string(), wheel(demo_spec("1.0")).string()}).code, 0);
    stdfs::remove(sp / "demo_pkg-1.0.dist-info" / "RECORD");
    auto before = state();
    auto r = envfix({"install", "--env", venv.string(), wheel(demo_spec("2.0")).string()});
    EXPECT_EQ(r.code, 68) << r.err;
    EXPECT_NE(first_error_line(r).find("demo-pkg 1.0"), std::string::npos) << r.err;
    EXPECT_EQ(tree_diff(before, state()), "");
}

// The snapshot of the present is captured on a thread of its own while the install plans: what
// it says (a distribution it cannot list the files of) still reaches the user, once.
TEST_F(InstallCli, TheSnapshotsWarningsAreToldWhileItIsTakenAlongsideThePlan) {
    ASSERT_EQ(envfix({"install", "--env", venv.string(), wheel(demo_spec("1.0")).string()}).code, 0);
    Json other = {{"name", "other-pkg"}, {"version", "1.0"}, {"files", {{"other_pkg/__init__.py", "X = 1\n"}}}};
    ASSERT_EQ(envfix({"install", "--env", venv.string(), wheel(other).string()}).code, 0);
    stdfs::remove(sp / "other_pkg-1.0.dist-info" / "RECORD");
    auto r = envfix({"install", "--env", venv.string(), wheel(demo_spec("2.0")).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string said = "other-pkg 1.0 has no RECORD";
    auto at = r.err.find(said);
    ASSERT_NE(at, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(said, at + 1), std::string::npos) << r.err;
    EXPECT_EQ(read_text(sp / "demo_pkg" / "__init__.py"), "VERSION = '2.0'\n");
}

TEST_F(InstallCli, UntrustedRecordCannotRemoveFilesOutsideTheEnvironment) {
    ASSERT_EQ(envfix({"install", "--env", venv.string(), wheel(demo_spec("1.0")).string()}).code, 0);
    auto outside = dir / "outside.txt";
    write_text(outside, "keep me\n");
    auto record = sp / "demo_pkg-1.0.dist-info" / "RECORD";
    auto rel = outside.lexically_relative(sp).generic_string();
    write_text(record, read_text(record) + rel + ",,\n" + outside.string() + ",,\n../../../bin/python,,\n../../../pyvenv.cfg,,\n");
    // A folder in site-packages that is a link to a folder outside, and one more level down: its
    // rows lie inside by their text, outside once the link is followed.
    auto away = dir / "away";
    write_text(away / "deeper" / "file.txt", "keep me too\n");
    write_text(away / "file.txt", "keep me too\n");
    stdfs::create_directory_symlink(away, sp / "linked");
    write_text(record, read_text(record) + "linked/file.txt,,\nlinked/deeper/file.txt,,\n");
    auto r = envfix({"install", "--env", venv.string(), wheel(demo_spec("2.0")).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(outside), "keep me\n");
    EXPECT_EQ(read_text(away / "file.txt"), "keep me too\n");
    EXPECT_EQ(read_text(away / "deeper" / "file.txt"), "keep me too\n");
    EXPECT_TRUE(stdfs::exists(venv / "bin" / "python"));
    EXPECT_TRUE(stdfs::exists(venv / "pyvenv.cfg"));
    EXPECT_NE(r.err.find("point outside"), std::string::npos) << r.err;
}

TEST_F(InstallCli, ASecondEnvfixIsToldWhoHoldsTheEnvironmentOrWaits) {
    auto w = wheel(demo_spec("1.0"));
    {
        HeldLock lock(venv);
        auto before = state();
        auto r = envfix({"install", "--env", venv.string(), w.string()});
        EXPECT_EQ(r.code, 64) << r.err;
        EXPECT_NE(first_error_line(r).find("process " + std::to_string(::getpid())), std::string::npos) << r.err;
        EXPECT_EQ(tree_diff(before, state()), "");
    }
    auto lock = std::make_unique<HeldLock>(venv);
    auto pid = spawn_envfix({"install", "--wait", "--env", venv.string(), w.string()}, {}, home, dir / "wait.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, WNOHANG), 0) << "envfix did not wait";
    lock.reset();
    EXPECT_EQ(wait_exit(pid), 0) << read_text(dir / "wait.log");
    EXPECT_NE(read_text(dir / "wait.log").find("waiting for envfix"), std::string::npos);
    EXPECT_TRUE(stdfs::exists(sp / "demo_pkg" / "cli.py"));
}

TEST_F(InstallCli, RecoverWithNothingToDo) {
    auto r = envfix({"recover", "--env", venv.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("nothing to recover"), std::string::npos);
    auto j = envfix({"recover", "--json", "--env", venv.string()});
    EXPECT_EQ(j.json()["recovered"].size(), 0u);
}

TEST(InstallSystem, ExternallyManagedPythonIsRefused) {
    auto marker = stdfs::path("/usr/lib/python3") / "EXTERNALLY-MANAGED";
    std::error_code ec;
    bool found = false;
    for (const auto& e : stdfs::directory_iterator("/usr/lib", ec))
        if (e.path().filename().string().rfind("python3.", 0) == 0 && stdfs::exists(e.path() / "EXTERNALLY-MANAGED")) found = true;
    if (!found) GTEST_SKIP() << "this machine's system Python is not EXTERNALLY-MANAGED";
    TempDir dir;
    auto w = build_wheel({{"name", "demo"}, {"version", "1"}}, dir / "w");
    auto r = run_envfix({"install", "--dry-run", "--python", test_python().string(), w.string()}, {}, dir / "home");
    EXPECT_EQ(r.code, 63) << r.err;
    EXPECT_NE(first_error_line(r).find("EXTERNALLY-MANAGED"), std::string::npos) << r.err;
}

TEST_F(InstallCli, Bzip2AndLzmaEntriesAreReadThroughLibarchive) {
    // Python's zipfile writes these methods, and pip installs such wheels.
    auto out = dir / "wheels" / "packed-1.0-py3-none-any.whl";
    stdfs::create_directories(out.parent_path());
    auto py = run_program({test_python().string(), "-c", R"(
import base64, hashlib, sys, zipfile
files = {"packed/__init__.py": b"A = 1\n", "packed/data.txt": b"x" * 100000 + b"\n",
         "packed-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: packed\nVersion: 1.0\n",
         "packed-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = "".join(f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n" for n, d in files.items())
files["packed-1.0.dist-info/RECORD"] = (rec + "packed-1.0.dist-info/RECORD,,\n").encode()
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for i, (n, d) in enumerate(files.items()):
        z.writestr(n, d, compress_type=[zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA, zipfile.ZIP_DEFLATED][i % 3])
)", out.string()});
    ASSERT_EQ(py.code, 0) << py.err;
    // Where libarchive is not installed: the library is named with its packages, the wheel is not
    // called damaged, and nothing changes.
    auto before = state();
    auto missing = envfix({"install", "--env", venv.string(), out.string()}, {{"ENVFIX_LIBARCHIVE", "/nonexistent/libarchive.so.13"}});
    EXPECT_EQ(missing.code, 5) << missing.err;  // library-missing
    const auto line = first_error_line(missing);
    EXPECT_NE(line.find("libarchive is not installed here"), std::string::npos) << line;
    EXPECT_NE(line.find("apt install libarchive13"), std::string::npos) << line;
    EXPECT_EQ(line.find("is damaged"), std::string::npos) << line;
    EXPECT_EQ(tree_diff(before, state()), "");
    auto r = envfix({"install", "--env", venv.string(), out.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(sp / "packed" / "data.txt"), std::string(100000, 'x') + "\n");
    auto run = run_program({(venv / "bin" / "python").string(), "-c", "import packed; print(packed.A)"});
    EXPECT_EQ(run.out, "1\n") << run.err;
}

TEST_F(InstallCli, BuildMachineBytecodeIsSkippedAndANewerFormatWarns) {
    Json spec = {{"name", "demo"}, {"version", "1"}, {"wheel_version", "1.9"},
                 {"files", {{"demo/__init__.py", ""}, {"demo/__pycache__/__init__.cpython-311.pyc", "not yours"}}}};
    auto r = envfix({"install", "--env", venv.string(), wheel(spec).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(stdfs::exists(sp / "demo" / "__pycache__"));
    EXPECT_NE(r.err.find("skipped 1 files under __pycache__"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("wheel format 1.9"), std::string::npos) << r.err;
    auto record = read_text(sp / "demo-1.dist-info" / "RECORD");
    EXPECT_EQ(record.find("__pycache__"), std::string::npos) << record;
    Json future = {{"name", "demo"}, {"version", "2"}, {"wheel_version", "2.0"}};
    auto before = state();
    auto f = envfix({"install", "--env", venv.string(), wheel(future).string()});
    EXPECT_EQ(f.code, 60) << f.err;
    EXPECT_NE(first_error_line(f).find("wheel format 2.0"), std::string::npos) << f.err;
    EXPECT_EQ(tree_diff(before, state()), "");
}

TEST_F(InstallCli, AnInstallThatChangedPthFilesLeavesTheInterpretersFactsLearntAgain) {
    // setuptools brings distutils-precedence.pth: the facts cached before the install no longer
    // hold, and the next command would run the interpreter first (50-65 ms of a switch on the GPU
    // machine). The install has them learnt again once it ends (here before it exits: the tests
    // run with ENVFIX_READY_TREES=wait), so the next command takes them from the cache.
    Json pth = {{"name", "shim"}, {"version", "1"},
                {"files", {{"shim-precedence.pth", "import os; os.environ.get('SHIM', '')\n"}, {"shim/__init__.py", ""}}}};
    auto r = envfix({"install", "-vv", "--env", venv.string(), wheel(pth).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("interpreter facts of " + (venv / "bin" / "python").string() + " learnt again ("), std::string::npos) << r.err;
    auto next = envfix({"doctor", "-vv", "--env", venv.string()});
    EXPECT_NE(next.err.find(": from the cache"), std::string::npos) << next.err;
    EXPECT_EQ(next.err.find(": it was run"), std::string::npos) << next.err;

    // An install that changed none: nothing is learnt again.
    Json plain = {{"name", "plain"}, {"version", "1"}, {"files", {{"plain/__init__.py", ""}}}};
    r = envfix({"install", "-vv", "--env", venv.string(), wheel(plain).string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("learnt again"), std::string::npos) << r.err;

    // ENVFIX_READY_TREES=0 (no process left behind, nothing after the command): the next one runs it.
    Json pth2 = {{"name", "shim2"}, {"version", "1"}, {"files", {{"shim2.pth", "import sys\n"}}}};
    r = envfix({"install", "-vv", "--env", venv.string(), wheel(pth2).string()}, {{"ENVFIX_READY_TREES", "0"}});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("learnt again"), std::string::npos) << r.err;
    next = envfix({"doctor", "-vv", "--env", venv.string()});
    EXPECT_NE(next.err.find(": it was run"), std::string::npos) << next.err;

    // Unset: nothing runs after the command either (no process outlives it unless asked for).
    Json pth4 = {{"name", "shim4"}, {"version", "1"}, {"files", {{"shim4.pth", "import sys\n"}}}};
    r = envfix({"install", "-vv", "--env", venv.string(), wheel(pth4).string()}, {{"ENVFIX_READY_TREES", ""}});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("learnt again"), std::string::npos) << r.err;

    // ENVFIX_READY_TREES=background: in a detached `envfix cache ready --no-trees --facts PYTHON`.
    Json pth3 = {{"name", "shim3"}, {"version", "1"}, {"files", {{"shim3.pth", "import sys\n"}}}};
    r = envfix({"install", "--env", venv.string(), wheel(pth3).string()}, {{"ENVFIX_READY_TREES", "background"}});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto python = venv / "bin" / "python";
    bool current = false;
    for (int i = 0; i < 200 && !current; ++i) {
        current = probe::FactsCache::load(home / ".cache/envfix/interpreters-v1.json").find(python).has_value();
        if (!current) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(current) << "the background process learnt them again within 10 s";

    // `envfix cache ready --facts`, as the background process is started: learns them again.
    write_text(sp / "user.pth", "# nothing\n");
    auto ready = envfix({"cache", "ready", "-vv", "--no-trees", "--facts", (venv / "bin" / "python").string()});
    ASSERT_EQ(ready.code, 0) << ready.err;
    EXPECT_NE(ready.err.find("learnt again"), std::string::npos) << ready.err;
    next = envfix({"doctor", "-vv", "--env", venv.string()});
    EXPECT_NE(next.err.find(": from the cache"), std::string::npos) << next.err;
}
