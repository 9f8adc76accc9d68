// Core metadata (METADATA / PKG-INFO).
#include <gtest/gtest.h>

#include "envfix/standards/core_metadata.hpp"
#include "support.hpp"

using envfix::ExitCode;
using namespace envfix::standards;

namespace {
// The METADATA of torch 2.11.0 as pip installed it on the H200 machine (tests/standards/data).
std::string torch_metadata() {
    return envfix::test::read_text(envfix::test::source_dir() / "tests/standards/data/h200/torch-2.11.0.dist-info/METADATA");
}
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
    return s;
}
}  // namespace

TEST(CoreMetadata, ReadsTorchsMetadata) {
    auto md = parse_core_metadata(torch_metadata(), "torch-2.11.0.dist-info/METADATA");
    ASSERT_TRUE(md) << md.error().message.key;
    EXPECT_EQ(md->metadata_version, "2.4");
    EXPECT_EQ(md->name, "torch");
    EXPECT_EQ(md->version, "2.11.0");
    EXPECT_EQ(md->summary, "Tensors and Dynamic neural networks in Python with strong GPU acceleration");
    EXPECT_EQ(md->requires_python, ">=3.10");
    EXPECT_EQ(md->description_content_type, "text/markdown");
    ASSERT_EQ(md->requires_dist.size(), 17u);
    EXPECT_EQ(md->requires_dist[2], "setuptools<82");
    EXPECT_EQ(md->provides_extra, (std::vector<std::string>{"optree", "opt-einsum", "pyyaml"}));
    EXPECT_EQ(md->classifiers.size(), 17u);
    EXPECT_EQ(md->get_all("dynamic"), (std::vector<std::string>{"license-file", "requires-dist"}));
    EXPECT_EQ(md->get_all("License-File"), (std::vector<std::string>{"LICENSE", "NOTICE"}));
    EXPECT_EQ(md->get_all("Project-URL").size(), 5u);
    EXPECT_EQ(*md->get("license"), "BSD-3-Clause");
    EXPECT_EQ(md->find("Requires-Dist")->line, 34u);
    EXPECT_EQ(md->description.substr(0, 14), "![PyTorch Logo");
    EXPECT_EQ(md->description, md->body);
    EXPECT_EQ(md->body.back(), '\n');
    EXPECT_TRUE(md->invalid_utf8_lines.empty());

    auto reqs = parse_requires_dist(*md);
    ASSERT_TRUE(reqs);
    ASSERT_EQ(reqs->size(), 17u);
    EXPECT_EQ((*reqs)[7].name, "cuda-toolkit");
    EXPECT_EQ((*reqs)[7].extras.size(), 11u);
    EXPECT_EQ((*reqs)[8].specifier.to_string(), "<14,>=13.0.3");
    EXPECT_EQ((*reqs)[16].marker->extras(), (std::vector<std::string>{"pyyaml"}));
}

TEST(CoreMetadata, ToleratesCrlfCrBomAndCase) {
    std::string text = torch_metadata();
    for (std::string variant : {replace_all(text, "\n", "\r\n"), replace_all(text, "\n", "\r"), "\xef\xbb\xbf" + text,
                                replace_all(replace_all(text, "Requires-Dist:", "requires-dist:"), "Name:", "NAME:")}) {
        auto md = parse_core_metadata(variant);
        ASSERT_TRUE(md) << md.error().message.key << " line " << md.error().message.arg("line");
        EXPECT_EQ(md->name, "torch");
        EXPECT_EQ(md->requires_dist.size(), 17u);
        EXPECT_EQ(md->description.find('\r'), std::string::npos);
        EXPECT_NE(md->description.find("\n## Installation\n"), std::string::npos);
    }
}

TEST(CoreMetadata, FieldsAndTheDescriptionHeader) {
    const char* text =
        "Metadata-Version: 1.1\n"
        "Name:   old-style  \n"
        "Version: 1.0\n"
        "Summary: a summary\n"
        "  that goes on\n"
        "\tand on\n"
        "License: BSD-3-Clause\n"
        "        \n"
        "        Copyright (c) 2016-     Facebook, Inc            (Adam Paszke)\n"
        "Description: First line\n"
        "        second line\n"
        "               indented\n"
        "        \n"
        "       |pipe form\n"
        "Keywords: a,b\n"
        "Platform: UNKNOWN\n"
        "Requires-Dist: a\n"
        "Requires-Dist: b>=1; extra == 'x'\n"
        "Empty:\n";
    auto md = parse_core_metadata(text, "PKG-INFO");
    ASSERT_TRUE(md);
    EXPECT_EQ(md->name, "old-style");
    EXPECT_EQ(md->summary, "a summary that goes on and on");
    EXPECT_EQ(*md->get("License"), "BSD-3-Clause Copyright (c) 2016-     Facebook, Inc            (Adam Paszke)");
    EXPECT_EQ(md->description, "First line\nsecond line\n       indented\n\npipe form");
    EXPECT_EQ(md->body, "");
    EXPECT_EQ(*md->get("empty"), "");
    EXPECT_EQ(md->get_all("requires-dist"), (std::vector<std::string>{"a", "b>=1; extra == 'x'"}));
    EXPECT_EQ(md->fields[5].name, "Description");
    EXPECT_EQ(md->fields[5].line, 10u);
    EXPECT_FALSE(md->get("Author"));
    EXPECT_EQ(md->find("nope"), nullptr);
}

TEST(CoreMetadata, BodyWinsOverTheDescriptionHeader) {
    auto md = parse_core_metadata("Name: a\nVersion: 1\nDescription: header\n\nbody line 1\n\nbody line 3");
    ASSERT_TRUE(md);
    EXPECT_EQ(md->description, "body line 1\n\nbody line 3");
    EXPECT_EQ(*md->get("Description"), "header");
    auto no_body = parse_core_metadata("Name: a\nVersion: 1\n\n");
    ASSERT_TRUE(no_body);
    EXPECT_EQ(no_body->body, "");
}

TEST(CoreMetadata, InvalidUtf8IsReplacedAndReported) {
    auto md = parse_core_metadata("Name: a\nVersion: 1\nAuthor: Ren\xe9\n\nbody \xff\xfe ok\n");
    ASSERT_TRUE(md);
    EXPECT_EQ(*md->get("Author"), "Ren\xef\xbf\xbd");
    EXPECT_EQ(md->body, "body \xef\xbf\xbd\xef\xbf\xbd ok\n");
    EXPECT_EQ(md->invalid_utf8_lines, (std::vector<size_t>{3, 5}));
    auto good = parse_core_metadata("Name: caf\xc3\xa9\nVersion: 1\n");
    EXPECT_EQ(good->name, "caf\xc3\xa9");
    EXPECT_TRUE(good->invalid_utf8_lines.empty());
}

TEST(CoreMetadata, ErrorsNameTheFileAndLine) {
    struct Case {
        const char* text;
        const char* key;
        const char* line;
    };
    const Case cases[] = {
        {"", "metadata.empty", "1"},
        {" \n\n", "metadata.empty", "1"},
        {"Name: a\nVersion: 1\nthis is not a field\n", "metadata.bad_line", "3"},
        {"Name: a\n: no name\nVersion: 1\n", "metadata.bad_line", "2"},
        {"Name: a\nBad Field: x\nVersion: 1\n", "metadata.bad_line", "2"},
        {"  indented first\nName: a\n", "metadata.continuation_first", "1"},
        {"Name: a\nVersion: 1\nName: b\n", "metadata.duplicate_field", "3"},
        {"Name: a\nVersion: 1\nversion: 2\n", "metadata.duplicate_field", "3"},
        {"Name: a\n", "metadata.missing_field", "1"},
        {"Version: 1\n\nName: in the body\n", "metadata.missing_field", "1"},
        // found by tests/fuzz/fuzz_metadata: no "From " mbox line skipping (Python's email does)
        {"\xef\xbb\xbf"
         "From i-Ers'Ext: \n\n\n",
         "metadata.bad_line", "1"},
    };
    for (const auto& c : cases) {
        auto md = parse_core_metadata(c.text, "x.dist-info/METADATA");
        ASSERT_FALSE(md) << c.text;
        EXPECT_EQ(md.error().code, ExitCode::BadInput);
        EXPECT_EQ(md.error().message.key, c.key) << c.text;
        EXPECT_EQ(md.error().message.arg("line"), c.line) << c.text;
        EXPECT_EQ(md.error().message.arg("source"), "x.dist-info/METADATA");
    }
    auto dup = parse_core_metadata("Name: a\nVersion: 1\nName: b\n");
    EXPECT_EQ(dup.error().message.arg("first"), "1");
    EXPECT_EQ(dup.error().message.arg("field"), "Name");
}

TEST(CoreMetadata, BadRequiresDistNamesTheLine) {
    auto md = parse_core_metadata("Name: a\nVersion: 1\nRequires-Dist: ok\nRequires-Dist: bad >>= 1\n", "a/METADATA");
    ASSERT_TRUE(md);
    auto reqs = parse_requires_dist(*md);
    ASSERT_FALSE(reqs);
    EXPECT_EQ(reqs.error().message.key, "metadata.bad_requirement");
    EXPECT_EQ(reqs.error().message.arg("line"), "4");
    EXPECT_EQ(reqs.error().message.arg("text"), "bad >>= 1");
    EXPECT_EQ(reqs.error().message.arg("column"), "5");
    EXPECT_EQ(reqs.error().message.arg("source"), "a/METADATA");
}
