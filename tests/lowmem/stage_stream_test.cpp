// The stager (installer/src/stager.hpp) on wheels with entries above the size it inflates whole:
// those are streamed from the wheel file with zlib, hashed and checked on the way, and give the
// same files and digests as the whole-entry path; every lie is caught and named.
#include <gtest/gtest.h>

#include <csignal>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#ifndef _WIN32
#include <sys/resource.h>
#endif

#include "envfix/common/hash.hpp"
#include "envfix/installer/wheel.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "stager.hpp"
#include "support.hpp"
#include "library_bytes.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::test;
using namespace envfix::installer;

namespace {

struct Staged {
    Expected<std::vector<StagedDigest>> digests;
    std::vector<stdfs::path> files;  // per payload entry, in the wheel's order
    std::vector<std::string> names;
};

// Opens the wheel and stages every payload file (and the archive hash) under `out`.
Staged stage(const stdfs::path& wheel_file, const stdfs::path& out, size_t whole_up_to, uint64_t write_behind_from = 0) {
    auto w = open_wheel(wheel_file);
    EXPECT_TRUE(w) << (w ? "" : render(w.error().message, Lang::En));
    Staged s;
    if (!w) {
        s.digests = unexpected(w.error());
        return s;
    }
    std::vector<PlannedFile> planned;
    planned.reserve(w->files.size());
    for (size_t entry : w->files) {
        PlannedFile f;
        f.entry = entry;
        planned.push_back(f);
    }
    std::vector<StageItem> items;
    for (size_t k = 0; k < planned.size(); ++k) {
        stdfs::path p = out / ("f" + std::to_string(k));
        items.push_back({&*w, &planned[k], p, {}});
        s.files.push_back(p);
        s.names.push_back(w->zip.entries[planned[k].entry].name);
    }
    items.push_back({&*w, nullptr, {}, {}});
    stdfs::create_directories(out);
    StageOptions o;
    o.whole_up_to = whole_up_to;
    o.write_behind_from = write_behind_from;
    s.digests = stage_items(items, o);
    return s;
}

WheelSpec big_wheel() {
    WheelSpec spec;
    spec.name = "bigpkg";
    spec.files = {ZipItem{.name = "bigpkg/__init__.py", .data = "x = 1\n"},
                  ZipItem{.name = "bigpkg/libbig.so", .data = library_bytes(3u << 20, 7)},
                  ZipItem{.name = "bigpkg/stored.bin", .data = library_bytes(1500'000, 9), .method = 0},
                  ZipItem{.name = "bigpkg/mid.so", .data = library_bytes(200'000, 11)},
                  ZipItem{.name = "bigpkg/empty.txt", .data = ""}};
    return spec;
}

}  // namespace

TEST(StageStream, StreamedAndWholeEntriesGiveTheSameFilesAndDigests) {
    TempDir dir;
    WheelSpec spec = big_wheel();
    auto wheel = write_wheel(spec, dir / "wheels");
    // Default (1 MiB): libbig.so and stored.bin streamed; 64 KiB: mid.so too; 64 MiB: all whole.
    // Streamed entries hashed and written inline, or behind the inflating (write_behind.hpp) from
    // 1 byte: every streamed entry, several slots each.
    for (uint64_t behind : {uint64_t{UINT64_MAX}, uint64_t{1}}) {
        for (size_t whole_up_to : {size_t{0}, size_t{64} << 10, size_t{64} << 20}) {
            auto out = dir / ("out" + std::to_string(whole_up_to) + "-" + std::to_string(behind));
            auto s = stage(wheel, out, whole_up_to, behind);
            ASSERT_TRUE(s.digests) << render(s.digests.error().message, Lang::En);
            for (size_t k = 0; k < s.files.size(); ++k) {
                const ZipItem* item = nullptr;
                for (const auto& f : spec.files)
                    if (f.name == s.names[k]) item = &f;
                if (!item) continue;  // dist-info members
                EXPECT_EQ(read_text(s.files[k]), item->data) << s.names[k] << " at " << whole_up_to;
                EXPECT_EQ("sha256=" + (*s.digests)[k].digest, record_hash(item->data)) << s.names[k];
                EXPECT_EQ((*s.digests)[k].size, item->data.size());
            }
            // The archive's own hash, read from the file in pieces.
            EXPECT_EQ(s.digests->back().digest, *sha256_file_hex(wheel));
            EXPECT_EQ(s.digests->back().size, stdfs::file_size(wheel));
        }
    }
}

TEST(StageStream, AStreamedEntryThatDisagreesWithRecordIsRefusedNamingWheelAndEntry) {
    for (uint64_t behind : {uint64_t{0}, uint64_t{1}}) {
        TempDir dir;
        WheelSpec spec = big_wheel();
        const auto& big = spec.files[1];
        spec.record_override[big.name] = big.name + "," + record_hash("something else") + "," + std::to_string(big.data.size());
        auto wheel = write_wheel(spec, dir / "wheels");
        auto s = stage(wheel, dir / "out", 0, behind);
        ASSERT_FALSE(s.digests);
        EXPECT_EQ(s.digests.error().code, ExitCode::BadWheel);
        EXPECT_EQ(s.digests.error().message.key, "wheel.hash_mismatch");
        std::string text = render(s.digests.error().message, Lang::En);
        EXPECT_NE(text.find(wheel.filename().string()), std::string::npos) << text;
        EXPECT_NE(text.find("bigpkg/libbig.so"), std::string::npos) << text;
    }
}

TEST(StageStream, CrcMismatchAndTruncatedDataOfAStreamedEntryAreRefused) {
    struct Case {
        const char* what;
        void (*lie)(ZipItem&);
        const char* reason;
    };
    const Case cases[] = {
        {"CRC-32 wrong in both headers",
         [](ZipItem& i) {
             i.local_crc = 0x1234;
             i.central_crc = 0x1234;
         },
         "CRC-32"},
        {"deflate data cut in half",
         [](ZipItem& i) {
             std::string d = deflate_raw(i.data);
             i.raw_compressed = d.substr(0, d.size() / 2);
         },
         "truncated"},
    };
    for (const auto& c : cases) {
        TempDir dir;
        WheelSpec spec = big_wheel();
        c.lie(spec.files[1]);
        auto wheel = write_wheel(spec, dir / "wheels");
        auto s = stage(wheel, dir / "out", 0, 1);  // hashed and written behind: the inflate still refuses
        ASSERT_FALSE(s.digests) << c.what;
        EXPECT_EQ(s.digests.error().code, ExitCode::BadWheel) << c.what;
        EXPECT_EQ(s.digests.error().message.key, "zip.data_mismatch") << c.what;
        std::string text = render(s.digests.error().message, Lang::En);
        EXPECT_NE(text.find(wheel.filename().string()), std::string::npos) << c.what << ": " << text;
        EXPECT_NE(text.find("bigpkg/libbig.so"), std::string::npos) << c.what << ": " << text;
        EXPECT_NE(text.find(c.reason), std::string::npos) << c.what << ": " << text;
    }
}

// A wheel of one 3 MiB library, opened, and its entry planned.
struct OneLibrary {
    stdfs::path wheel;
    Expected<WheelFile> opened;
    PlannedFile file;
    explicit OneLibrary(const stdfs::path& dir)
        : wheel(write_wheel(WheelSpec{.name = "bigpkg", .files = {ZipItem{.name = "bigpkg/libbig.so", .data = library_bytes(3u << 20, 5)}}},
                            dir / "wheels")),
          opened(open_wheel(wheel)) {
        if (opened) file.entry = opened->files[0];
    }
};

TEST(StageStream, AWheelCutShortAfterOpeningIsRefusedNamingWheelAndEntry) {
    TempDir dir;
    // The large entry first, so the file can be cut inside its data and still be opened.
    OneLibrary one(dir.path());
    const auto& wheel = one.wheel;
    auto& w = one.opened;
    ASSERT_TRUE(w);
    PlannedFile& f = one.file;
    ASSERT_EQ(w->zip.entries[f.entry].name, "bigpkg/libbig.so");
    // What the mapping read when the wheel was opened stays; the file itself now ends early.
    stdfs::resize_file(wheel, w->zip.entries[f.entry].data_offset + 1000);
    std::vector<StageItem> items{{&*w, &f, dir / "out.so", {}}};
    auto r = stage_items(items, {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::BadWheel);
    std::string text = render(r.error().message, Lang::En);
    EXPECT_NE(text.find(wheel.filename().string()), std::string::npos) << text;
    EXPECT_NE(text.find("bigpkg/libbig.so"), std::string::npos) << text;
    EXPECT_NE(text.find("truncated"), std::string::npos) << text;
    EXPECT_FALSE(stdfs::exists(dir / "out.so"));  // a file not finished is removed
}

#ifndef _WIN32
// A write that fails on the writing thread behind the inflate (here: over RLIMIT_FSIZE, EFBIG, as
// a full disk would) fails the entry with a file error, leaves no half-written file, and lets the
// other entries' threads stop.
TEST(StageStream, AWriteFailingBehindTheInflateFailsTheEntryAndLeavesNoFile) {
    TempDir dir;
    OneLibrary one(dir.path());
    ASSERT_TRUE(one.opened);
    std::vector<StageItem> items{{&*one.opened, &one.file, dir / "out.so", {}}};
    StageOptions o;
    o.write_behind_from = 1;
    auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit old_limit {};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    struct rlimit small = old_limit;
    small.rlim_cur = 1u << 20;  // the library is 3 MiB
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    auto r = stage_items(items, o);
    setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().code, ExitCode::BadWheel) << render(r.error().message, Lang::En);
    EXPECT_NE(render(r.error().message, Lang::En).find("out.so"), std::string::npos) << render(r.error().message, Lang::En);
    EXPECT_FALSE(stdfs::exists(dir / "out.so"));
}
#endif

// Beside work it must not slow (unpack_ahead.cpp: a wheel's large files still inflating), a run
// starts low and, once that work ends, goes on with as many workers again; it ends only after
// both, every file right whether the low workers had finished it all or had barely begun.
TEST(StageStream, ARunBesideOtherWorkEndsOnlyAfterItAndStagesEveryFile) {
    TempDir dir;
    WheelSpec spec;
    spec.name = "manypkg";
    for (int i = 0; i < 400; ++i) spec.files.push_back(ZipItem{.name = "manypkg/m" + std::to_string(i) + ".py", .data = library_bytes(3000 + i, i)});
    auto wheel = write_wheel(spec, dir / "wheels");
    auto w = open_wheel(wheel);
    ASSERT_TRUE(w);
    std::vector<PlannedFile> planned(w->files.size());
    for (size_t k = 0; k < planned.size(); ++k) planned[k].entry = w->files[k];
    for (int wait_ms : {0, 300}) {
        auto out = dir / ("out" + std::to_string(wait_ms));
        stdfs::create_directories(out);
        std::vector<StageItem> items;
        for (size_t k = 0; k < planned.size(); ++k) items.push_back({&*w, &planned[k], out / ("f" + std::to_string(k)), {}});
        std::atomic<int> calls{0};
        std::atomic<bool> returned{false};
        StageOptions o;
        o.threads = 3;
        o.beside = [&] {
            ++calls;
            std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
            returned = true;
        };
        auto digests = stage_items(items, o);
        ASSERT_TRUE(digests) << render(digests.error().message, Lang::En);
        EXPECT_EQ(calls.load(), 1);
        EXPECT_TRUE(returned.load()) << "the run ended before the work beside it";
        for (size_t k = 0; k < items.size(); ++k) {
            const std::string& name = w->zip.entries[planned[k].entry].name;
            for (const auto& f : spec.files)
                if (f.name == name) {
                    EXPECT_EQ(read_text(items[k].stage), f.data) << name;
                    EXPECT_EQ("sha256=" + (*digests)[k].digest, record_hash(f.data)) << name;
                }
        }
    }
}
