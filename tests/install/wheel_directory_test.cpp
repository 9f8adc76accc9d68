// A wheel's directory kept with its unpacked entry (installer/src/wheel_directory.hpp): decoded, it
// is the WheelFile open_wheel() gives, field by field; anything off decodes as nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/installer/wheel.hpp"
#include "support.hpp"
#include "wheel_directory.hpp"

using namespace envfix;
using namespace envfix::installer;
namespace stdfs = std::filesystem;

namespace {

nlohmann::ordered_json spec() {
    return {{"name", "kept-pkg"},
            {"version", "2.1"},
            {"tag", "cp312-cp312-manylinux_2_28_x86_64"},
            {"requires_dist", {"numpy>=1.26", "filelock; extra == 'x'"}},
            {"files",
             {{"kept_pkg/__init__.py", "VERSION = '2.1'\n"},
              {"kept_pkg/__pycache__/x.cpython-312.pyc", "bytecode"},
              {"kept_pkg/lib.so", std::string(70000, 'z')},
              {"kept_pkg/run.sh", {{"text", "#!/bin/sh\necho run\n"}, {"mode", 493}}}}},
            {"data", {{"scripts/kept-tool", {{"text", "#!python\nprint(1)\n"}, {"mode", 493}}}, {"headers/kept.h", "int k;\n"}}},
            {"entry_points", {{"console_scripts", {{"kept-cli", "kept_pkg:main"}}}}}};
}

std::string metadata_of(const WheelFile& w) {
    for (const auto& e : w.zip.entries)
        if (e.name == w.dist_info + "/METADATA") return wheel::read_zip_entry_text(w.bytes(), e, w.source()).value();
    return {};
}

void expect_same(const WheelFile& a, const WheelFile& b) {
    EXPECT_EQ(a.path, b.path);
    EXPECT_EQ(a.name.filename, b.name.filename);
    EXPECT_EQ(a.dist_info, b.dist_info);
    EXPECT_EQ(a.data_dir, b.data_dir);
    EXPECT_EQ(a.wheel_version, b.wheel_version);
    EXPECT_EQ(a.root_is_purelib, b.root_is_purelib);
    EXPECT_EQ(a.metadata.name, b.metadata.name);
    EXPECT_EQ(a.metadata.version, b.metadata.version);
    EXPECT_EQ(a.metadata.requires_dist, b.metadata.requires_dist);
    EXPECT_EQ(a.entry_points, b.entry_points);
    EXPECT_EQ(a.metadata_text, b.metadata_text);
    ASSERT_EQ(a.warnings.size(), b.warnings.size());
    for (size_t i = 0; i < a.warnings.size(); ++i) {
        EXPECT_EQ(a.warnings[i].key, b.warnings[i].key);
        EXPECT_EQ(a.warnings[i].args, b.warnings[i].args);
    }
    EXPECT_EQ(a.zip.total_size, b.zip.total_size);
    ASSERT_EQ(a.zip.entries.size(), b.zip.entries.size());
    for (size_t i = 0; i < a.zip.entries.size(); ++i) {
        const auto &x = a.zip.entries[i], &y = b.zip.entries[i];
        EXPECT_EQ(std::tie(x.name, x.method, x.flags, x.crc32, x.compressed_size, x.size, x.local_header_offset, x.data_offset,
                           x.external_attr, x.made_by_host),
                  std::tie(y.name, y.method, y.flags, y.crc32, y.compressed_size, y.size, y.local_header_offset, y.data_offset,
                           y.external_attr, y.made_by_host))
            << x.name;
    }
    ASSERT_EQ(a.record.size(), b.record.size());
    for (size_t i = 0; i < a.record.size(); ++i)
        EXPECT_EQ(std::tie(a.record[i].path, a.record[i].hash_algorithm, a.record[i].hash_digest, a.record[i].size),
                  std::tie(b.record[i].path, b.record[i].hash_algorithm, b.record[i].hash_digest, b.record[i].size));
    EXPECT_EQ(a.record_row, b.record_row);
    EXPECT_EQ(a.files, b.files);
}

class WheelDirectory : public ::testing::Test {
protected:
    void SetUp() override {
        file = test::build_wheel(spec(), dir.path() / "wheels");
        auto w = open_wheel(file);
        ASSERT_TRUE(w) << render(w.error().message, Lang::En);
        opened = std::move(*w);
        sha = sha256_hex(test::read_text(file));
        bytes = encode_wheel_directory(opened, metadata_of(opened), sha);
    }
    test::TempDir dir;
    stdfs::path file;
    WheelFile opened;
    std::string sha, bytes;
};

}  // namespace

TEST_F(WheelDirectory, DecodesToWhatOpeningTheArchiveGives) {
    ASSERT_FALSE(opened.warnings.empty());  // the skipped __pycache__ file: warnings travel too
    auto kept = decode_wheel_directory(bytes, sha, file);
    ASSERT_TRUE(kept);
    expect_same(opened, *kept);
    // The archive is mapped only when its bytes are asked for, and then they are the file's.
    ASSERT_TRUE(kept->lazy);
    EXPECT_FALSE(kept->map);
    EXPECT_EQ(kept->bytes(), test::read_text(file));
    const auto& so = kept->zip.entries[kept->files.at(1)];
    EXPECT_TRUE(wheel::read_zip_entry_text(kept->bytes(), so, kept->source()));
}

TEST_F(WheelDirectory, AnythingOffDecodesAsNothing) {
    EXPECT_FALSE(decode_wheel_directory(bytes, std::string(64, 'a'), file)) << "another wheel's sha256";
    auto renamed = dir.path() / "wheels" / "other_pkg-2.1-cp312-cp312-manylinux_2_28_x86_64.whl";
    EXPECT_FALSE(decode_wheel_directory(bytes, sha, renamed)) << "kept under another file name";
    EXPECT_FALSE(decode_wheel_directory(bytes + "x", sha, file)) << "a byte too many";
    auto flipped = bytes;
    flipped[flipped.size() / 2] ^= 1;
    EXPECT_FALSE(decode_wheel_directory(flipped, sha, file)) << "a byte changed";
    // Sealed again with the digest of the changed bytes, so the check after it is what refuses.
    auto resealed = [](std::string b) {
        b.resize(b.size() - 64);
        return b + sha256_hex(b);
    };
    auto body = [&] { return bytes.substr(0, bytes.size() - 64); };
    auto newer = body();
    newer[std::string_view("envfix-wheel-directory\n").size()] = static_cast<char>(kWheelDirectoryVersion + 1);
    EXPECT_FALSE(decode_wheel_directory(newer + sha256_hex(newer), sha, file)) << "another format version";
    EXPECT_TRUE(decode_wheel_directory(resealed(bytes), sha, file)) << "resealing alone changes nothing";
    EXPECT_FALSE(decode_wheel_directory("", sha, file));
    // Cut short anywhere: never a partial WheelFile.
    for (size_t n = 0; n < bytes.size(); n += 7) EXPECT_FALSE(decode_wheel_directory(std::string_view(bytes).substr(0, n), sha, file)) << n;
    // A count that could not fit in what follows is damage, not an allocation of gigabytes.
    auto huge = bytes;
    const auto at = huge.find(opened.zip.entries.front().name) - 4 - 4;  // the entry count before the first name's length
    huge[at] = huge[at + 1] = huge[at + 2] = huge[at + 3] = '\xff';
    EXPECT_FALSE(decode_wheel_directory(resealed(huge), sha, file));
}

TEST_F(WheelDirectory, WhatOpenWheelWouldRefuseDecodesAsNothing) {
    // Well formed and sealed, but saying what no checked archive says: never a path outside the
    // environment or a RECORD row that is not there.
    struct Case {
        const char* what;
        std::function<void(WheelFile&)> change;
    } cases[] = {
        {"an entry climbing out", [](WheelFile& w) { w.zip.entries[w.files[0]].name = "../../../.bashrc"; }},
        {"an absolute entry", [](WheelFile& w) { w.zip.entries[w.files[0]].name = "/etc/passwd"; }},
        {"a symlink entry", [](WheelFile& w) { w.zip.entries[w.files[0]].external_attr = 0120777u << 16; }},
        {"another .dist-info", [](WheelFile& w) { w.dist_info = "../../x-2.1.dist-info"; }},
        {"a .dist-info of another wheel", [](WheelFile& w) { w.dist_info = "other-2.1.dist-info"; }},
        {"a .data of another wheel", [](WheelFile& w) { w.data_dir = "other-2.1.data"; }},
        {"a file with no RECORD row", [](WheelFile& w) { w.record_row[w.files[0]] = -1; }},
        {"a file listed twice", [](WheelFile& w) { w.files[1] = w.files[0]; }},
        {"a RECORD row of another size", [](WheelFile& w) { w.record[static_cast<size_t>(w.record_row[w.files[0]])].size = 1; }},
        {"a weak hash", [](WheelFile& w) { w.record[static_cast<size_t>(w.record_row[w.files[0]])].hash_algorithm = "md5"; }},
    };
    for (const auto& c : cases) {
        auto w = decode_wheel_directory(bytes, sha, file).value();  // a copy (a mapped WheelFile is not copied)
        c.change(w);
        EXPECT_FALSE(decode_wheel_directory(encode_wheel_directory(w, metadata_of(opened), sha), sha, file)) << c.what;
    }
}

TEST_F(WheelDirectory, AFileThatCannotBeMappedGivesNoBytes) {
    auto kept = decode_wheel_directory(bytes, sha, file);
    ASSERT_TRUE(kept);
    stdfs::remove(file);
    EXPECT_TRUE(kept->bytes().empty());
    EXPECT_FALSE(wheel::read_zip_entry_text(kept->bytes(), kept->zip.entries.front(), kept->source()));
}

TEST(WheelDirectoryLarge, ALongListIsReadInPiecesAsItWasWrittenAndDamageInAnyPieceIsNothing) {
    // torch's 12 000 entries and rows are decoded in pieces on several threads: the same WheelFile,
    // and a cut, a resealed change or an unsafe name in any piece still decodes as nothing.
    test::TempDir dir;
    nlohmann::ordered_json big{{"name", "big-pkg"}, {"version", "1.0"}, {"files", nlohmann::ordered_json::object()}};
    for (int i = 0; i < 9000; ++i) big["files"]["big_pkg/m" + std::to_string(i % 53) + "/f" + std::to_string(i) + ".py"] = "x\n";
    const auto file = test::build_wheel(big, dir.path() / "wheels");
    auto opened = open_wheel(file);
    ASSERT_TRUE(opened);
    const auto sha = sha256_hex(test::read_text(file));
    const auto bytes = encode_wheel_directory(*opened, metadata_of(*opened), sha);
    auto kept = decode_wheel_directory(bytes, sha, file);
    ASSERT_TRUE(kept);
    expect_same(*opened, *kept);
    auto resealed = [](std::string b) {
        b.resize(b.size() - 64);
        return b + sha256_hex(b);
    };
    for (size_t n = 0; n < bytes.size(); n += bytes.size() / 97) EXPECT_FALSE(decode_wheel_directory(std::string_view(bytes).substr(0, n), sha, file)) << n;
    for (size_t at : {bytes.size() / 5, bytes.size() / 3, bytes.size() / 2, bytes.size() * 4 / 5}) {
        auto changed = bytes;
        changed.erase(at, 1);  // every later offset moves: a piece no longer ends where the next begins
        EXPECT_FALSE(decode_wheel_directory(resealed(changed + "x"), sha, file)) << at;
    }
    for (size_t k : {size_t{10}, size_t{4500}, size_t{8999}}) {
        auto w = decode_wheel_directory(bytes, sha, file).value();
        w.zip.entries[w.files[k]].name = "big_pkg/../../escape" + std::to_string(k) + ".py";
        EXPECT_FALSE(decode_wheel_directory(encode_wheel_directory(w, metadata_of(*opened), sha), sha, file)) << k;
    }
}
