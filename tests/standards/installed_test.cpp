#include <gtest/gtest.h>

#include "envfix/standards/installed.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::standards;

TEST(Record, ParsesPythonCsvDialect) {
    auto rows = parse_record(
        "torch/__init__.py,sha256=abc_-,123\n"
        "\"odd,name.py\",sha256=x,1\n"
        "\"quo\"\"te.py\",,\n"
        "torch-2.7.0.dist-info/RECORD,,\r\n"
        "\n",
        "RECORD");
    ASSERT_TRUE(rows) << render(rows.error().message);
    ASSERT_EQ(rows->size(), 4u);
    EXPECT_EQ((*rows)[0].hash_algorithm, "sha256");
    EXPECT_EQ((*rows)[0].hash_digest, "abc_-");
    EXPECT_EQ((*rows)[0].size, 123u);
    EXPECT_EQ((*rows)[1].path, "odd,name.py");
    EXPECT_EQ((*rows)[2].path, "quo\"te.py");
    EXPECT_FALSE((*rows)[2].size);
    EXPECT_EQ((*rows)[3].hash_algorithm, "");
    // Written back the way pip writes it, and read again to the same rows.
    auto again = parse_record(format_record(*rows), "RECORD");
    ASSERT_TRUE(again);
    ASSERT_EQ(again->size(), rows->size());
    for (size_t i = 0; i < rows->size(); ++i) EXPECT_EQ((*again)[i].path, (*rows)[i].path);
}

TEST(Record, BadRowsNameTheLine) {
    struct Case {
        const char* text;
        const char* reason;
    };
    for (auto c : {Case{"a.py,sha256=x\n", "expected 3 fields"}, Case{"ok,,\n\"open,,\n", "unterminated quote"},
                   Case{"a.py,md5,1\n", "hash without"}, Case{"a.py,,-1\n", "bad size"}, Case{",,\n", "empty path"}}) {
        auto r = parse_record(c.text, "x/RECORD");
        ASSERT_FALSE(r) << c.text;
        EXPECT_EQ(r.error().code, ExitCode::BadInput);
        EXPECT_NE(std::string(r.error().message.arg("reason")).find(c.reason), std::string::npos) << c.text;
        EXPECT_EQ(r.error().message.arg("source"), "x/RECORD");
    }
}

TEST(Record, PlainAndQuotedLinesReadAlikeAndErrorsNameTheirLine) {
    // Plain lines are read by a shortcut, quoted ones character by character: the same rows, and
    // the line numbers run on across both (a quoted field may hold a newline).
    auto rows = parse_record("a.py,sha256=x,1\r\n\"b\nc.py\",sha256=y,2\nd.py,,\n\r\ne\r.py,,3\n\"f.py\",,", "RECORD");
    ASSERT_TRUE(rows) << render(rows.error().message);
    ASSERT_EQ(rows->size(), 5u);
    EXPECT_EQ((*rows)[0].path, "a.py");
    EXPECT_EQ((*rows)[0].hash_digest, "x");
    EXPECT_EQ((*rows)[0].size, 1u);
    EXPECT_EQ((*rows)[1].path, "b\nc.py");
    EXPECT_EQ((*rows)[2].path, "d.py");
    EXPECT_FALSE((*rows)[2].size);
    EXPECT_EQ((*rows)[3].path, "e.py");  // '\r' outside quotes is dropped, as before
    EXPECT_EQ((*rows)[3].size, 3u);
    EXPECT_EQ((*rows)[4].path, "f.py");
    struct Case {
        const char* text;
        const char* line;
    };
    for (auto c :
         {Case{"a,,\nb,,\nc,sha256=x\n", "3"}, Case{"\"a\nb\",,\nc,,\nd\n", "4"}, Case{"a,,\n\n,,\n", "3"}, Case{"a,,\r\nb,,x\n", "2"}}) {
        auto r = parse_record(c.text, "RECORD");
        ASSERT_FALSE(r) << c.text;
        EXPECT_EQ(r.error().message.arg("line"), c.line) << c.text;
    }
}

TEST(Installed, ReadsARealVenv) {
    test::TempDir d;
    auto python = test::make_venv(d / "v");
    auto sp_run = test::run_program({python.string(), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"});
    std::string out = sp_run.out;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    std::filesystem::path sp = out;
    auto set = read_installed({sp, sp});  // purelib twice (== platlib) is read once
    ASSERT_TRUE(set);
    const auto* pip = set->find("PIP");
    ASSERT_NE(pip, nullptr);
    EXPECT_EQ(pip->installer, "pip");
    EXPECT_TRUE(pip->has_record);
    EXPECT_TRUE(pip->parsed_version);
    EXPECT_FALSE(pip->problem);
    EXPECT_EQ(set->find_all("pip").size(), 1u);
    auto rec = read_record(*pip);
    ASSERT_TRUE(rec);
    EXPECT_GT(rec->size(), 100u);

    // A broken dist-info is kept, with its problem; a second copy of a name is visible.
    std::filesystem::create_directories(sp / "broken-1.0.dist-info");
    std::filesystem::create_directories(sp / "pip-0.1.dist-info");
    test::write_text(sp / "pip-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: pip\nVersion: 0.1\n");
    set = read_installed({sp});
    ASSERT_TRUE(set);
    const auto* broken = set->find("broken");
    ASSERT_NE(broken, nullptr);
    ASSERT_TRUE(broken->problem);
    EXPECT_EQ(broken->problem->message.key, "installed.no_metadata");
    EXPECT_EQ(broken->version, "1.0");
    EXPECT_EQ(set->find_all("pip").size(), 2u);
}

TEST(Installed, MissingFoldersAreSkipped) {
    auto set = read_installed({"/nonexistent/site-packages"});
    ASSERT_TRUE(set);
    EXPECT_TRUE(set->dists.empty());
}
