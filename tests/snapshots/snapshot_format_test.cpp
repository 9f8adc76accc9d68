// The snapshot file format (snapshot.hpp): round trip, and every kind of damage refused with a
// message naming the file.
#include <gtest/gtest.h>

#include <cctype>

#include "envfix/installer/snapshot.hpp"

using namespace envfix;
using namespace envfix::installer;

namespace {

Snapshot sample() {
    Snapshot s;
    s.id = "7";
    s.created = "2026-11-29T18:40:00Z";
    s.name = "before upgrade";
    s.reason = "install torch 2.11.0+cu128";
    s.root = "/venv";
    s.dists = {{"torch", "2.11.0+cu128", "lib/python3.12/site-packages/torch-2.11.0+cu128.dist-info"}};
    s.files = {{"bin/torchrun", std::string(64, 'a'), 120, 0755},
               {"lib/python3.12/site-packages/odd name%.py", std::string(64, 'b'), 0, 0644},
               {"lib/python3.12/site-packages/t\xc3\xa9st/\x01x.py", std::string(64, 'c'), 5, 0600}};
    return s;
}

}  // namespace

TEST(SnapshotFormat, RoundTrips) {
    auto s = sample();
    auto text = snapshot_to_text(s);
    auto back = parse_snapshot(text, "7.snap");
    ASSERT_TRUE(back) << back.error().message.key;
    EXPECT_EQ(back->id, s.id);
    EXPECT_EQ(back->name, s.name);
    EXPECT_EQ(back->reason, s.reason);
    EXPECT_EQ(back->dists, s.dists);
    EXPECT_EQ(back->files, s.files);
    EXPECT_EQ(back->bytes(), 125u);
    // One line per file, whatever bytes the names hold.
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
    // The header line alone says what `history` lists: the file count and their bytes too.
    auto head = parse_snapshot_head(std::string_view(text).substr(0, text.find('\n')), "7.snap");
    ASSERT_TRUE(head) << head.error().message.key;
    EXPECT_EQ(head->id, s.id);
    EXPECT_EQ(head->reason, s.reason);
    EXPECT_EQ(head->dists, s.dists);
    EXPECT_EQ(head->files, 3u);
    EXPECT_EQ(head->bytes, 125u);
    // A header written before it held the bytes: none, and the snapshot still reads whole.
    auto older = text;
    older.erase(older.find(",\"bytes\":125"), std::string(",\"bytes\":125").size());
    auto older_head = parse_snapshot_head(std::string_view(older).substr(0, older.find('\n')), "7.snap");
    ASSERT_TRUE(older_head);
    EXPECT_FALSE(older_head->bytes);
    ASSERT_TRUE(parse_snapshot(older, "7.snap"));
}

TEST(SnapshotFormat, DamageIsRefused) {
    auto good = snapshot_to_text(sample());
    auto with_path = [](const std::string& path) {
        auto s = sample();
        s.files[0].path = path;
        return snapshot_to_text(s);
    };
    std::string other_version = good;
    other_version.replace(other_version.find("\"version\":1"), 11, "\"version\":2");
    const std::pair<const char*, std::string> cases[] = {
        {"empty", ""},
        {"not JSON", "hello\n"},
        {"another version", other_version},
        {"truncated", good.substr(0, good.size() - 3)},
        {"a line missing", good.substr(0, good.rfind('\n', good.size() - 2) + 1)},
        {"a line too many", good + std::string(64, 'd') + " 1 644 x.py\n"},
        {"escaping path", with_path("lib/../../etc/passwd")},
        {"absolute path", with_path("/etc/passwd")},
        {"backslash", with_path("lib\\x.py")},
        {"short hash", [&] { auto t = good; t.replace(t.find('\n') + 1, 64, "abc"); return t; }()},
        {"bad size", [&] { auto t = good; t.replace(t.find('\n') + 66, 3, "x12"); return t; }()},
        // Read back from environments made elsewhere: a digest that names a path, not an object.
        {"hash not hex", [&] { auto t = good; t.replace(t.find('\n') + 1, 64, "../../../../../../../../../../../../../../../../../../etc/passwd"); return t; }()},
        {"upper-case hash", [&] { auto t = good; for (size_t i = t.find('\n') + 1, e = i + 64; i < e; ++i) t[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(t[i]))); return t; }()},
        {"count not a count", [&] { auto t = good; t.replace(t.find("\"files\":") + 8, 1, "1e30"); return t; }()},
    };
    for (const auto& [what, text] : cases) {
        auto r = parse_snapshot(text, "/venv/.envfix/snapshots/7.snap");
        ASSERT_FALSE(r) << what;
        EXPECT_EQ(r.error().code, ExitCode::BadInput) << what;
        EXPECT_EQ(r.error().message.key, "snapshot.invalid") << what;
        EXPECT_EQ(r.error().message.arg("path"), "/venv/.envfix/snapshots/7.snap") << what;
    }
}
