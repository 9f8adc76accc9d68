// `envfix install` end to end with entries larger than the stager inflates whole (1 MiB): the
// built binary streams them from the wheel file, the installed bytes and RECORD are right, and a
// corrupt large entry is refused with one line naming wheel and entry, the venv left as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "envfix/common/hash.hpp"
#include "install_fixtures.hpp"
#include "library_bytes.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::test;

namespace {

WheelSpec large_spec() {
    WheelSpec s;
    s.name = "largepkg";
    s.files = {ZipItem{.name = "largepkg/__init__.py", .data = "X = 1\n"},
               ZipItem{.name = "largepkg/lib/libhuge.so", .data = library_bytes(24u << 20, 3)},
               ZipItem{.name = "largepkg/lib/libmid.so", .data = library_bytes(3u << 20, 4)},
               ZipItem{.name = "largepkg/lib/raw.bin", .data = library_bytes(2u << 20, 5), .method = 0}};
    return s;
}

}  // namespace

TEST(InstallLargeEntry, StreamedEntriesAreInstalledByteForByte) {
    TempDir dir;
    auto venv = dir / "venv";
    make_bare_venv(venv);
    WheelSpec spec = large_spec();
    auto r = run_envfix({"install", "--env", venv.string(), write_wheel(spec, dir / "w").string()}, {}, dir / "home");
    ASSERT_EQ(r.code, 0) << r.err;
    auto sp = site_packages(venv);
    for (const auto& f : spec.files) EXPECT_TRUE(read_text(sp / f.name) == f.data) << f.name;
    std::string record = read_text(sp / "largepkg-1.0.dist-info" / "RECORD");
    EXPECT_NE(record.find("largepkg/lib/libhuge.so," + record_hash(spec.files[1].data) + "," + std::to_string(24u << 20)),
              std::string::npos)
        << record;
}

TEST(InstallLargeEntry, ACorruptLargeEntryIsRefusedAndTheVenvStaysAsItWas) {
    TempDir dir;
    auto venv = dir / "venv";
    make_bare_venv(venv);
    WheelSpec spec = large_spec();
    spec.files[1].local_crc = 0xdeadbeef;  // both headers agree: only the data can tell
    spec.files[1].central_crc = 0xdeadbeef;
    auto before = snapshot(venv, {".envfix/store"});
    auto wheel = write_wheel(spec, dir / "w");
    auto r = run_envfix({"install", "--env", venv.string(), wheel.string()}, {}, dir / "home");
    EXPECT_EQ(r.code, 60) << r.err;  // bad_wheel
    auto line = first_error_line(r);
    EXPECT_NE(line.find(wheel.filename().string()), std::string::npos) << line;
    EXPECT_NE(line.find("largepkg/lib/libhuge.so"), std::string::npos) << line;
    EXPECT_NE(line.find("CRC-32"), std::string::npos) << line;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv, {".envfix/store"})), "");
}

TEST(InstallLargeEntry, AnUpgradeRefusedAfterTheSnapshotWasStoredAheadTakesItsObjectsBack) {
    // The installed 1.0's files go into the snapshot store while 2.0 is staged (on a thread of
    // its own); 2.0's corrupt entry stops the install, and the store is as it was: nothing is left
    // that no snapshot refers to.
    TempDir dir;
    auto venv = dir / "venv";
    make_bare_venv(venv);
    ASSERT_EQ(run_envfix({"install", "--env", venv.string(), write_wheel(large_spec(), dir / "w1").string()}, {}, dir / "home").code, 0);
    auto before = snapshot(venv);
    auto installed = snapshot(venv, {".envfix"});
    WheelSpec spec = large_spec();
    spec.version = "2.0";
    spec.files[1].data = library_bytes(24u << 20, 7);  // new bytes: inflated, not kept from 1.0
    spec.files[1].local_crc = 0xdeadbeef;
    spec.files[1].central_crc = 0xdeadbeef;
    auto r = run_envfix({"install", "--env", venv.string(), write_wheel(spec, dir / "w2").string()}, {}, dir / "home");
    EXPECT_EQ(r.code, 60) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
    // The same upgrade with a sound wheel: 1.0's files stored ahead are kept for its snapshot,
    // which brings 1.0 back.
    WheelSpec sound = large_spec();
    sound.version = "2.0";
    sound.files[1].data = library_bytes(24u << 20, 7);
    auto good = run_envfix({"install", "--env", venv.string(), "-vv", write_wheel(sound, dir / "w3").string()}, {}, dir / "home");
    ASSERT_EQ(good.code, 0) << good.err;
    EXPECT_TRUE(std::regex_search(good.err, std::regex("snapshot [0-9]+: [0-9]+ files, [0-9]+ hashed, [1-9][0-9]* newly stored"))) << good.err;
    auto back = run_envfix({"rollback", "--env", venv.string(), "-y"}, {}, dir / "home");
    ASSERT_EQ(back.code, 0) << back.err;
    EXPECT_EQ(tree_diff(installed, snapshot(venv, {".envfix"})), "");
}
