// The zip reader on archives built byte by byte: every structure check, table-driven.
#include <gtest/gtest.h>

#include "envfix/wheel/zip_read.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::wheel;
using envfix::test::build_zip;
using envfix::test::ZipItem;
using envfix::test::ZipOptions;

namespace {

std::string read_all(std::string_view archive, const wheel::ZipEntry& e) {
    auto text = wheel::read_zip_entry_text(archive, e, "t.whl");
    EXPECT_TRUE(text) << (text ? "" : render(text.error().message, Lang::En));
    return text ? *text : "";
}

std::string big_text() {
    std::string s;
    for (int i = 0; i < 20000; ++i) s += "line " + std::to_string(i) + "\n";
    return s;
}

}  // namespace

TEST(Zip, ReadsStoredDeflateAndDescriptorEntries) {
    std::string big = big_text();
    auto a = build_zip({{"a.txt", "hello", 0}, {"pkg/b.py", big, 8}, ZipItem{.name = "c", .data = "dd", .data_descriptor = true}});
    auto dir = wheel::read_zip_directory(a, "t.whl");
    ASSERT_TRUE(dir) << render(dir.error().message, Lang::En);
    ASSERT_EQ(dir->entries.size(), 3u);
    EXPECT_EQ(read_all(a, dir->entries[0]), "hello");
    EXPECT_EQ(read_all(a, dir->entries[1]), big);
    EXPECT_EQ(read_all(a, dir->entries[2]), "dd");
    EXPECT_EQ(dir->total_size, 5 + big.size() + 2);
}

TEST(Zip, ReadsZip64Archives) {
    ZipOptions o;
    o.zip64 = true;
    auto a = build_zip({{"x", "abc"}, {"y", std::string(5000, 'z'), 0}, ZipItem{.name = "d", .data = "q", .data_descriptor = true}}, o);
    auto dir = wheel::read_zip_directory(a, "t.whl");
    ASSERT_TRUE(dir) << render(dir.error().message, Lang::En);
    EXPECT_EQ(read_all(a, dir->entries[1]), std::string(5000, 'z'));
    EXPECT_EQ(read_all(a, dir->entries[2]), "q");
}

TEST(Zip, AZip64LocatorPointingNearTheEndOfTheAddressSpaceIsRefused) {
    // Found by fuzz_zip: the record's offset 2^64 - 9 wrapped the bounds check around, and the
    // reader read far outside the archive. Now a clean refusal, also from any tail of it.
    std::string a = "PK\x06\x07" + std::string(4, '\0') + std::string("\xf7\xff\xff\xff\xff\xff\xff\xff", 8) +
                    std::string("\x01\0\0\0", 4) + "PK\x05\x06" + std::string(18, '\0');
    auto dir = wheel::read_zip_directory(a, "t.whl");
    ASSERT_FALSE(dir);
    EXPECT_EQ(dir.error().message.key, "zip.malformed");
    EXPECT_NE(render(dir.error().message, Lang::En).find("ZIP64 end record"), std::string::npos) << render(dir.error().message, Lang::En);
    for (size_t cut = 0; cut <= a.size(); ++cut) {
        auto tail = wheel::read_zip_central(std::string_view(a).substr(cut), cut, "t.whl");
        EXPECT_TRUE(!tail || tail->need_from) << cut;
    }
}

TEST(Zip, TheDirectoryReadFromATailIsTheWholeArchivesDirectory) {
    // What unpacking a wheel while it downloads reads first (unpack_early.cpp): from any tail,
    // after the steps back it asks for, the same entries as the whole archive's directory.
    for (bool zip64 : {false, true}) {
        ZipOptions o;
        o.zip64 = zip64;
        auto a = build_zip({{"x", "abc"}, {"pkg/lib.so", big_text(), 8}, {"pkg-1.0.dist-info/RECORD", "x,,\n", 8}}, o);
        auto whole = wheel::read_zip_directory(a, "t.whl");
        ASSERT_TRUE(whole);
        for (size_t cut : {size_t{0}, a.size() / 2, a.size() - 200, a.size() - 30, a.size() - 1, a.size()}) {
            uint64_t at = cut;
            auto tail = wheel::read_zip_central(std::string_view(a).substr(at), at, "t.whl");
            for (int steps = 0; tail && tail->need_from && steps < 4; ++steps) {
                ASSERT_LT(*tail->need_from, at);
                at = *tail->need_from;
                tail = wheel::read_zip_central(std::string_view(a).substr(at), at, "t.whl");
            }
            ASSERT_TRUE(tail) << cut << ": " << render(tail.error().message, Lang::En);
            ASSERT_FALSE(tail->need_from) << cut;
            ASSERT_EQ(tail->dir.entries.size(), whole->entries.size());
            for (size_t i = 0; i < whole->entries.size(); ++i) {
                EXPECT_EQ(tail->dir.entries[i].name, whole->entries[i].name);
                EXPECT_EQ(tail->dir.entries[i].crc32, whole->entries[i].crc32);
                EXPECT_EQ(tail->dir.entries[i].local_header_offset, whole->entries[i].local_header_offset);
                EXPECT_EQ(tail->dir.entries[i].compressed_size, whole->entries[i].compressed_size);
            }
        }
    }
}

TEST(Zip, KeepsModesAndConvertsCp437Names) {
    auto a = build_zip(
        {ZipItem{.name = "bin/tool", .data = "x", .unix_mode = 0100755}, ZipItem{.name = "link", .data = "target", .unix_mode = 0120777},
         ZipItem{.name = std::string("caf\x82"), .data = "e"}, ZipItem{.name = "\xc3\xa9t\xc3\xa9", .data = "u", .utf8_flag = true}});
    auto dir = wheel::read_zip_directory(a, "t.whl");
    ASSERT_TRUE(dir);
    EXPECT_TRUE(dir->entries[0].is_executable());
    EXPECT_FALSE(dir->entries[1].is_executable());
    EXPECT_TRUE(dir->entries[1].is_symlink());
    EXPECT_EQ(dir->entries[2].name, "caf\xc3\xa9");  // CP437 0x82 is é
    EXPECT_EQ(dir->entries[3].name, "\xc3\xa9t\xc3\xa9");
}

struct BadZip {
    const char* what;
    std::vector<ZipItem> items;
    ZipOptions options;
    const char* key;
};

TEST(Zip, RefusesEveryInconsistency) {
    const std::string payload = "some data for the entry";
    std::vector<BadZip> cases = {
        {"trailing bytes after the end record", {{"a", payload}}, ZipOptions{.trailing = "JUNK"}, "zip.malformed"},
        {"directory offset off by one", {{"a", payload}}, ZipOptions{.cd_offset_delta = 1}, "zip.malformed"},
        {"entry count larger than the directory", {{"a", payload}}, ZipOptions{.entry_count = 2}, "zip.malformed"},
        {"duplicate names", {{"a", payload}, {"a", "other"}}, {}, "zip.duplicate"},
        {"local name differs", {ZipItem{.name = "a.py", .data = payload, .local_name = "b.py"}}, {}, "zip.header_mismatch"},
        {"local CRC differs", {ZipItem{.name = "a", .data = payload, .local_crc = 1234}}, {}, "zip.header_mismatch"},
        {"local size differs", {ZipItem{.name = "a", .data = payload, .local_size = 3}}, {}, "zip.header_mismatch"},
        {"central method differs", {ZipItem{.name = "a", .data = payload, .method = 0, .central_method = 8}}, {}, "zip.header_mismatch"},
        {"unknown method", {ZipItem{.name = "a", .data = payload, .method = 99, .raw_compressed = payload}}, {}, "zip.method"},
        {"control character in a name",
         {{"a\x01"
           "b",
           payload}},
         {},
         "zip.malformed"},
        {"invalid UTF-8 name", {ZipItem{.name = "\xff\xfe", .data = payload, .utf8_flag = true}}, {}, "zip.malformed"},
        // Two directory entries on one local header: one overlaps the other or names another file.
        {"entries overlap", {{"a", payload, 0}, ZipItem{.name = "b", .data = payload, .method = 0, .central_offset = 0}}, {}, nullptr},
        {"declared size deflate cannot produce",
         {ZipItem{.name = "bomb", .data = "x", .local_size = 1ull << 31, .central_size = 1ull << 31}},
         {},
         "zip.too_large"},
    };
    for (const auto& c : cases) {
        auto a = build_zip(c.items, c.options);
        auto dir = wheel::read_zip_directory(a, "bad.whl");
        ASSERT_FALSE(dir) << c.what;
        EXPECT_EQ(dir.error().code, ExitCode::BadWheel) << c.what;
        if (c.key) {
            EXPECT_EQ(dir.error().message.key, c.key) << c.what << ": " << render(dir.error().message, Lang::En);
        }
        EXPECT_NE(render(dir.error().message, Lang::En).find("bad.whl"), std::string::npos) << c.what;
    }
}

TEST(Zip, RefusesTruncatedArchivesAtEveryLength) {
    auto a = build_zip({{"a.py", big_text()}, {"b.py", "tail"}});
    for (size_t len : {size_t(0), size_t(10), a.size() / 3, a.size() / 2, a.size() - 30, a.size() - 1}) {
        auto dir = wheel::read_zip_directory(std::string_view(a).substr(0, len), "cut.whl");
        EXPECT_FALSE(dir) << len;
        if (!dir) {
            EXPECT_EQ(dir.error().code, ExitCode::BadWheel);
        }
    }
}

TEST(Zip, DataThatLiesAboutItsSizeOrCrcIsRefusedWhileReading) {
    std::string data = big_text();
    // The directory and the local header agree on a wrong CRC: only the data can tell.
    auto a = build_zip({ZipItem{.name = "x", .data = data, .local_crc = 7, .central_crc = 7}});
    auto dir = wheel::read_zip_directory(a, "t.whl");
    ASSERT_TRUE(dir);
    auto r = wheel::read_zip_entry_text(a, dir->entries[0], "t.whl");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.key, "zip.data_mismatch");

    // Declared 10 bytes, inflates to much more: stopped at byte 10, never written out.
    auto b = build_zip({ZipItem{.name = "x", .data = data, .local_size = 10, .central_size = 10}});
    auto dir2 = wheel::read_zip_directory(b, "t.whl");
    ASSERT_TRUE(dir2);
    uint64_t seen = 0;
    auto r2 = wheel::read_zip_entry(b, dir2->entries[0], "t.whl", [&](std::string_view c) -> Expected<void> {
        seen += c.size();
        return {};
    });
    ASSERT_FALSE(r2);
    EXPECT_EQ(r2.error().message.key, "zip.data_mismatch");
    EXPECT_LE(seen, 10u);

    // Corrupt deflate data.
    auto c = build_zip({ZipItem{.name = "x", .data = "hello world", .raw_compressed = std::string(64, '\xff')}});
    auto dir3 = wheel::read_zip_directory(c, "t.whl");
    ASSERT_TRUE(dir3);
    EXPECT_FALSE(wheel::read_zip_entry_text(c, dir3->entries[0], "t.whl"));
}
