// URLs: redaction, RFC 3986 resolution, the PyTorch layout, project URLs. Table-driven, pure.
#include <gtest/gtest.h>

#include "envfix/network/index_client.hpp"
#include "envfix/network/url.hpp"

using namespace envfix::network;

TEST(Url, RedactsCredentials) {
    struct Case {
        const char* in;
        const char* out;
    } cases[] = {
        {"https://user:secret@example.org/simple/", "https://***@example.org/simple/"},
        {"https://token@example.org:8443/x?y=1#z", "https://***@example.org:8443/x?y=1#z"},
        {"https://example.org/simple/", "https://example.org/simple/"},
        {"http://a:b@[::1]:80/p", "http://***@[::1]:80/p"},
        {"/relative/path", "/relative/path"},
        {"https://u:p%40ss@h/", "https://***@h/"},
    };
    for (auto c : cases) EXPECT_EQ(redact_url(c.in), c.out) << c.in;
}

TEST(Url, RedactsUrlsInsideText) {
    EXPECT_EQ(redact_text("Failed to connect to https://u:secret@host:1/x after 3 tries"),
              "Failed to connect to https://***@host:1/x after 3 tries");
    EXPECT_EQ(redact_text("no url here"), "no url here");
    EXPECT_EQ(redact_text("proxy http://me:pw@proxy:3128 and https://ok/"), "proxy http://***@proxy:3128 and https://ok/");
}

TEST(Url, SplitsCredentials) {
    auto c = url_credentials("https://us%65r:p%40ss:word@host/x");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->user, "user");
    EXPECT_EQ(c->password, "p@ss:word");
    EXPECT_FALSE(url_credentials("https://host/x"));
    EXPECT_EQ(strip_credentials("https://u:p@host/x#f"), "https://host/x#f");
}

TEST(Url, ResolvesReferencesPerRfc3986) {
    // RFC 3986 section 5.4.1 examples.
    const char* base = "http://a/b/c/d;p?q";
    struct Case {
        const char* ref;
        const char* out;
    } cases[] = {
        {"g:h", "g:h"},
        {"g", "http://a/b/c/g"},
        {"./g", "http://a/b/c/g"},
        {"g/", "http://a/b/c/g/"},
        {"/g", "http://a/g"},
        {"//g", "http://g"},
        {"?y", "http://a/b/c/d;p?y"},
        {"g?y", "http://a/b/c/g?y"},
        {"#s", "http://a/b/c/d;p?q#s"},
        {"g#s", "http://a/b/c/g#s"},
        {";x", "http://a/b/c/;x"},
        {"", "http://a/b/c/d;p?q"},
        {".", "http://a/b/c/"},
        {"./", "http://a/b/c/"},
        {"..", "http://a/b/"},
        {"../", "http://a/b/"},
        {"../g", "http://a/b/g"},
        {"../..", "http://a/"},
        {"../../g", "http://a/g"},
        {"../../../g", "http://a/g"},
        {"/./g", "http://a/g"},
        {"/../g", "http://a/g"},
        {"g.", "http://a/b/c/g."},
        {"..g", "http://a/b/c/..g"},
        {"./../g", "http://a/b/g"},
        {"g/./h", "http://a/b/c/g/h"},
        {"g/../h", "http://a/b/c/h"},
    };
    for (auto c : cases) EXPECT_EQ(resolve_url(base, c.ref), c.out) << c.ref;
}

TEST(Url, ResolvesIndexLinks) {
    EXPECT_EQ(resolve_url("https://download.pytorch.org/whl/cu128/torch/",
                          "../torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl#sha256=ab"),
              "https://download.pytorch.org/whl/cu128/torch-2.7.0%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl#sha256=ab");
    EXPECT_EQ(resolve_url("https://u:p@idx/simple/torch/", "../../files/t.whl"), "https://u:p@idx/files/t.whl");
    EXPECT_EQ(resolve_url("https://pypi.org/simple/torch/", "https://files.pythonhosted.org/packages/t.whl"),
              "https://files.pythonhosted.org/packages/t.whl");
    EXPECT_EQ(url_filename("https://h/whl/torch-2.7.0%2Bcu128-cp311-cp311-win_amd64.whl"), "torch-2.7.0+cu128-cp311-cp311-win_amd64.whl");
}

TEST(Url, PercentCoding) {
    EXPECT_EQ(percent_decode("a%2Bb%zz%4"), "a+b%zz%4");
    EXPECT_EQ(percent_encode_segment("torch-2.7.0+cu128.whl"), "torch-2.7.0%2Bcu128.whl");
}

TEST(IndexLayout, NormalisesProjectNamesInUrls) {
    struct Case {
        const char* name;
        const char* url;
    } cases[] = {
        {"torch", "https://pypi.org/simple/torch/"},
        {"Typing_Extensions", "https://pypi.org/simple/typing-extensions/"},
        {"zope.interface", "https://pypi.org/simple/zope-interface/"},
        {"nvidia-cublas-cu12", "https://pypi.org/simple/nvidia-cublas-cu12/"},
        {"A__b--C..d", "https://pypi.org/simple/a-b-c-d/"},
    };
    for (auto c : cases) {
        EXPECT_EQ(project_url("https://pypi.org/simple", c.name), c.url);
        EXPECT_EQ(project_url("https://pypi.org/simple/", c.name), c.url);
    }
}

TEST(IndexLayout, PytorchIndexUrls) {
    struct Case {
        const char* root;
        IndexChannel ch;
        const char* variant;
        const char* url;
    } cases[] = {
        {"https://download.pytorch.org/whl", IndexChannel::Stable, "cu128", "https://download.pytorch.org/whl/cu128/"},
        {"https://download.pytorch.org/whl/", IndexChannel::Nightly, "cu130", "https://download.pytorch.org/whl/nightly/cu130/"},
        {"https://download.pytorch.org/whl", IndexChannel::Test, "cu126", "https://download.pytorch.org/whl/test/cu126/"},
        {"https://mirror.sjtu.edu.cn/pytorch-wheels", IndexChannel::Stable, "cu128", "https://mirror.sjtu.edu.cn/pytorch-wheels/cu128/"},
        {"https://mirrors.nju.edu.cn/pytorch/whl", IndexChannel::Stable, "cpu", "https://mirrors.nju.edu.cn/pytorch/whl/cpu/"},
    };
    for (auto c : cases) EXPECT_EQ(pytorch_index_url(c.root, c.ch, c.variant), c.url);
    EXPECT_EQ(project_url(pytorch_index_url("https://download.pytorch.org/whl", IndexChannel::Stable, "cu128"), "torch"),
              "https://download.pytorch.org/whl/cu128/torch/");
    EXPECT_EQ(expand_pytorch_root("sjtug"), "https://mirror.sjtu.edu.cn/pytorch-wheels");
    EXPECT_EQ(expand_pytorch_root("NJU"), "https://mirrors.nju.edu.cn/pytorch/whl");
    EXPECT_EQ(expand_pytorch_root("https://example.org/whl/"), "https://example.org/whl");
    EXPECT_EQ(parse_channel("nightly"), IndexChannel::Nightly);
    EXPECT_FALSE(parse_channel("weekly"));
}
