// stream_zip_entry (zip.hpp): an entry read from the archive file in pieces, with buffers much
// smaller than the entry, gives the bytes read_zip_entry gives from memory, and refuses every lie
// the same way, naming the archive and the entry.
#include <gtest/gtest.h>

#include <cstring>

#include "envfix/wheel/zip_format.hpp"
#include "envfix/wheel/zip_read.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::test;
using namespace envfix::wheel;

namespace {

// Text that compresses, with enough variety to make several deflate blocks.
std::string sample(size_t n) {
    std::string s;
    s.reserve(n);
    for (uint32_t i = 0; s.size() < n; ++i) s += "line " + std::to_string(i * 2654435761u % 100003) + " of the sample\n";
    s.resize(n);
    return s;
}

// The archive as a file would give it: `limit` bytes of it (a file shorter than its directory).
wheel::ZipReadAt reader(const std::string& archive, size_t limit = SIZE_MAX) {
    return [&archive, limit](uint64_t off, char* into, size_t n) -> Expected<size_t> {
        size_t end = std::min(archive.size(), limit);
        if (off >= end) return size_t{0};
        n = std::min<size_t>(n, end - static_cast<size_t>(off));
        std::memcpy(into, archive.data() + off, n);
        return n;
    };
}

Expected<std::string> streamed(const std::string& archive, const wheel::ZipEntry& e, size_t in_size, size_t out_size,
                               size_t limit = SIZE_MAX) {
    std::vector<char> in(in_size), out(out_size);
    std::string got;
    ENVFIX_TRY_VOID(wheel::stream_zip_entry(e, "t.whl", reader(archive, limit), in, out, [&](std::string_view c) -> Expected<void> {
        got.append(c);
        return {};
    }));
    return got;
}

// Each streaming test with the build's inflater (ISA-L where built in) and with zlib.
class StreamEntry : public ::testing::TestWithParam<wheel::zipfmt::StreamInflater> {
protected:
    void SetUp() override { wheel::zipfmt::set_stream_inflater(GetParam()); }
    void TearDown() override { wheel::zipfmt::set_stream_inflater(wheel::zipfmt::StreamInflater::Default); }
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Inflaters, StreamEntry,
                         ::testing::Values(wheel::zipfmt::StreamInflater::Default, wheel::zipfmt::StreamInflater::Zlib),
                         [](const auto& info) { return info.param == wheel::zipfmt::StreamInflater::Zlib ? "zlib" : "build"; });

TEST_P(StreamEntry, GivesTheBytesOfEveryMethodWhateverTheBufferSizes) {
    const std::string data = sample(300'000);
    auto a = build_zip({ZipItem{.name = "d", .data = data, .method = 8}, ZipItem{.name = "s", .data = data, .method = 0},
                        ZipItem{.name = "empty", .data = "", .method = 8}, ZipItem{.name = "desc", .data = data, .data_descriptor = true}});
    auto dir = wheel::read_zip_directory(a, "t.whl");
    ASSERT_TRUE(dir);
    struct Case {
        size_t in, out;
    };
    for (Case c : {Case{1, 1}, Case{7, 13}, Case{4096, 100}, Case{1 << 20, 1 << 20}}) {
        for (const auto& e : dir->entries) {
            auto got = streamed(a, e, c.in, c.out);
            ASSERT_TRUE(got) << e.name << " " << c.in << "/" << c.out << ": " << render(got.error().message, Lang::En);
            EXPECT_EQ(*got, e.name == "empty" ? "" : data) << e.name << " " << c.in << "/" << c.out;
        }
    }
}

TEST_P(StreamEntry, RefusesLiesNamingArchiveAndEntry) {
    const std::string data = sample(200'000);
    const std::string deflated = deflate_raw(data);
    struct Case {
        const char* what;
        ZipItem item;
        size_t limit;  // bytes of the archive the "file" still has (SIZE_MAX: all)
        const char* reason;  // in the message
    };
    std::vector<Case> cases = {
        {"wrong CRC in both headers", ZipItem{.name = "pkg/lib.so", .data = data, .local_crc = 7, .central_crc = 7}, SIZE_MAX, "CRC-32"},
        {"deflate stream cut short", ZipItem{.name = "pkg/lib.so", .data = data, .raw_compressed = deflated.substr(0, deflated.size() / 2)},
         SIZE_MAX, "ends early"},
        {"declared smaller", ZipItem{.name = "pkg/lib.so", .data = data, .local_size = 1000, .central_size = 1000}, SIZE_MAX,
         "more data than its declared size"},
        {"declared larger", ZipItem{.name = "pkg/lib.so", .data = data, .local_size = 300'000, .central_size = 300'000}, SIZE_MAX,
         "less data"},
        {"stored, wrong CRC", ZipItem{.name = "pkg/lib.so", .data = data, .method = 0, .local_crc = 9, .central_crc = 9}, SIZE_MAX,
         "CRC-32"},
        {"bytes after the deflate data", ZipItem{.name = "pkg/lib.so", .data = data, .raw_compressed = deflated + "junk"}, SIZE_MAX,
         "bytes after the end"},
        {"file shorter than its directory", ZipItem{.name = "pkg/lib.so", .data = data}, 5000, "archive ends inside its data"},
    };
    for (const auto& c : cases) {
        auto a = build_zip({c.item});
        auto dir = wheel::read_zip_directory(a, "t.whl");
        ASSERT_TRUE(dir) << c.what;
        auto got = streamed(a, dir->entries[0], 4096, 8192, c.limit);
        ASSERT_FALSE(got) << c.what;
        EXPECT_EQ(got.error().code, ExitCode::BadWheel) << c.what;
        EXPECT_EQ(got.error().message.key, "zip.data_mismatch") << c.what;
        std::string text = render(got.error().message, Lang::En);
        EXPECT_NE(text.find("t.whl"), std::string::npos) << c.what << ": " << text;
        EXPECT_NE(text.find("pkg/lib.so"), std::string::npos) << c.what << ": " << text;
        EXPECT_NE(text.find(c.reason), std::string::npos) << c.what << ": " << text;
        EXPECT_EQ(text.find('\n'), std::string::npos) << c.what;
    }
}

TEST_P(StreamEntry, StopsAtTheDeclaredSizeSoALyingEntryCannotFillTheDisk) {
    const std::string data = sample(500'000);
    auto a = build_zip({ZipItem{.name = "x", .data = data, .local_size = 10, .central_size = 10}});
    auto dir = wheel::read_zip_directory(a, "t.whl");
    ASSERT_TRUE(dir);
    std::vector<char> in(1024), out(1024);
    uint64_t seen = 0;
    auto r = wheel::stream_zip_entry(dir->entries[0], "t.whl", reader(a), in, out, [&](std::string_view c) -> Expected<void> {
        seen += c.size();
        return {};
    });
    ASSERT_FALSE(r);
    EXPECT_LE(seen, 10u);
}

TEST(StreamEntry, ASinkOrReadErrorIsReturnedAsIs) {
    auto a = build_zip({ZipItem{.name = "x", .data = sample(100'000)}});
    auto dir = wheel::read_zip_directory(a, "t.whl");
    ASSERT_TRUE(dir);
    std::vector<char> in(1024), out(1024);
    auto sink_fails = wheel::stream_zip_entry(dir->entries[0], "t.whl", reader(a), in, out, [](std::string_view) -> Expected<void> {
        return fail(ExitCode::DiskFull, "fs.write_failed", {{"path", "/x"}, {"reason", "full"}});
    });
    ASSERT_FALSE(sink_fails);
    EXPECT_EQ(sink_fails.error().code, ExitCode::DiskFull);
    auto read_fails = wheel::stream_zip_entry(
        dir->entries[0], "t.whl",
        [](uint64_t, char*, size_t) -> Expected<size_t> {
            return fail(ExitCode::BadInput, "fs.read_failed", {{"path", "t.whl"}, {"reason", "gone"}});
        },
        in, out, [](std::string_view) -> Expected<void> { return {}; });
    ASSERT_FALSE(read_fails);
    EXPECT_EQ(read_fails.error().code, ExitCode::BadInput);
}
