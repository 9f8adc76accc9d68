// HTTPS through nginx with a CA made by openssl: the right CA is accepted (from --cert or
// SSL_CERT_FILE), any other is refused with the Tls exit code; HTTP/2 where curl has it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "envfix/common/message.hpp"
#include "envfix/network/downloader.hpp"
#include "envfix/network/index_client.hpp"
#include "envfix/network/index_config.hpp"
#include "index_fixtures.hpp"

using namespace envfix;
using namespace envfix::network;
using envfix::test::TempDir;

namespace {

const auto text = test::error_text;

struct Https {
    TempDir dir;
    nlohmann::json manifest;
    test::TestPki pki;
    std::unique_ptr<test::NginxServer> nginx;
    Https() {
        manifest = test::make_index(dir / "whl", {"--variants", "cu130", "--only", "torch", "--pythons", "cp312", "--platforms",
                                                  "manylinux_2_28_x86_64", "--torch", "2.11.0"});
        pki = test::make_pki(dir / "pki");
        nginx = std::make_unique<test::NginxServer>(dir / "whl", pki, dir / "nginx");
    }
};

}  // namespace

TEST(Tls, RightCaFromCertOptionWorksOverHttp2) {
    Https h;
    ASSERT_TRUE(h.nginx->ok());
    IndexCliOptions cli;
    cli.cert = h.pki.ca.string();
    auto cfg = load_index_config(cli);
    ASSERT_TRUE(cfg);
    auto opts = cfg->http_options();
    opts.cache_dir = h.dir / "cache";
    HttpClient http(opts);
    auto resp = http.get(HttpRequest{h.nginx->url("/cu130/torch/"), std::string(kIndexAccept), {}, true});
    ASSERT_TRUE(resp) << text(resp.error());
    if (http2_available()) {
        EXPECT_EQ(resp->http_version, 2);
    }
    IndexClient client(http);
    auto page = client.project_page(h.nginx->url("/cu130/"), "torch");
    ASSERT_TRUE(page) << text(page.error());
    ASSERT_EQ(page->files.size(), 1u);
    auto meta = client.core_metadata(page->files[0]);
    ASSERT_TRUE(meta) << text(meta.error());
    auto rec = h.manifest["files"][0];
    auto results = download_files(
        {DownloadItem{page->files[0].url, page->files[0].hashes.at("sha256"), std::nullopt, h.dir / "out" / page->files[0].filename, ""}},
        opts, null_reporter());
    ASSERT_TRUE(results[0].ok()) << text(*results[0].error);
    EXPECT_EQ(results[0].sha256, rec["sha256"]);
}

TEST(Tls, RightCaFromSslCertFile) {
    Https h;
    ASSERT_TRUE(h.nginx->ok());
    ::setenv("SSL_CERT_FILE", h.pki.ca.c_str(), 1);
    auto cfg = load_index_config({});
    ::unsetenv("SSL_CERT_FILE");
    ASSERT_TRUE(cfg);
    EXPECT_EQ(cfg->cert.origin, "SSL_CERT_FILE");
    auto opts = cfg->http_options();
    opts.cache_dir = h.dir / "cache";
    HttpClient http(opts);
    auto resp = http.get(HttpRequest{h.nginx->url("/cu130/torch/"), "", {}, true});
    ASSERT_TRUE(resp) << text(resp.error());
}

TEST(Tls, WrongCaIsRefused) {
    Https h;
    ASSERT_TRUE(h.nginx->ok());
    for (std::optional<std::filesystem::path> ca :
         {std::optional<std::filesystem::path>(h.pki.other_ca), std::optional<std::filesystem::path>()}) {
        auto opts = test::test_http_options(h.dir.path());
        opts.ca_bundle = ca;  // another CA, or the system store (which does not know the test CA)
        HttpClient http(opts);
        auto resp = http.get(HttpRequest{h.nginx->url("/cu130/torch/"), "", {}, true});
        ASSERT_FALSE(resp);
        EXPECT_EQ(resp.error().code, ExitCode::Tls);
        EXPECT_EQ(resp.error().message.key, "http.tls");
        auto t = text(resp.error());
        EXPECT_NE(t.find(h.nginx->url("/cu130/torch/")), std::string::npos) << t;
        EXPECT_EQ(t.find('\n'), std::string::npos) << t;
        // TLS failures are not retried: one attempt is enough to know.
        auto rec = h.manifest["files"][0];
        auto dl = download_files(
            {DownloadItem{h.nginx->url("/" + rec["path"].get<std::string>()), "", std::nullopt, h.dir / "out" / "x.whl", ""}}, opts,
            null_reporter());
        ASSERT_FALSE(dl[0].ok());
        EXPECT_EQ(dl[0].error->code, ExitCode::Tls);
        EXPECT_EQ(dl[0].attempts, 1);
    }
}
