// Bad input and hostile conditions: each ends with one clear line naming the file, a distinct
// exit code, and the environment byte for byte as before. Wheels are built byte by byte
// (zip_builder.hpp) so each lie is exact.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <thread>

#include "install_fixtures.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::test;

namespace {

WheelSpec good_spec(const std::string& version = "1.0") {
    WheelSpec s;
    s.version = version;
    s.files = {{"demo/__init__.py", "x = '" + version + "'\n"}, {"demo/lib.py", std::string(5000, 'a') + "\n"}};
    return s;
}

class BadInput : public ::testing::Test {
protected:
    void SetUp() override { prepare(dir / "venv"); }
    void prepare(const stdfs::path& v) {
        home = dir / "home";
        venv = v;
        make_bare_venv(venv);
        auto r = run_envfix({"install", "--env", venv.string(), write_wheel(good_spec("1.0"), dir / "w1").string()}, {}, home);
        ASSERT_EQ(r.code, 0) << r.err;
    }
    // Runs the install; checks the exit code, one error line naming `names`, and an unchanged tree.
    // The snapshot store is left out: a content-addressed cache of envfix's own, which an install
    // stopped late (Ctrl-C while moving) may have filled; the snapshots themselves are compared.
    Tree state() { return snapshot(venv, {".envfix/store"}); }
    void refused(const std::vector<stdfs::path>& wheels, int code, const std::string& names, const char* key_text = nullptr) {
        auto before = state();
        std::vector<std::string> args = {"install", "--env", venv.string()};
        for (const auto& w : wheels) args.push_back(w.string());
        auto r = run_envfix(args, {}, home);
        EXPECT_EQ(r.code, code) << r.err;
        auto line = first_error_line(r);
        EXPECT_NE(line.find(names), std::string::npos) << line;
        if (key_text) {
            EXPECT_NE(line.find(key_text), std::string::npos) << line;
        }
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_EQ(tree_diff(before, state()), "");
    }
    stdfs::path bad_wheel(const WheelSpec& spec) { return write_wheel(spec, dir / "bad"); }

    TempDir dir;
    stdfs::path home, venv;
};

// A private mount namespace for this test process (ctest runs each test in its own), so the
// mounts made here vanish with it. Empty string when this machine does not allow it.
std::string private_mounts() {
    if (::unshare(CLONE_NEWNS) != 0) return std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
    if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return std::string("mount --make-rprivate: ") + std::strerror(errno);
    return "";
}

}  // namespace

TEST_F(BadInput, CorruptOrTruncatedArchives) {
    auto garbage = dir / "bad" / "demo-2.0-py3-none-any.whl";
    write_text(garbage, random_bytes(4096, 1));
    refused({garbage}, 60, "demo-2.0-py3-none-any.whl", "not a valid wheel archive");
    auto full = build_wheel_bytes(good_spec("2.0"));
    for (size_t cut : {full.size() / 2, full.size() - 10}) {
        auto truncated = dir / "cut" / "demo-2.0-py3-none-any.whl";
        write_text(truncated, full.substr(0, cut));
        refused({truncated}, 60, "demo-2.0-py3-none-any.whl");
    }
    auto empty = dir / "empty" / "demo-2.0-py3-none-any.whl";
    write_text(empty, "");
    refused({empty}, 60, "demo-2.0-py3-none-any.whl");
}

TEST_F(BadInput, RecordThatDoesNotMatchTheFiles) {
    auto tampered = good_spec("2.0");
    tampered.record_override["demo/lib.py"] = "demo/lib.py," + record_hash("something else") + ",5001";
    refused({bad_wheel(tampered)}, 60, "demo/lib.py", "does not match its hash");
    auto unlisted = good_spec("2.0");
    unlisted.record_override["demo/lib.py"] = "";
    refused({bad_wheel(unlisted)}, 60, "demo/lib.py", "not listed in RECORD");
    auto weak = good_spec("2.0");
    weak.record_override["demo/lib.py"] = "demo/lib.py,md5=abc,5001";
    refused({bad_wheel(weak)}, 60, "md5");
    auto size = good_spec("2.0");
    size.record_override["demo/lib.py"] = "demo/lib.py," + record_hash(std::string(5000, 'a') + "\n") + ",7";
    refused({bad_wheel(size)}, 60, "demo/lib.py");
    // A good wheel and a bad one in the same command: neither goes in.
    WheelSpec other;
    other.name = "other";
    auto bad_second = good_spec("2.0");
    bad_second.record_override["demo/__init__.py"] = "demo/__init__.py," + record_hash("x") + ",12";
    refused({write_wheel(other, dir / "ok"), bad_wheel(bad_second)}, 60, "demo/__init__.py");
}

TEST_F(BadInput, WheelsForAnotherPlatformOrPython) {
    for (const char* tag : {"cp27-cp27mu-manylinux1_x86_64", "py3-none-win_amd64", "cp311-cp311-macosx_11_0_arm64",
                            "cp312-cp312-manylinux_2_28_aarch64"}) {
        auto s = good_spec("2.0");
        s.tag = tag;
        refused({bad_wheel(s)}, 61, s.filename(), "does not run on this interpreter");
    }
}

TEST_F(BadInput, UnsafeEntries) {
    struct Case {
        const char* what;
        ZipItem item;
        const char* text;
    };
    std::vector<Case> cases = {
        {"parent folder", {"../../../../escape.txt", "x"}, "unsafe path"},
        {"parent inside", {"demo/../../escape.txt", "x"}, "unsafe path"},
        {"absolute", {"/tmp/escape.txt", "x"}, "unsafe path"},
        {"drive letter", {"C:/escape.txt", "x"}, "unsafe path"},
        {"backslash", {"demo\\..\\..\\escape.txt", "x"}, "unsafe path"},
        {"symlink", ZipItem{.name = "demo/link", .data = "/etc/passwd", .unix_mode = 0120777}, "symbolic link"},
        {"device", ZipItem{.name = "demo/dev", .data = "", .unix_mode = 0020644}, "not a regular file"},
        {"data scheme", {"demo-2.0.data/elsewhere/x", "x"}, "unknown .data folder"},
        {"script named python", ZipItem{.name = "demo-2.0.data/scripts/python3", .data = "#!python\n"}, "shadow"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        auto s = good_spec("2.0");
        s.files.push_back(c.item);
        refused({bad_wheel(s)}, 60, "demo-2.0-py3-none-any.whl", c.text);
        EXPECT_FALSE(stdfs::exists(dir / "escape.txt"));
        EXPECT_FALSE(stdfs::exists("/tmp/escape.txt"));
    }
    auto ep = good_spec("2.0");
    ep.entry_points = "[console_scripts]\n../../../outside = demo:main\n";
    refused({bad_wheel(ep)}, 60, "../../../outside");
    // A file landing where the install writes its own RECORD or direct_url.json.
    for (const char* leaf : {"RECORD", "direct_url.json"}) {
        auto own = good_spec("2.0");
        own.files.push_back({std::string("demo-2.0.data/purelib/demo-2.0.dist-info/") + leaf, "x"});
        refused({bad_wheel(own)}, 60, "demo-2.0-py3-none-any.whl", "which the install writes itself");
    }
}

TEST_F(BadInput, DuplicateAndDisagreeingEntries) {
    auto dup = good_spec("2.0");
    dup.files.push_back({"demo/lib.py", "print('second copy')\n"});
    refused({bad_wheel(dup)}, 60, "demo/lib.py", "twice");
    auto lie = good_spec("2.0");
    lie.files[1].local_name = "demo/lie.py";
    refused({bad_wheel(lie)}, 60, "demo/lib.py", "local header");
    auto crc = good_spec("2.0");
    crc.files[1].local_crc = 1;
    refused({bad_wheel(crc)}, 60, "demo/lib.py", "CRC");
    auto trailing = good_spec("2.0");
    trailing.zip.trailing = "PK\x05\x06 appended";
    refused({bad_wheel(trailing)}, 60, "demo-2.0-py3-none-any.whl");
}

TEST_F(BadInput, ZipBombs) {
    // Declared sizes deflate cannot produce from the compressed bytes.
    auto declared = good_spec("2.0");
    declared.files.push_back(ZipItem{.name = "demo/bomb.bin", .data = "x", .local_size = 3000000000ull, .central_size = 3000000000ull});
    refused({bad_wheel(declared)}, 60, "demo/bomb.bin", "zip bomb");
    // A small declared size over data that inflates far beyond it: stopped at the declared size.
    auto liar = good_spec("2.0");
    std::string zeros(50u << 20, '\0');
    liar.files.push_back(ZipItem{.name = "demo/zeros.bin", .data = zeros, .local_size = 4096, .central_size = 4096});
    liar.record_override["demo/zeros.bin"] = "demo/zeros.bin," + record_hash(zeros.substr(0, 4096)) + ",4096";
    refused({bad_wheel(liar)}, 60, "demo/zeros.bin");
    // Entries overlapping in the archive (one compressed stream counted many times).
    auto overlap = good_spec("2.0");
    overlap.files.push_back(ZipItem{.name = "demo/again.py", .data = std::string(5000, 'a') + "\n", .central_offset = 0});
    refused({bad_wheel(overlap)}, 60, "demo-2.0-py3-none-any.whl");
}

TEST_F(BadInput, FullDisk) {
    auto why = private_mounts();
    if (!why.empty()) GTEST_SKIP() << "no private mounts here (" << why << "): the full-disk test needs a small tmpfs";
    auto mnt = dir / "small";
    stdfs::create_directories(mnt);
    if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=6m,nr_inodes=400") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs: " << std::strerror(errno);
    prepare(mnt / "venv");
    // Too large for the free space: refused before anything is written.
    auto big = good_spec("2.0");
    big.files.push_back(ZipItem{.name = "demo/big.bin", .data = random_bytes(8u << 20, 3), .method = 0});
    refused({bad_wheel(big)}, 62, "not enough space");
    // Room for the bytes but not for the files: the disk fills while staging.
    auto many = good_spec("2.0");
    for (int i = 0; i < 600; ++i) many.files.push_back({"demo/m/f" + std::to_string(i) + ".py", "i = 1\n"});
    refused({bad_wheel(many)}, 62, "demo");
    ::umount2(mnt.c_str(), MNT_DETACH);
}

TEST_F(BadInput, ReadOnlySitePackages) {
    auto sp = site_packages(venv);
    auto why = private_mounts();
    bool bound = why.empty() && ::mount(sp.c_str(), sp.c_str(), nullptr, MS_BIND, nullptr) == 0 &&
                 ::mount(nullptr, sp.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0;
    bool immutable = false;
    if (!bound) {
        // As root, permission bits do not stop a writer; the immutable attribute does.
        immutable = run_program({"chattr", "+i", sp.string()}).code == 0;
        if (!immutable) GTEST_SKIP() << "neither a read-only bind mount (" << why << ") nor chattr +i works here";
    }
    refused({write_wheel(good_spec("2.0"), dir / "w2")}, 63, sp.string());
    if (immutable) run_program({"chattr", "-i", sp.string()});
}

TEST_F(BadInput, CtrlCWhileInstalling) {
    // Enough files that the install is still writing when the signal comes.
    for (int files : {3000, 12000}) {
        auto s = good_spec("2.0");
        for (int i = 0; i < files; ++i) s.files.push_back({"demo/many/f" + std::to_string(i) + ".py", "value = " + std::to_string(i) + "\n"});
        auto w = write_wheel(s, dir / ("ctrlc" + std::to_string(files)));
        auto before = state();
        auto pid = spawn_envfix({"install", "--env", venv.string(), w.string()}, {}, home, dir / "ctrlc.log");
        // Wait for the staging folder to appear, then Ctrl-C.
        auto sp = site_packages(venv);
        for (int k = 0; k < 2000; ++k) {
            bool staging = false;
            for (const auto& e : stdfs::directory_iterator(sp))
                if (e.path().filename().string().rfind(".envfix-tx-", 0) == 0) staging = true;
            if (staging) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        ::kill(pid, SIGINT);
        int code = wait_exit(pid);
        auto log = read_text(dir / "ctrlc.log");
        if (code == 0) continue;  // finished before the signal: try a bigger wheel
        EXPECT_EQ(code, 130) << log;
        EXPECT_NE(log.find("interrupted; the environment was left as it was"), std::string::npos) << log;
        EXPECT_EQ(tree_diff(before, state()), "");
        return;
    }
    GTEST_SKIP() << "every install finished before Ctrl-C arrived (a very fast disk)";
}
