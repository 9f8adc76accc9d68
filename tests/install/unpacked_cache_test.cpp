// The unpacked-wheel cache end to end (docs/snapshots.md#the-unpacked-wheel-cache): a second
// environment gets the cached files by hard link, byte for byte what a cold install writes; a
// damaged entry is not used; across filesystems the files are copied; `envfix cache` counts it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "envfix/common/file_lock.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/installer/wheel_cache.hpp"
#include "envfix/network/downloader.hpp"
#include "install_fixtures.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::test;
using Json = nlohmann::ordered_json;

namespace {

Json spec() {
    return {{"name", "cached-pkg"},
            {"version", "1.0"},
            {"files",
             {{"cached_pkg/__init__.py", "VERSION = '1.0'\n"},
              {"cached_pkg/core.py", "def main():\n    print('hi')\n    return 0\n"},
              {"cached_pkg/big.bin", std::string(300000, 'x') + "end\n"},
              {"cached_pkg/run.sh", {{"text", "#!/bin/sh\necho run\n"}, {"mode", 493}}}}},
            {"data",
             {{"scripts/cached-tool", {{"text", "#!python\nimport cached_pkg\nprint(cached_pkg.VERSION)\n"}, {"mode", 493}}},
              {"data/share/cached/readme.txt", "hello\n"}}},
            {"entry_points", {{"console_scripts", {{"cached-cli", "cached_pkg.core:main"}}}}}};
}

struct Ino {
    dev_t dev;
    ino_t ino;
    auto operator<=>(const Ino&) const = default;
};

std::optional<Ino> inode(const stdfs::path& p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return std::nullopt;
    return Ino{st.st_dev, st.st_ino};
}

// The regular files under p, at any depth (an entry's files are in f/'s 16 folders); none where p
// does not exist.
std::vector<stdfs::path> regular_files(const stdfs::path& p) {
    std::vector<stdfs::path> out;
    std::error_code ec;
    for (stdfs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file()) out.push_back(it->path());
    return out;
}

// Ready trees (docs/performance.md, "Ready trees"): the entry's files already linked into the
// folders they take, renamed into the next environment's staging whole.
std::vector<std::string> ready_names(const stdfs::path& ready) {
    std::vector<std::string> out;
    std::error_code ec;
    for (stdfs::directory_iterator it(ready, ec), end; !ec && it != end; it.increment(ec)) {
        auto n = it->path().filename().string();
        if (n != "claimed" && n != "done" && n != "tmp" && n != ".lock") out.push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
}

class UnpackedCache : public ::testing::Test {
protected:
    void SetUp() override {
        whl = build_wheel(spec(), dir / "wheels");
        sha = sha256_hex(read_text(whl));
    }
    stdfs::path cache_of(const stdfs::path& home) { return home / ".cache/envfix/unpacked/v2"; }
    stdfs::path entry_of(const stdfs::path& home) { return cache_of(home) / sha; }
    // A fresh venv at `venv`, the wheel installed into it with the caches of `home`.
    Tree install(const stdfs::path& venv, const stdfs::path& home) {
        std::error_code ec;
        stdfs::remove_all(venv, ec);
        make_bare_venv(venv);
        auto r = run_envfix({"install", "--env", venv.string(), whl.string()}, {}, home);
        EXPECT_EQ(r.code, 0) << r.err;
        return snapshot(venv, {".envfix"});
    }
    std::set<Ino> entry_inodes(const stdfs::path& home) {
        std::set<Ino> out;
        for (const auto& f : regular_files(entry_of(home) / "f"))
            if (auto i = inode(f)) out.insert(*i);
        return out;
    }

    // A cold install's tree for reference (caches of its own) in `cold`, then the wheel installed
    // into `other` with the caches of `home`, which makes its one ready tree
    // (ENVFIX_READY_TREES=wait, run_envfix): `made` names it, under `ready`.
    void cold_and_tree() {
        cold = install(dir / "venv", dir / "home-cold");
        home = dir / "home";
        install(dir / "other", home);
        ready = cache_of(home) / "ready";
        made = ready_names(ready);
        ASSERT_EQ(made.size(), 1u);
    }

    TempDir dir;
    stdfs::path whl;
    std::string sha;
    Tree cold;
    stdfs::path home, ready;
    std::vector<std::string> made;
};

TEST_F(UnpackedCache, SecondEnvironmentLinksTheCachedFilesAndMatchesAColdInstall) {
    // The reference: a cold install with caches of its own.
    auto cold = install(dir / "venv", dir / "home-cold");
    // Fills the shared cache from another environment, then installs at the same path again.
    install(dir / "other", dir / "home");
    ASSERT_TRUE(stdfs::exists(entry_of(dir / "home") / "ENVFIX-UNPACKED"));
    auto warm = install(dir / "venv", dir / "home");
    EXPECT_EQ(tree_diff(cold, warm), "");

    auto inodes = entry_inodes(dir / "home");
    ASSERT_GE(inodes.size(), 7u);  // the files the wheel installs as they are, with METADATA and WHEEL
    auto sp = site_packages(dir / "venv");
    for (auto rel : {"cached_pkg/__init__.py", "cached_pkg/core.py", "cached_pkg/big.bin", "cached_pkg/run.sh"})
        EXPECT_TRUE(inodes.count(*inode(sp / rel))) << rel << " is not a link of the cache entry";
    EXPECT_TRUE(inodes.count(*inode(dir / "venv" / "share/cached/readme.txt")));
    // What envfix writes per install is never linked.
    for (auto p : {sp / "cached_pkg-1.0.dist-info/RECORD", sp / "cached_pkg-1.0.dist-info/INSTALLER",
                   sp / "cached_pkg-1.0.dist-info/direct_url.json", dir / "venv/bin/cached-tool", dir / "venv/bin/cached-cli"})
        EXPECT_FALSE(inodes.count(*inode(p))) << p;
    auto tool = run_program({(dir / "venv/bin/cached-tool").string()});
    EXPECT_EQ(tool.out, "1.0\n") << tool.err;
}

// A folder of many files (torch's include/ATen/ops has 7 030) is linked by at most two threads
// (stager.cpp, kTasksPerFolder): every file still comes from the entry, the same as a cold install.
TEST_F(UnpackedCache, AFolderOfManyFilesIsLinkedWholeFromTheEntry) {
    Json many = spec();
    for (int i = 0; i < 700; ++i) many["files"]["cached_pkg/ops/op" + std::to_string(i) + ".h"] = "int op" + std::to_string(i) + "();\n";
    whl = build_wheel(many, dir / "many-wheels");
    sha = sha256_hex(read_text(whl));
    auto cold = install(dir / "venv", dir / "home-cold");
    install(dir / "other", dir / "home");
    auto warm = install(dir / "venv", dir / "home");
    EXPECT_EQ(tree_diff(cold, warm), "");
    auto inodes = entry_inodes(dir / "home");
    auto ops = site_packages(dir / "venv") / "cached_pkg/ops";
    size_t linked = 0;
    for (const auto& f : stdfs::directory_iterator(ops)) linked += inodes.count(*inode(f.path()));
    EXPECT_EQ(linked, 700u);
}

TEST_F(UnpackedCache, DamagedEntriesAreNotUsed) {
    auto cold = install(dir / "venv", dir / "home-cold");
    struct Damage {
        const char* what;
        std::function<void(const stdfs::path& entry)> apply;
    };
    auto replace_big = [](const stdfs::path& entry, const std::string& data) {
        for (const auto& f : regular_files(entry / "f")) {
            if (stdfs::file_size(f) < 300000) continue;
            stdfs::remove(f);  // a new inode: the other environment keeps its file
            write_text(f, data);
        }
    };
    std::vector<Damage> cases = {
        {"no marker (a partial entry)", [&](const stdfs::path& e) {
             replace_big(e, std::string(300004, 'y'));
             stdfs::remove(e / "ENVFIX-UNPACKED");
         }},
        {"marker of another layout version", [&](const stdfs::path& e) {
             replace_big(e, std::string(300004, 'y'));
             write_text(e / "ENVFIX-UNPACKED", "envfix-unpacked 2\nsha256 " + sha + "\nfiles " + std::to_string(entry_inodes(dir / "home").size()) + "\n");
         }},
        {"marker counting other files", [&](const stdfs::path& e) {
             replace_big(e, std::string(300004, 'y'));
             write_text(e / "ENVFIX-UNPACKED", "envfix-unpacked 1\nsha256 " + sha + "\nfiles 1\n");
         }},
        {"a file of another size", [&](const stdfs::path& e) { replace_big(e, "short\n"); }},
        {"a file missing", [&](const stdfs::path& e) {
             for (const auto& f : regular_files(e / "f")) stdfs::remove(f);
         }},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        auto home = dir / "home";
        std::error_code ec;
        stdfs::remove_all(home, ec);
        install(dir / "other", home);
        ASSERT_TRUE(stdfs::exists(entry_of(home) / "ENVFIX-UNPACKED"));
        c.apply(entry_of(home));
        EXPECT_EQ(tree_diff(cold, install(dir / "venv", home)), "");
    }
}

TEST_F(UnpackedCache, AcrossFilesystemsTheCachedFilesAreCopied) {
    // /dev/shm is a tmpfs where it exists; the venv stays on the test folder's filesystem.
    auto shm = inode("/dev/shm");
    if (!shm || shm->dev == inode(dir.path())->dev || ::access("/dev/shm", W_OK) != 0) GTEST_SKIP() << "no other filesystem";
    TempDir dummy;  // a unique name under /dev/shm
    auto home = stdfs::path("/dev/shm") / ("envfix-ucache-" + dummy.path().filename().string());
    struct Cleanup {
        stdfs::path p;
        ~Cleanup() {
            std::error_code ec;
            stdfs::remove_all(p, ec);
        }
    } cleanup{home};
    auto cold = install(dir / "venv", dir / "home-cold");
    install(dir / "other", home);
    ASSERT_TRUE(stdfs::exists(entry_of(home) / "ENVFIX-UNPACKED"));
    auto inodes = entry_inodes(home);
    EXPECT_GE(inodes.size(), 7u);
    EXPECT_EQ(tree_diff(cold, install(dir / "venv", home)), "");
    EXPECT_FALSE(inodes.count(*inode(site_packages(dir / "venv") / "cached_pkg/big.bin")));
}

TEST_F(UnpackedCache, CacheListAndCleanCountTheUnpackedWheels) {
    auto home = dir / "home";
    install(dir / "venv", home);
    auto list = run_envfix({"cache", "list", "--json"}, {}, home);
    ASSERT_EQ(list.code, 0) << list.err;
    auto j = list.json();
    ASSERT_EQ(j["unpacked"]["entries"].size(), 1u) << list.out;
    EXPECT_EQ(j["unpacked"]["entries"][0]["sha256"], sha);
    const auto files = entry_inodes(home).size();
    EXPECT_EQ(j["unpacked"]["entries"][0]["files"], files);
    EXPECT_GT(j["unpacked"]["entries"][0]["bytes"].get<uint64_t>(), 300000u);
    auto text = run_envfix({"cache", "list"}, {}, home);
    EXPECT_NE(text.out.find("1 unpacked wheels, " + std::to_string(files) + " files"), std::string::npos) << text.out;

    // What an envfix of the older layout (v1: one folder of files per entry) left goes too.
    auto v1 = home / ".cache/envfix/unpacked/v1";
    write_text(v1 / sha / "f" / "3", std::string(1000, 'o'));
    const size_t ready_files = regular_files(cache_of(home) / "ready").size();
    EXPECT_GE(ready_files, 6u);
    auto clean = run_envfix({"cache", "clean", "--json"}, {}, home);
    ASSERT_EQ(clean.code, 0) << clean.err;
    auto c = clean.json();
    // The files, the marker and the on-disk mark, the wheel's key and directory, v1's file, and
    // ready/: the tree made after the install (its links and state file) and the makers' lock.
    EXPECT_EQ(c["unpacked"]["files_removed"], files + 5 + ready_files);
    EXPECT_FALSE(stdfs::exists(v1));
    EXPECT_LT(c["unpacked"]["bytes_freed"].get<uint64_t>(), 300000u);  // big.bin stays linked into the venv
    EXPECT_FALSE(stdfs::exists(cache_of(home)));
    // The environment keeps its files.
    EXPECT_TRUE(stdfs::exists(site_packages(dir / "venv") / "cached_pkg/big.bin"));
}

TEST_F(UnpackedCache, AWarmInstallReadsTheWheelFromTheDirectoryKeptWithItsEntry) {
    auto cold = install(dir / "venv", dir / "home-cold");
    auto home = dir / "home";
    install(dir / "other", home);
    const auto kept = cache_of(home) / "dirs" / sha;
    ASSERT_TRUE(stdfs::is_regular_file(kept));
    auto warm_vv = [&] {
        std::error_code ec;
        stdfs::remove_all(dir / "venv", ec);
        make_bare_venv(dir / "venv");
        auto r = run_envfix({"install", "-vv", "--env", (dir / "venv").string(), whl.string()}, {}, home);
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(tree_diff(cold, snapshot(dir / "venv", {".envfix"})), "");
        return r.err;
    };
    EXPECT_NE(warm_vv().find("wheels opened: 1 of 1 from the directories"), std::string::npos);
    // Damaged, or another wheel's: the archive is opened, and the directory written again.
    for (auto damage : {std::string("envfix-wheel-directory\n\x01\x00"), read_text(kept) + "x"}) {
        write_text(kept, damage);
        EXPECT_NE(warm_vv().find("wheels opened: 0 of 1 from the directories"), std::string::npos);
        EXPECT_NE(read_text(kept), damage);
        EXPECT_NE(warm_vv().find("wheels opened: 1 of 1 from the directories"), std::string::npos);
    }
    // --force-reinstall, a repair, reads the archive.
    auto r = run_envfix({"install", "-vv", "--force-reinstall", "--env", (dir / "venv").string(), whl.string()}, {}, home);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("wheels opened: 0 of 1 from the directories"), std::string::npos) << r.err;
}

// A downloaded wheel as the wheel cache keeps it: wheels/v1/sha256/<xx>/<sha256>/<file>.
stdfs::path into_wheel_cache(const stdfs::path& whl, const std::string& sha, const stdfs::path& home) {
    auto to = home / ".cache/envfix/wheels/v1/sha256" / sha.substr(0, 2) / sha / whl.filename();
    stdfs::create_directories(to.parent_path());
    stdfs::copy_file(whl, to);
    return to;
}

size_t files_under(const stdfs::path& p) { return regular_files(p).size(); }

TEST_F(UnpackedCache, ACachedWheelBesideItsUnsyncedMarkerIsTakenOnlyOnceItsBytesMatchItsName) {
    // A download renamed into the wheel cache before its batch was flushed, then a crash: the next
    // run checks it against its hash before it trusts it (network::DownloadFlush::Batch).
    auto home = dir / "home";
    auto root = home / ".cache/envfix/wheels";
    auto cached = into_wheel_cache(whl, sha, home);
    std::ofstream(network::unsynced_marker(cached)).flush();
    ASSERT_EQ(installer::list_cached_wheels(root).size(), 1u) << "the marker is not a wheel";
    auto hit = installer::cached_wheel(root, sha, whl.filename().string());
    ASSERT_TRUE(hit);
    EXPECT_EQ(*hit, cached);
    EXPECT_FALSE(stdfs::exists(network::unsynced_marker(cached)));
    EXPECT_EQ(sha256_hex(read_text(cached)), sha);
    // Bytes that never reached the disk: zeros where the wheel was. Not taken, and gone.
    std::ofstream(cached, std::ios::binary | std::ios::trunc) << std::string(stdfs::file_size(whl), '\0');
    std::ofstream(network::unsynced_marker(cached)).flush();
    EXPECT_FALSE(installer::cached_wheel(root, sha, whl.filename().string()));
    EXPECT_FALSE(stdfs::exists(cached));
    EXPECT_FALSE(stdfs::exists(network::unsynced_marker(cached)));
    // Without a marker a cached wheel is taken as it is (it was flushed before its rename).
    cached = into_wheel_cache(whl, sha, home);
    EXPECT_TRUE(installer::cached_wheel(root, sha, whl.filename().string()));
}

TEST_F(UnpackedCache, AWheelUnpackedAheadIsLinkedByTheInstallAndMatchesAColdInstall) {
    // What a cold index install does while the other wheels download (docs/performance.md).
    auto home = dir / "home";
    auto cached = into_wheel_cache(whl, sha, home);
    make_bare_venv(dir / "venv");
    auto c = run_envfix({"install", "--env", (dir / "venv").string(), cached.string()}, {}, dir / "home-cold");
    ASSERT_EQ(c.code, 0) << c.err;
    auto cold = snapshot(dir / "venv", {".envfix"});
    auto root = home / ".cache/envfix/unpacked";
    auto made = installer::unpack_into_cache(root, cached, sha, 2);
    ASSERT_TRUE(made) << made.error().message.key;
    EXPECT_TRUE(*made);
    ASSERT_TRUE(stdfs::exists(entry_of(home) / "ENVFIX-UNPACKED"));
    EXPECT_EQ(files_under(cache_of(home) / "tmp"), 0u);
    auto again = installer::unpack_into_cache(root, cached, sha, 2);
    ASSERT_TRUE(again);
    EXPECT_FALSE(*again);  // already there

    // Installed from the wheel cache's file, the entry's files are linked, not inflated again.
    std::error_code ec;
    stdfs::remove_all(dir / "venv", ec);
    make_bare_venv(dir / "venv");
    auto r = run_envfix({"install", "--env", (dir / "venv").string(), cached.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(tree_diff(cold, snapshot(dir / "venv", {".envfix"})), "");
    auto inodes = entry_inodes(home);
    auto sp = site_packages(dir / "venv");
    for (auto rel : {"cached_pkg/__init__.py", "cached_pkg/big.bin", "cached_pkg/run.sh"})
        EXPECT_TRUE(inodes.count(*inode(sp / rel))) << rel << " is not a link of the cache entry";
    EXPECT_TRUE(inodes.count(*inode(dir / "venv" / "share/cached/readme.txt")));
    EXPECT_FALSE(inodes.count(*inode(dir / "venv/bin/cached-tool")));  // "#!python" rewritten per environment
}

TEST_F(UnpackedCache, AWheelThatLiesAboutItsFilesIsNotUnpackedAhead) {
    test::WheelSpec spec;
    spec.name = "liar";
    spec.files = {{"liar/__init__.py", "x = 1\n"}, {"liar/big.bin", std::string(2 << 20, 'b')}};
    spec.record_override["liar/big.bin"] = "liar/big.bin," + test::record_hash("something else") + "," + std::to_string(2 << 20);
    auto bad = test::write_wheel(spec, dir / "bad");
    auto bad_sha = sha256_hex(read_text(bad));
    auto home = dir / "home";
    auto root = home / ".cache/envfix/unpacked";
    auto r = installer::unpack_into_cache(root, into_wheel_cache(bad, bad_sha, home), bad_sha, 2);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::BadWheel);
    EXPECT_FALSE(stdfs::exists(cache_of(home) / bad_sha));
    EXPECT_EQ(files_under(cache_of(home) / "tmp"), 0u);  // nothing half made is left
}

TEST_F(UnpackedCache, UnpackAheadWorksOffEveryWheelHandedOverAndCountsTheFailures) {
    auto home = dir / "home";
    auto cached = into_wheel_cache(whl, sha, home);
    auto bad = dir / "bad" / "broken-1.0-py3-none-any.whl";
    write_text(bad, "not a zip");
    auto bad_sha = sha256_hex(read_text(bad));
    installer::UnpackAhead ahead(home / ".cache/envfix/unpacked", 2, 2);
    ahead.add(cached, sha);
    ahead.add(into_wheel_cache(bad, bad_sha, home), bad_sha);
    ahead.add(cached, sha);  // handed over twice: made once
    auto out = ahead.finish();
    EXPECT_EQ(out.unpacked + out.present, 2u);
    EXPECT_GE(out.unpacked, 1u);
    ASSERT_EQ(out.errors.size(), 1u);
    EXPECT_EQ(out.errors[0].code, ExitCode::BadWheel);
    EXPECT_TRUE(stdfs::exists(entry_of(home) / "ENVFIX-UNPACKED"));
}

TEST_F(UnpackedCache, WheelsHandedOverFasterThanTheDefaultRunnersWorkThemOffAllEndInTheCache) {
    auto home = dir / "home";
    installer::UnpackAhead ahead(home / ".cache/envfix/unpacked");  // runners by the cores (4 to 8)
    std::vector<std::string> shas;
    for (int i = 0; i < 12; ++i) {
        auto s = spec();
        s["name"] = "cached-pkg" + std::to_string(i);
        s["files"]["cached_pkg/__init__.py"] = "VERSION = '" + std::to_string(i) + "'\n";
        auto w = build_wheel(s, dir / ("wheels" + std::to_string(i)));
        shas.push_back(sha256_hex(read_text(w)));
        ahead.add(into_wheel_cache(w, shas.back(), home), shas.back());
    }
    auto out = ahead.finish();
    EXPECT_TRUE(out.errors.empty());
    EXPECT_EQ(out.unpacked, 12u);
    size_t batched = 0;
    for (const auto& b : out.batches) batched += b.wheels;
    EXPECT_EQ(batched, 12u);
    for (const auto& s : shas) EXPECT_TRUE(stdfs::exists(cache_of(home) / s / "ENVFIX-UNPACKED")) << s;
}

TEST_F(UnpackedCache, TheRunnersAreHalfTheCoresUnlessEnvfixUnpackRunnersSaysOtherwise) {
    auto root = dir / "home" / ".cache/envfix/unpacked";
    auto runners = [&](const char* value) {
        if (value) ::setenv("ENVFIX_UNPACK_RUNNERS", value, 1);
        else ::unsetenv("ENVFIX_UNPACK_RUNNERS");
        installer::UnpackAhead ahead(root);
        auto n = ahead.finish().runners;
        ::unsetenv("ENVFIX_UNPACK_RUNNERS");
        return n;
    };
    const unsigned by_cores = std::clamp(std::thread::hardware_concurrency() / 2, 4u, 8u);
    EXPECT_EQ(runners(nullptr), by_cores);
    EXPECT_EQ(runners("2"), 2u);
    EXPECT_EQ(runners("16"), 16u);
    for (const char* ignored : {"0", "65", "-3", "many", ""}) EXPECT_EQ(runners(ignored), by_cores) << "'" << ignored << "'";
    installer::UnpackAhead given(root, 3);  // an explicit count wins
    EXPECT_EQ(given.finish().runners, 3u);
}

TEST_F(UnpackedCache, WhatAKilledUnpackLeftIsSweptOnceItIsAnHourOld) {
    auto home = dir / "home";
    auto tmp = cache_of(home) / "tmp";
    for (auto name : {"old-entry", "new-entry"}) {
        stdfs::create_directories(tmp / name / "f" / "1");
        write_text(tmp / name / "f" / "1" / "1", "half an entry");
    }
    auto old = stdfs::file_time_type::clock::now() - std::chrono::hours(2);
    stdfs::last_write_time(tmp / "old-entry" / "f" / "1", old);
    // The one being made has new files in f/'s folders only.
    for (auto name : {"old-entry", "new-entry"}) {
        stdfs::last_write_time(tmp / name / "f", old);
        stdfs::last_write_time(tmp / name, old);
    }
    // An older layout's tree: gone once nothing was added to it for an hour, kept until then.
    auto v1 = home / ".cache/envfix/unpacked/v1";
    write_text(v1 / std::string(64, 'a') / "f" / "3", "an older envfix's file");
    installer::UnpackAhead(home / ".cache/envfix/unpacked", 1, 2).finish();
    EXPECT_TRUE(stdfs::exists(v1 / std::string(64, 'a') / "f" / "3"));
    // An older envfix still making an entry there (new files in its f/ only) keeps it too.
    write_text(v1 / "tmp" / "making" / "f" / "1", "half an entry");
    for (const auto& p : {v1, v1 / "tmp", v1 / "tmp" / "making"}) stdfs::last_write_time(p, old);
    installer::UnpackAhead(home / ".cache/envfix/unpacked", 1, 2).finish();
    EXPECT_TRUE(stdfs::exists(v1 / std::string(64, 'a') / "f" / "3"));
    stdfs::last_write_time(v1 / "tmp" / "making" / "f", old);
    installer::UnpackAhead ahead(home / ".cache/envfix/unpacked", 1, 2);
    auto out = ahead.finish();
    EXPECT_TRUE(out.errors.empty());
    EXPECT_FALSE(stdfs::exists(v1));
    EXPECT_FALSE(stdfs::exists(tmp / "old-entry"));
    EXPECT_TRUE(stdfs::exists(tmp / "new-entry" / "f" / "1" / "1"));  // another envfix may be making it now
}

TEST_F(UnpackedCache, AnEntryMadeAheadForASwitchLinksTheInstalledFilesThatDoNotChange) {
    auto home = dir / "home";
    install(dir / "venv", home);  // version 1.0, its files linked from the cache
    auto sp = site_packages(dir / "venv");
    auto next = spec();
    next["version"] = "2.0";
    next["files"]["cached_pkg/core.py"] = "def main():\n    print('two')\n    return 0\n";
    auto whl2 = build_wheel(next, dir / "wheels2");
    auto sha2 = sha256_hex(read_text(whl2));
    auto cached2 = into_wheel_cache(whl2, sha2, home);
    // A file edited by hand (replaced, same size): its RECORD row still promises the old bytes.
    auto init = read_text(sp / "cached_pkg/__init__.py");
    stdfs::remove(sp / "cached_pkg/__init__.py");
    write_text(sp / "cached_pkg/__init__.py", std::string(init.size(), '#'));

    auto keep = installer::installed_content({sp}, dir / "venv", {"cached-pkg"});
    EXPECT_GE(keep.by_hash.size(), 5u);
    auto made = installer::unpack_into_cache(home / ".cache/envfix/unpacked", cached2, sha2, 2, &keep);
    ASSERT_TRUE(made) << made.error().message.key;
    std::map<std::string, Ino> entry_by_content;  // the new entry's files by their bytes
    for (const auto& f : regular_files(cache_of(home) / sha2 / "f")) entry_by_content[read_text(f)] = *inode(f);
    // Unchanged: the installed file itself, linked.
    EXPECT_EQ(entry_by_content.at(read_text(sp / "cached_pkg/big.bin")), *inode(sp / "cached_pkg/big.bin"));
    EXPECT_EQ(entry_by_content.at(read_text(sp / "cached_pkg/run.sh")), *inode(sp / "cached_pkg/run.sh"));
    // Changed in 2.0, or edited by hand: inflated from the wheel, the wheel's bytes.
    EXPECT_TRUE(entry_by_content.count("def main():\n    print('two')\n    return 0\n"));
    ASSERT_TRUE(entry_by_content.count(init));
    EXPECT_NE(entry_by_content.at(init), *inode(sp / "cached_pkg/__init__.py"));
    EXPECT_FALSE(entry_by_content.count(std::string(init.size(), '#')));

    // Installing 2.0 then gives what a cold install of it gives.
    auto r = run_envfix({"install", "--env", (dir / "venv").string(), cached2.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    make_bare_venv(dir / "cold");
    ASSERT_EQ(run_envfix({"install", "--env", (dir / "cold").string(), cached2.string()}, {}, dir / "home-cold").code, 0);
    EXPECT_EQ(read_text(sp / "cached_pkg/core.py"), read_text(site_packages(dir / "cold") / "cached_pkg/core.py"));
    EXPECT_EQ(read_text(sp / "cached_pkg/__init__.py"), init);
}

}  // namespace

// Inflating a large wheel's entries while it downloads (installer/src/unpack_early.hpp): the
// downloader's side simulated here, byte for byte as it writes a wheel fetched in ranges.
namespace {

// Text that deflate shrinks only a little, as it does libraries: a larger compressed entry.
std::string library_text(size_t n, uint32_t seed) {
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/";
    std::string s(n, 'a');
    uint32_t x = seed | 1;
    for (auto& c : s) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        c = alphabet[x & 63];
    }
    return s;
}

Json library_spec(uint32_t seed) {
    auto s = spec();
    s["files"]["cached_pkg/lib.so"] = library_text(400000, seed);
    return s;
}

// A download of `bytes` in three ranges, the last a small tail (the zip directory), as the
// downloader plans it when a reader watches; its .part made at full size.
struct Download {
    stdfs::path part, dest;
    std::shared_ptr<network::PartProgress> progress;
};
Download start_download(const std::string& bytes, const stdfs::path& dest, uint64_t tail = 0) {
    const uint64_t total = bytes.size();
    if (tail == 0) tail = total / 16;
    const uint64_t half = (total - tail) / 2;
    Download d{dest, dest, nullptr};
    d.part += ".part";
    d.progress = std::make_shared<network::PartProgress>(
        std::vector<network::PartProgress::Range>{{0, half, 0}, {half, total - tail - half, 0}, {total - tail, tail, 0}}, total);
    stdfs::create_directories(dest.parent_path());
    write_text(d.part, "");
    stdfs::resize_file(d.part, total);
    return d;
}

// Writes the ranges as transfers do: the tail first, then the others side by side a piece at a
// time, each piece reported once it is written (`report` false: written without a word, as a
// whole-file fetch after the ranges were given up).
void feed(const std::string& bytes, const Download& d, bool only_tail = false, bool report = true) {
    auto ranges = d.progress->ranges();
    std::fstream out(d.part, std::ios::in | std::ios::out | std::ios::binary);
    auto put = [&](size_t r, uint64_t from, uint64_t n) {
        out.seekp(static_cast<std::streamoff>(from));
        out.write(bytes.data() + from, static_cast<std::streamsize>(n));
        out.flush();
        if (report) d.progress->advance(r, from + n - ranges[r].at);
    };
    const size_t tail = ranges.size() - 1;
    put(tail, ranges[tail].at, ranges[tail].length);
    if (only_tail) return;
    std::vector<uint64_t> done(ranges.size(), 0);
    for (bool more = true; more;) {
        more = false;
        for (size_t r = 0; r < tail; ++r) {
            const uint64_t n = std::min<uint64_t>(8192, ranges[r].length - done[r]);
            if (n == 0) continue;
            put(r, ranges[r].at + done[r], n);
            done[r] += n;
            more = true;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
}

constexpr uint64_t kEarlyFrom = 250000;  // big.bin (300 004 bytes) and lib.so (400 000)

}  // namespace

class EarlyUnpackCache : public UnpackedCache {
protected:
    // The library wheel becomes `whl` (`sha`); its bytes.
    std::string library_wheel(uint32_t seed, const char* folder = "lib-wheels") {
        whl = build_wheel(library_spec(seed), dir / folder);
        sha = sha256_hex(read_text(whl));
        return read_text(whl);
    }
    installer::UnpackAhead ahead_for(const stdfs::path& home) {
        return installer::UnpackAhead(home / ".cache/envfix/unpacked", 2, 2, nullptr, kEarlyFrom);
    }
    // A download of `bytes` into `folder`, which `ahead` reads early for the wheel `sha`.
    Download watched(installer::UnpackAhead& ahead, const std::string& bytes, const char* folder = "dl", uint64_t tail = 0) {
        auto d = start_download(bytes, dir / folder / whl.filename(), tail);
        ahead.early(d.part, sha, d.progress);
        return d;
    }
    // The download checked: renamed into place as the downloader does, handed over, all finished.
    installer::UnpackAhead::Outcome checked(installer::UnpackAhead& ahead, const Download& d) {
        stdfs::rename(d.part, d.dest);
        ahead.add(d.dest, sha);
        return ahead.finish();
    }
    // An install linking the entries of `home` is what a cold install writes, byte for byte.
    void expect_as_cold(const stdfs::path& home) {
        auto cold = install(dir / "venv", dir / "home-cold");
        auto warm = install(dir / "venv", home);
        EXPECT_EQ(tree_diff(cold, warm), "");
    }
};

TEST_F(EarlyUnpackCache, LargeEntriesInflatedWhileTheWheelDownloadsAreTakenOnceItIsChecked) {
    const auto bytes = library_wheel(5);
    auto home = dir / "home";
    auto ahead = ahead_for(home);
    auto d = watched(ahead, bytes);
    std::thread writer([&] { feed(bytes, d); });
    writer.join();
    auto out = checked(ahead, d);
    EXPECT_TRUE(out.errors.empty());
    EXPECT_EQ(out.unpacked, 1u);
    EXPECT_EQ(out.early_wheels, 1u);
    EXPECT_EQ(out.early_taken, 2u);
    EXPECT_EQ(out.early_refused, 0u);
    EXPECT_EQ(files_under(cache_of(home) / "tmp"), 0u);
    // An install links the entry (the wheel from the wheel cache, where its sha256 is known).
    whl = into_wheel_cache(whl, sha, home);
    expect_as_cold(home);
    EXPECT_TRUE(entry_inodes(home).count(*inode(site_packages(dir / "venv") / "cached_pkg/lib.so")));
}

TEST_F(EarlyUnpackCache, AnEntryInflatedEarlyFromOtherBytesThanTheCheckedWheelsIsNotTaken) {
    // What was read early is not the wheel that was checked (a range fetched again brought other
    // bytes): lib.so differs and is inflated again from the checked wheel; big.bin, the same in
    // both, matches the checked RECORD and is taken.
    const auto early_bytes = library_wheel(5, "early-wheels");
    library_wheel(6);  // the checked wheel: the same name, another lib.so
    auto home = dir / "home";
    auto ahead = ahead_for(home);
    auto d = watched(ahead, early_bytes);
    feed(early_bytes, d);
    ahead.add(into_wheel_cache(whl, sha, home), sha);
    auto out = ahead.finish();
    EXPECT_TRUE(out.errors.empty());
    EXPECT_EQ(out.unpacked, 1u);
    EXPECT_EQ(out.early_taken, 1u);
    EXPECT_EQ(out.early_refused, 1u);
    expect_as_cold(home);
    EXPECT_EQ(read_text(site_packages(dir / "venv") / "cached_pkg/lib.so"), library_text(400000, 6));
}

TEST_F(EarlyUnpackCache, TheRestOfAWheelIsStagedWhileItsLargeEntriesStillWaitForTheirBytes) {
    // The checked wheel is handed over while a reader still waits for its library's bytes (on
    // the GPU machine: while it still inflates torch's): the other files are staged into the
    // entry beside it, not after it; the entry is complete once the reader ends. The library
    // comes first in the archive (8 MB, about 6 MB deflated), the rest and the directory in
    // the download's last range, which the readers read the directory from (its last 4 MiB).
    Json big = {{"name", "cached-pkg"}, {"version", "1.0"}, {"files", {{"cached_pkg/lib.so", library_text(8000000, 7)}}}};
    const Json rest = spec();
    for (const auto& [name, text] : rest["files"].items()) big["files"][name] = text;
    whl = build_wheel(big, dir / "big-wheels");
    sha = sha256_hex(read_text(whl));
    const auto bytes = read_text(whl);
    const uint64_t tail = (4u << 20) + 65536;
    ASSERT_GT(bytes.size(), tail + 1000000);
    auto home = dir / "home";
    auto ahead = ahead_for(home);
    auto d = watched(ahead, bytes, "dl", tail);
    feed(bytes, d, true);  // the last range only: lib.so's bytes are still to come
    ahead.add(into_wheel_cache(whl, sha, home), sha);
    // The archive's entries 1, 2 and 4 (__init__.py, core.py, run.sh) staged into the entry
    // begun for the wheel, while lib.so's reader (entry 0) waits.
    auto entry_files = [&] {
        std::set<std::string> names;
        for (const auto& f : regular_files(cache_of(home) / "tmp")) names.insert(f.filename().string());
        return names;
    };
    auto staged_beside = [&] {
        for (int i = 0; i < 1000; ++i) {
            auto names = entry_files();
            if (names.count("1") && names.count("2") && names.count("4")) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    };
    const bool beside = staged_beside();
    const auto names = entry_files();
    EXPECT_TRUE(beside) << str::join(std::vector<std::string>(names.begin(), names.end()), " ");
    EXPECT_FALSE(entry_files().count("0"));
    EXPECT_FALSE(stdfs::exists(entry_of(home)));
    feed(bytes, d);
    auto out = ahead.finish();
    EXPECT_TRUE(out.errors.empty());
    EXPECT_EQ(out.unpacked, 1u);
    EXPECT_EQ(out.early_taken, 2u);
    EXPECT_EQ(out.early_refused, 0u);
    ASSERT_EQ(out.batches.size(), 1u);
    EXPECT_LE(out.batches[0].staged_ms, out.batches[0].rest_ms);
    EXPECT_LE(out.batches[0].rest_ms, out.batches[0].early_ms);
    EXPECT_EQ(files_under(cache_of(home) / "tmp"), 0u);
    expect_as_cold(home);
}

TEST_F(EarlyUnpackCache, ADownloadGivenUpOrNeverCheckedLeavesNothingInflatedEarly) {
    const auto bytes = library_wheel(5);
    {
        // The ranges given up after the tail (a server without Range): the wheel comes whole
        // afterwards, and is unpacked from its checked file alone.
        auto home = dir / "home";
        auto ahead = ahead_for(home);
        auto d = watched(ahead, bytes);
        feed(bytes, d, true);
        d.progress->give_up();
        feed(bytes, d, false, false);
        auto out = checked(ahead, d);
        EXPECT_TRUE(out.errors.empty());
        EXPECT_EQ(out.unpacked, 1u);
        EXPECT_EQ(out.early_taken, 0u);
        EXPECT_EQ(files_under(cache_of(home) / "tmp"), 0u);
        expect_as_cold(home);
    }
    {
        // Half downloaded, then the download fails: nothing is handed over, nothing stays.
        auto home = dir / "home2";
        auto ahead = ahead_for(home);
        auto d = watched(ahead, bytes, "dl2");
        feed(bytes, d, true);
        auto out = ahead.finish();  // waits for no byte more
        EXPECT_EQ(out.early_wheels, 0u);
        EXPECT_EQ(files_under(cache_of(home) / "tmp"), 0u);
        EXPECT_FALSE(stdfs::exists(cache_of(home) / sha));
    }
}

TEST_F(UnpackedCache, AWarmInstallRenamesTheReadyTreeMadeForItAndAsksForTheNext) {
    auto cold = install(dir / "venv", dir / "home-cold");
    auto home = dir / "home";
    // ENVFIX_READY_TREES=wait (run_envfix): trees are made before envfix exits. The first
    // install of a local wheel asks for one once it has hashed it; the entry it makes of its
    // staged files is on the disk with them after its commit, so the tree is made at once.
    install(dir / "other", home);
    EXPECT_TRUE(stdfs::exists(entry_of(home) / "ENVFIX-ON-DISK"));
    const auto ready = cache_of(home) / "ready";
    auto made = ready_names(ready);
    ASSERT_EQ(made.size(), 1u) << "one tree, no want left";
    EXPECT_TRUE(made[0].starts_with(sha + "-"));
    EXPECT_TRUE(stdfs::is_regular_file(ready / made[0] / "t/cached_pkg/big.bin"));
    std::error_code ec;
    stdfs::remove_all(dir / "venv", ec);
    make_bare_venv(dir / "venv");
    auto r = run_envfix({"install", "-vv", "--env", (dir / "venv").string(), whl.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("ready trees used: 1 wheels'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ready trees made: 1"), std::string::npos) << r.err;
    // Byte for byte a cold install; the files the entry's inodes; the next tree made, nothing left claimed.
    EXPECT_EQ(tree_diff(cold, snapshot(dir / "venv", {".envfix"})), "");
    auto inodes = entry_inodes(home);
    auto sp = site_packages(dir / "venv");
    for (auto rel : {"cached_pkg/__init__.py", "cached_pkg/big.bin", "cached_pkg/run.sh", "cached_pkg-1.0.dist-info/METADATA"})
        EXPECT_TRUE(inodes.count(*inode(sp / rel))) << rel;
    EXPECT_EQ(ready_names(ready), made) << "the same layout asked for and made again";
    EXPECT_TRUE(stdfs::is_empty(ready / "claimed", ec));
    EXPECT_TRUE(!stdfs::exists(ready / "done") || stdfs::is_empty(ready / "done", ec)) << "what the install left, removed by the maker";
    EXPECT_FALSE(stdfs::exists(sp / ".envfix-tx")) << "no staging left";
    auto tool = run_program({(dir / "venv/bin/cached-tool").string()});
    EXPECT_EQ(tool.out, "1.0\n") << tool.err;
    // Off: neither used nor asked for.
    stdfs::remove_all(dir / "third", ec);
    make_bare_venv(dir / "third");
    r = run_envfix({"install", "-vv", "--env", (dir / "third").string(), whl.string()}, {{"ENVFIX_READY_TREES", "0"}}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("ready trees"), std::string::npos) << r.err;
    EXPECT_EQ(ready_names(ready), made);
    // --force-reinstall, a repair: the entry and its trees go (they share its inodes); none asked for.
    r = run_envfix({"install", "--force-reinstall", "--env", (dir / "venv").string(), whl.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(ready_names(ready).empty());
    // envfix cache clean takes the trees with the rest of the cache.
    install(dir / "fourth", home);
    install(dir / "fifth", home);
    EXPECT_EQ(ready_names(ready).size(), 1u);
    r = run_envfix({"cache", "clean"}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(stdfs::exists(ready));
}

TEST_F(UnpackedCache, AWheelsTreeIsTheSameWhateverWheelsComeWithIt) {
    // bbb wins a path aaa writes too (as CUDA wheels share nvidia/__init__.py): its want, and so
    // its tree's name, is the one it has installed alone, so each install finds the other's tree.
    auto with_shared = [&](const char* name, const char* text) {
        return build_wheel({{"name", name}, {"version", "1.0"},
                            {"files", {{std::string(name) + "/mod.py", "x = 1\n"}, {"zzz_shared/common.py", text}}}},
                           dir / "pair");
    };
    const auto a = with_shared("aaa", "from aaa\n"), b = with_shared("bbb", "from bbb\n");
    const auto b_sha = sha256_hex(read_text(b));
    auto tree_of_b = [&](const stdfs::path& home) {
        for (const auto& n : ready_names(cache_of(home) / "ready"))
            if (n.starts_with(b_sha + "-")) return n;
        return std::string();
    };
    make_bare_venv(dir / "alone");
    auto r = run_envfix({"install", "--env", (dir / "alone").string(), b.string()}, {}, dir / "home-alone");
    ASSERT_EQ(r.code, 0) << r.err;
    make_bare_venv(dir / "pair-venv");
    r = run_envfix({"install", "--env", (dir / "pair-venv").string(), a.string(), b.string()}, {}, dir / "home-pair");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(read_text(site_packages(dir / "pair-venv") / "zzz_shared/common.py"), "from bbb\n");
    EXPECT_FALSE(tree_of_b(dir / "home-alone").empty());
    EXPECT_EQ(tree_of_b(dir / "home-pair"), tree_of_b(dir / "home-alone"));
}

TEST_F(UnpackedCache, NoTreeIsMadeFromAnEntryWhoseFileChangedAndTheInstallStillMatchesAColdOne) {
    ASSERT_NO_FATAL_FAILURE(cold_and_tree());
    std::error_code ec;
    stdfs::remove_all(ready / made[0], ec);
    // An edit in place through an environment's link changes the entry's file too.
    write_text(site_packages(dir / "other") / "cached_pkg/core.py", "edited\n");
    auto r = run_envfix({"cache", "ready", "--json"}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.json()["trees"], 0) << r.out << " (nothing asked for yet)";
    stdfs::remove_all(dir / "venv", ec);
    make_bare_venv(dir / "venv");
    r = run_envfix({"install", "-vv", "--env", (dir / "venv").string(), whl.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("ready trees made: 0 (0 files, 0 folders) in"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1 asked for and not made"), std::string::npos) << r.err;
    EXPECT_TRUE(ready_names(ready).empty()) << "and its want dropped";
    // The changed file was inflated from the wheel (its size is not the RECORD's), the rest linked.
    EXPECT_EQ(tree_diff(cold, snapshot(dir / "venv", {".envfix"})), "");
}

TEST_F(UnpackedCache, ReadyTreesAreMadeInTheBackgroundAfterTheInstallHasEnded) {
    // Below 64 files a wheel links as before, and asks for nothing: this one has 8.
    auto home = dir / "home";
    const auto ready = cache_of(home) / "ready";
    make_bare_venv(dir / "small");
    auto r = run_envfix({"install", "--env", (dir / "small").string(), whl.string()}, {{"ENVFIX_READY_TREES", "background"}}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(ready_names(ready).empty());
    // One of 80 files.
    Json files = Json::object();
    for (int i = 0; i < 80; ++i) files["many_pkg/m" + std::to_string(i) + ".py"] = "X = " + std::to_string(i) + "\n";
    auto many = build_wheel({{"name", "many-pkg"}, {"version", "1.0"}, {"files", files}}, dir / "wheels-many");
    auto tree_there = [&] {
        for (const auto& n : ready_names(ready))
            if (!n.ends_with(".want")) return true;
        return false;
    };
    // `envfix cache ready`, started detached, holds the lock while it works.
    auto wait_for_maker = [&] {
        for (int i = 0; i < 600 && !tree_there(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        for (int i = 0; i < 600; ++i) {
            if (fs::FileLock::acquire(ready / ".lock", {})) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return tree_there();
    };
    make_bare_venv(dir / "other");
    r = run_envfix({"install", "--env", (dir / "other").string(), many.string()}, {{"ENVFIX_READY_TREES", "background"}}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(wait_for_maker()) << "no tree 30 s after the install";
    make_bare_venv(dir / "venv");
    r = run_envfix({"install", "-vv", "--env", (dir / "venv").string(), many.string()}, {{"ENVFIX_READY_TREES", "background"}}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("ready trees used: 1 wheels' 8"), std::string::npos) << r.err;  // 80 files, METADATA, WHEEL
    EXPECT_EQ(read_text(site_packages(dir / "venv") / "many_pkg/m79.py"), "X = 79\n");
    auto check = run_program({(dir / "venv/bin/python").string(), "-c", "import many_pkg.m42 as m; print(m.X)"});
    EXPECT_EQ(check.out, "42\n") << check.err;
    EXPECT_TRUE(wait_for_maker()) << "the next one";
}

// The cache is shared by every environment: a file or a link added to a tree, or a tree's file
// edited in place, never reaches the next environment; the tree is not taken, the install links
// file by file, and what it installs is the wheel's, every file recorded.
TEST_F(UnpackedCache, ATreeHoldingAnythingElseIsNotTaken) {
    ASSERT_NO_FATAL_FAILURE(cold_and_tree());
    std::error_code ec;
    for (int round = 0; round < 3; ++round) {
        SCOPED_TRACE(round);
        // Each round's tree made again from the entry by the install before (ENVFIX_READY_TREES=wait).
        made = ready_names(ready);
        ASSERT_EQ(made.size(), 1u);
        const auto tree = ready / made[0] / "t";
        ASSERT_TRUE(stdfs::exists(tree / "cached_pkg" / "core.py"));
        if (round == 0) write_text(tree / "cached_pkg" / "planted.py", "import os\n");
        if (round == 1) stdfs::create_symlink("/etc/passwd", tree / "cached_pkg" / "planted_link");
        if (round == 2) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            std::fstream f(tree / "cached_pkg" / "core.py", std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(0);
            f.write("#", 1);
        }
        stdfs::remove_all(dir / "venv", ec);
        make_bare_venv(dir / "venv");
        auto r = run_envfix({"install", "-vv", "--env", (dir / "venv").string(), whl.string()}, {}, home);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.err.find("ready trees used: 1 wheels'"), std::string::npos) << r.err;
        EXPECT_EQ(tree_diff(cold, snapshot(dir / "venv", {".envfix"})), "");
        EXPECT_FALSE(stdfs::exists(site_packages(dir / "venv") / "cached_pkg" / "planted.py"));
        EXPECT_FALSE(stdfs::is_symlink(site_packages(dir / "venv") / "cached_pkg" / "planted_link"));
    }
}

TEST_F(UnpackedCache, ATreeMissingFilesIsCompletedFromTheEntryAndOneOfADroppedEntryIsNotTaken) {
    ASSERT_NO_FATAL_FAILURE(cold_and_tree());
    // A file gone from the tree (as when a rename into staging is refused half way): found
    // missing beside the staging and linked from the entry.
    std::error_code ec;
    ASSERT_TRUE(stdfs::remove(ready / made[0] / "t/cached_pkg/big.bin", ec));
    stdfs::remove_all(dir / "venv", ec);
    make_bare_venv(dir / "venv");
    auto r = run_envfix({"install", "-vv", "--env", (dir / "venv").string(), whl.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("ready trees used: 1 wheels'"), std::string::npos) << r.err;
    EXPECT_EQ(tree_diff(cold, snapshot(dir / "venv", {".envfix"})), "");
    EXPECT_TRUE(entry_inodes(home).count(*inode(site_packages(dir / "venv") / "cached_pkg/big.bin")));
    // The entry dropped and made again while its tree stayed (a maker racing --force-reinstall):
    // that tree holds the old entry's inodes, and is never taken.
    ASSERT_EQ(ready_names(ready), made);
    stdfs::remove_all(entry_of(home), ec);
    install(dir / "third", home);  // makes the entry again (and its tree would be asked for)
    stdfs::remove_all(dir / "venv", ec);
    make_bare_venv(dir / "venv");
    r = run_envfix({"install", "-vv", "--env", (dir / "venv").string(), whl.string()}, {}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("ready trees used"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ready trees made: 1"), std::string::npos) << r.err << " (one of the entry as it is now)";
    EXPECT_EQ(tree_diff(cold, snapshot(dir / "venv", {".envfix"})), "");
    EXPECT_EQ(ready_names(ready), made);
}
