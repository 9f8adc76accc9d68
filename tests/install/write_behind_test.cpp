// A large entry's hashing and writing behind its inflating (installer/src/write_behind.hpp): what
// is pushed, in pieces of any size, is hashed and written whole and in order, on the threads
// behind or inline, the ring widened or not (and then holding its few slots only); at most
// HashWriteBehind::kMaxAtOnce at once; one dropped unfinished stops.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "file_ops.hpp"
#include "install_fixtures.hpp"
#include "record_hash.hpp"
#include "support.hpp"
#include "write_behind.hpp"

using namespace envfix;
using namespace envfix::installer;

namespace {

// Pushes `data` in pieces of 1 byte to 700 KiB (across slot boundaries, larger than a slot).
void push_in_pieces(HashedOutput& out, const std::string& data, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<size_t> piece(1, 700u << 10);
    for (size_t at = 0; at < data.size();) {
        const size_t n = std::min(data.size() - at, rng() % 4 == 0 ? size_t{1} + rng() % 64 : piece(rng));
        ASSERT_TRUE(out.push(std::string_view(data).substr(at, n)));
        at += n;
    }
}

// `data` pushed in pieces into a new file at `path`, behind or inline, the ring widened once
// `widen_at` bytes are in (never where it is past the end); the file and its digest checked whole.
HashWriteBehind::Times write_checked(const std::filesystem::path& path, const std::string& data, bool behind,
                                     size_t widen_at, unsigned seed) {
    auto file = fileops::OutFile::create(path);
    EXPECT_TRUE(file);
    if (!file) return {};
    RecordHasher hasher;
    EXPECT_TRUE(hasher.start("sha256"));
    HashedOutput out(hasher, *file, behind);
    const size_t first = std::min(widen_at, data.size());
    push_in_pieces(out, data.substr(0, first), seed);
    if (widen_at <= data.size()) out.widen();
    push_in_pieces(out, data.substr(first), seed + 100);
    EXPECT_TRUE(out.finish());
    EXPECT_EQ(out.size(), data.size());
    EXPECT_TRUE(file->finish(fileops::FileMode::Regular));
    EXPECT_EQ(hasher.finish_b64(), record_sha256(data));
    EXPECT_TRUE(test::read_text(path) == data);
    return out.times();
}

constexpr size_t kNever = SIZE_MAX;

}  // namespace

TEST(WriteBehind, PiecesOfAnySizeAreHashedAndWrittenWholeAndInOrder) {
    test::TempDir dir;
    const std::string data = test::random_bytes((20u << 20) + 12345, 7);
    for (const bool behind : {true, false}) {
        SCOPED_TRACE(behind ? "behind" : "inline");
        const auto times = write_checked(dir / (behind ? "behind.bin" : "inline.bin"), data, behind, kNever, behind ? 1 : 2);
        if (behind) EXPECT_GT(times.hashing.count(), 0);  // the threads behind did the work
        else EXPECT_EQ(times.hashing.count(), 0);
    }
}

TEST(WriteBehind, AWidenedRingStillHandsEverythingOverInOrder) {
    test::TempDir dir;
    const std::string data = test::random_bytes((24u << 20) + 777, 11);
    // Widened before the first byte (a stream lent workers from its start) and halfway (workers
    // joining a stream as it runs).
    for (const size_t at : {size_t{0}, data.size() / 2}) {
        SCOPED_TRACE("widened at " + std::to_string(at));
        const auto times = write_checked(dir / ("wide" + std::to_string(at)), data, true, at, 4);
        EXPECT_GE(times.buffers, 1u);
        EXPECT_LE(times.buffers, HashWriteBehind::kWideSlots);
    }
}

TEST(WriteBehind, ARingNotWidenedHoldsAtMostItsFewSlots) {
    test::TempDir dir;
    const auto times = write_checked(dir / "narrow.bin", test::random_bytes(12u << 20, 12), true, kNever, 6);
    EXPECT_GE(times.buffers, 1u);
    EXPECT_LE(times.buffers, HashWriteBehind::kSlots);
}

TEST(WriteBehind, AtMostSoManyAtOnceTheRestInline) {
    test::TempDir dir;
    std::vector<std::unique_ptr<RecordHasher>> hashers;
    std::vector<std::unique_ptr<fileops::OutFile>> files;
    std::vector<std::unique_ptr<HashWriteBehind>> running;
    auto start = [&](int i) {
        hashers.push_back(std::make_unique<RecordHasher>());
        hashers.back()->start("sha256");
        auto f = fileops::OutFile::create(dir / ("f" + std::to_string(i)));
        EXPECT_TRUE(f);
        files.push_back(std::make_unique<fileops::OutFile>(std::move(*f)));
        return HashWriteBehind::try_start(*hashers.back(), *files.back());
    };
    for (int i = 0; i < HashWriteBehind::kMaxAtOnce; ++i) {
        running.push_back(start(i));
        ASSERT_TRUE(running.back());
    }
    EXPECT_FALSE(start(100)) << "one more is done inline";
    running.pop_back();  // dropped unfinished: its place is free again
    EXPECT_TRUE(start(101));
}

TEST(WriteBehind, OneDroppedUnfinishedStopsItsThreads) {
    test::TempDir dir;
    const std::string data = test::random_bytes(3u << 20, 3);
    auto file = fileops::OutFile::create(dir / "dropped.bin");
    ASSERT_TRUE(file);
    RecordHasher hasher;
    hasher.start("sha256");
    {
        HashedOutput out(hasher, *file, true);
        push_in_pieces(out, data, 3);
    }  // no finish(): what was not done is dropped, and the destructor returns
    SUCCEED();
}
