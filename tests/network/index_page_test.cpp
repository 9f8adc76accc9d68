// PEP 503 HTML and PEP 691 JSON project pages: what is read, and what is refused. Pure.
#include <gtest/gtest.h>

#include "envfix/common/message.hpp"
#include "envfix/network/index_page.hpp"

using namespace envfix;
using namespace envfix::network;

namespace {
const char* kPage = "https://user:pw@download.example/whl/cu128/torch/";

const char* kTorchHtml = R"(<!DOCTYPE html>
<html>
  <head><meta name="pypi:repository-version" content="1.1"><title>Links for torch</title></head>
  <body>
    <h1>Links for torch</h1>
    <!-- <a href="../commented-out-1.0-py3-none-any.whl">no</a> -->
    <a href="../torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl#sha256=ABCDEF0123" data-requires-python="&gt;=3.9.0" data-dist-info-metadata="sha256=1111" data-core-metadata="sha256=2222">torch-2.7.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl</a><br/>
    <a href='https://files.example/t/torch-2.6.0-cp311-cp311-win_amd64.whl#md5=99' data-yanked="broken &amp; withdrawn">x</a>
    <A HREF=torch-2.5.0.tar.gz data-yanked data-dist-info-metadata=true>sdist</A>
    <a href="../torch-2.4.0-cp311-none-macosx_11_0_arm64.whl" data-core-metadata="false" data-upload-time="2024-07-24T12:00:00Z">mac</a>
  </body>
</html>)";
}  // namespace

TEST(HtmlPage, ReadsEveryField) {
    auto page = parse_html_project_page(kTorchHtml, kPage);
    ASSERT_TRUE(page) << render(page.error().message, Lang::En);
    EXPECT_EQ(page->url, "https://***@download.example/whl/cu128/torch/");
    EXPECT_EQ(page->api_version, "1.1");
    ASSERT_EQ(page->files.size(), 4u);
    const auto& f = page->files[0];
    EXPECT_EQ(f.filename, "torch-2.7.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(f.url, "https://user:pw@download.example/whl/cu128/torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(f.hashes.at("sha256"), "abcdef0123");
    EXPECT_EQ(f.requires_python, ">=3.9.0");
    EXPECT_FALSE(f.yanked);
    EXPECT_TRUE(f.core_metadata);
    EXPECT_EQ(f.core_metadata_hashes.at("sha256"), "2222");  // PEP 714: data-core-metadata wins
    const auto& y = page->files[1];
    EXPECT_EQ(y.url, "https://files.example/t/torch-2.6.0-cp311-cp311-win_amd64.whl");
    EXPECT_EQ(y.hashes.at("md5"), "99");
    EXPECT_TRUE(y.yanked);
    EXPECT_EQ(y.yanked_reason, "broken & withdrawn");
    const auto& s = page->files[2];
    EXPECT_EQ(s.url, "https://user:pw@download.example/whl/cu128/torch/torch-2.5.0.tar.gz");
    EXPECT_TRUE(s.yanked);
    EXPECT_EQ(s.yanked_reason, "");
    EXPECT_TRUE(s.core_metadata);
    EXPECT_TRUE(s.core_metadata_hashes.empty());
    EXPECT_FALSE(page->files[3].core_metadata);
    EXPECT_EQ(page->files[3].upload_time, "2024-07-24T12:00:00Z");
}

TEST(HtmlPage, HonoursBaseHref) {
    auto page = parse_html_project_page(
        R"(<html><head><base href="https://cdn.example/pkgs/"></head><body><a href="x-1.0-py3-none-any.whl">x</a></body></html>)",
        "https://index.example/simple/x/");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->files.at(0).url, "https://cdn.example/pkgs/x-1.0-py3-none-any.whl");
}

TEST(HtmlPage, EmptyProjectPageIsAnIndex) {
    auto page = parse_html_project_page("<html><body><h1>Links for nothing</h1></body></html>", "https://i/simple/nothing/");
    ASSERT_TRUE(page);
    EXPECT_TRUE(page->files.empty());
}

TEST(HtmlPage, RefusesPagesThatAreNotIndexes) {
    struct Case {
        const char* body;
        const char* key;
    } cases[] = {
        {"<html><body><h1>Welcome to nginx!</h1><a href=\"http://nginx.org/\">nginx.org</a></body></html>", "index.html_no_dist_links"},
        {"<html><body><form action=/login><input name=user></form></body></html>", "index.html_not_index"},
        {"plain text, not html", "index.html_not_index"},
        {"", "index.html_not_index"},
        {"<html><head><meta name=\"pypi:repository-version\" content=\"2.0\"></head></html>", "index.api_version"},
    };
    for (auto c : cases) {
        auto page = parse_html_project_page(c.body, "https://u:secret@i.example/simple/torch/");
        ASSERT_FALSE(page) << c.body;
        EXPECT_EQ(page.error().code, ExitCode::BadIndexPage);
        EXPECT_EQ(page.error().message.key, c.key) << c.body;
        auto text = render(page.error().message, Lang::En);
        EXPECT_NE(text.find("https://***@i.example/simple/torch/"), std::string::npos) << text;
        EXPECT_EQ(text.find("secret"), std::string::npos) << text;
        EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    }
}

TEST(HtmlPage, UnescapesEntities) {
    struct Case {
        const char* in;
        const char* out;
    } cases[] = {
        {"&gt;=3.9,&lt;4", ">=3.9,<4"},
        {"&#62;=3.10", ">=3.10"},
        {"&#x3E;=3.10", ">=3.10"},
        {"a&amp;b", "a&b"},
        {"&quot;x&quot; &apos;y&#39;", "\"x\" 'y'"},
        {"&unknown; & &", "&unknown; & &"},
        {"&#xZZ;", "&#xZZ;"},
        {"&#128512;", "\xF0\x9F\x98\x80"},
        {"&#0;", "\xEF\xBF\xBD"},
    };
    for (auto c : cases) EXPECT_EQ(html_unescape(c.in), c.out) << c.in;
}

TEST(JsonPage, ReadsPep691AndPep700) {
    const char* body = R"({"meta": {"api-version": "1.1", "_last-serial": 1}, "name": "torch", "versions": ["2.7.0+cu128"],
      "files": [{"filename": "torch-2.7.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl",
                 "url": "../torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl",
                 "hashes": {"sha256": "ABCD"}, "requires-python": ">=3.9.0",
                 "core-metadata": {"sha256": "EF01"}, "size": 12345, "upload-time": "2025-04-23T12:00:00.000000Z",
                 "yanked": false},
                {"filename": "torch-2.6.0-cp311-cp311-win_amd64.whl", "url": "https://cdn.example/t.whl",
                 "hashes": {}, "dist-info-metadata": true, "yanked": "bad build", "gpg-sig": false}]})";
    auto page = parse_project_page(body, "application/vnd.pypi.simple.v1+json", "https://idx.example/cu128/torch/");
    ASSERT_TRUE(page) << render(page.error().message, Lang::En);
    EXPECT_EQ(page->format, PageFormat::Json);
    EXPECT_EQ(page->name, "torch");
    EXPECT_EQ(page->versions, std::vector<std::string>{"2.7.0+cu128"});
    ASSERT_EQ(page->files.size(), 2u);
    const auto& f = page->files[0];
    EXPECT_EQ(f.url, "https://idx.example/cu128/torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(f.hashes.at("sha256"), "abcd");
    EXPECT_EQ(f.core_metadata_hashes.at("sha256"), "ef01");
    EXPECT_EQ(f.size, 12345u);
    EXPECT_EQ(f.upload_time, "2025-04-23T12:00:00.000000Z");
    EXPECT_FALSE(f.yanked);
    EXPECT_TRUE(page->files[1].yanked);
    EXPECT_EQ(page->files[1].yanked_reason, "bad build");
    EXPECT_TRUE(page->files[1].core_metadata);
}

TEST(JsonPage, RefusesWrongSchema) {
    struct Case {
        const char* body;
        const char* field;
    } cases[] = {
        {"[]", "(document)"},
        {R"({"name": "t", "files": []})", "meta"},
        {R"({"meta": {}, "name": "t", "files": []})", "meta.api-version"},
        {R"({"meta": {"api-version": "1.0"}, "files": []})", "name"},
        {R"({"meta": {"api-version": "1.0"}, "name": "t"})", "files"},
        {R"({"meta": {"api-version": "1.0"}, "name": "t", "files": [{"filename": 1, "url": "u", "hashes": {}}]})", "files[0].filename"},
        {R"({"meta": {"api-version": "1.0"}, "name": "t", "files": [{"filename": "a.whl", "url": "u"}]})", "files[0].hashes"},
        {R"({"meta": {"api-version": "1.0"}, "name": "t", "files": [{"filename": "a.whl", "url": "u", "hashes": {"sha256": 5}}]})",
         "files[0].hashes"},
        {R"({"meta": {"api-version": "1.0"}, "name": "t", "files": [{"filename": "a.whl", "url": "u", "hashes": {}, "size": -1}]})",
         "files[0].size"},
        {R"({"meta": {"api-version": "1.0"}, "name": "t", "files": [{"filename": "a.whl", "url": "u", "hashes": {}, "yanked": 3}]})",
         "files[0].yanked"},
        {R"({"meta": {"api-version": "1.0"}, "name": "t", "versions": "1.0", "files": []})", "versions"},
    };
    for (auto c : cases) {
        auto page = parse_json_project_page(c.body, "https://i.example/simple/t/");
        ASSERT_FALSE(page) << c.body;
        EXPECT_EQ(page.error().code, ExitCode::BadIndexPage);
        EXPECT_EQ(page.error().message.arg("field"), c.field) << c.body;
    }
    auto bad = parse_json_project_page("{\"meta\": ", "https://i.example/simple/t/");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message.key, "index.json_invalid");
    auto v2 = parse_json_project_page(R"({"meta": {"api-version": "2.0"}, "name": "t", "files": []})", "https://i/");
    ASSERT_FALSE(v2);
    EXPECT_EQ(v2.error().message.key, "index.api_version");
}

TEST(ProjectPage, ChoosesParserByContentType) {
    auto html = "<html><body><a href=\"a-1.0-py3-none-any.whl\">a</a></body></html>";
    struct Case {
        const char* ct;
        bool ok;
    } cases[] = {
        {"text/html; charset=utf-8", true},
        {"application/vnd.pypi.simple.v1+html", true},
        {"TEXT/HTML", true},
        {"", true},
        {"text/plain", false},
        {"application/json", false},
        {"application/octet-stream", false},
    };
    for (auto c : cases) {
        auto page = parse_project_page(html, c.ct, "https://i/simple/a/");
        EXPECT_EQ(static_cast<bool>(page), c.ok) << c.ct;
        if (!page) {
            EXPECT_EQ(page.error().message.key, "index.content_type");
        }
    }
}

TEST(ProjectPage, RecognisesDistributionFiles) {
    for (const char* f : {"a-1.0-py3-none-any.whl", "a-1.0.tar.gz", "a-1.0.zip", "A-1.0.TAR.BZ2", "a-1.0-py2.7.egg"})
        EXPECT_TRUE(is_distribution_filename(f)) << f;
    for (const char* f : {"index.html", "", ".whl", "a-1.0.whl.metadata", "a-1.0.tar.gz.asc"})
        EXPECT_FALSE(is_distribution_filename(f)) << f;
}
