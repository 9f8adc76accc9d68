// The HTTP client against the fault-injecting test server: cache and revalidation, offline,
// retries, truncation, resets, timeouts, redirects, credentials, proxies.
#include <gtest/gtest.h>

#include "envfix/common/message.hpp"
#include "envfix/network/http_cache.hpp"
#include "envfix/network/http_client.hpp"
#include "envfix/network/index_config.hpp"
#include "envfix/network/index_page.hpp"
#include "index_fixtures.hpp"

#include <algorithm>
#include <cstdlib>

using namespace envfix;
using namespace envfix::network;
using envfix::test::TempDir;

namespace {

struct Served : test::ServedIndex {
    Served()
        : ServedIndex({"--variants", "cu128", "--only", "torch,torchvision", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64",
                       "--torch", "2.7.0"}) {}
    HttpRequest page(const std::string& path) const { return HttpRequest{server->url(path), std::string(kIndexAccept), {}, true}; }
};

const auto text = test::error_text;

// Fetches `path` again and checks how it was answered: fresh (no request) or asked again (304).
void expect_cached(HttpClient& http, const Served& s, const std::string& path, bool fresh) {
    auto r = http.fetch(s.page(path));
    ASSERT_TRUE(r) << text(r.error());
    EXPECT_TRUE(r->from_cache);
    EXPECT_EQ(r->fresh, fresh);
    EXPECT_EQ(r->revalidated, !fresh);
}

}  // namespace

TEST(HttpClient, CachesAndRevalidatesWithEtag) {
    Served s;
    // As the PyTorch nightly pages: never fresh, so every use asks the server again.
    s.server->set_faults({{"/cu128/torch/", {{"cache_control", "no-cache, no-store, must-revalidate"}}}});
    HttpClient http(test::test_http_options(s.dir.path()));
    auto first = http.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(first) << text(first.error());
    EXPECT_EQ(first->status, 200);
    EXPECT_FALSE(first->from_cache);
    EXPECT_FALSE(first->etag.empty());
    auto second = http.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(second) << text(second.error());
    EXPECT_TRUE(second->revalidated);
    EXPECT_TRUE(second->from_cache);
    EXPECT_EQ(second->body, first->body);
    auto log = s.server->log_for("/cu128/torch/");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_FALSE(log[0]["headers"].contains("if-none-match"));
    EXPECT_EQ(log[1]["headers"]["if-none-match"], first->etag);
    EXPECT_EQ(log[1]["headers"]["accept"], std::string(kIndexAccept));
}

TEST(HttpClient, RevalidatesWithLastModifiedWhenNoEtag) {
    Served s;
    s.server->set_faults({{"/cu128/torch/", {{"no_etag", true}}}});
    HttpClient http(test::test_http_options(s.dir.path()));
    ASSERT_TRUE(http.fetch(s.page("/cu128/torch/")));
    // The server now sends validators: the cached copy has none, so the second request is plain.
    s.server->set_faults({{"/cu128/torch/", {{"cache_control", "max-age=0"}}}});
    auto second = http.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(second);
    EXPECT_FALSE(second->revalidated);
    auto third = http.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(third);
    EXPECT_TRUE(third->revalidated);
    auto log = s.server->log_for("/cu128/torch/");
    ASSERT_EQ(log.size(), 3u);
    EXPECT_TRUE(log[2]["headers"].contains("if-modified-since"));
}

TEST(HttpClient, FreshPagesAreAnsweredWithoutARequest) {
    Served s;
    // The test server, like a static mirror, sends Last-Modified and no Cache-Control: fresh for
    // the heuristic 600 s.
    auto opts = test::test_http_options(s.dir.path());
    {
        HttpClient http(opts);
        ASSERT_TRUE(http.fetch(s.page("/cu128/torch/")));
        auto again = http.fetch(s.page("/cu128/torch/"));
        ASSERT_TRUE(again) << text(again.error());
        EXPECT_TRUE(again->fresh);
        EXPECT_TRUE(again->from_cache);
        EXPECT_FALSE(again->revalidated);
        EXPECT_EQ(s.server->log_for("/cu128/torch/").size(), 1u);
    }
    // --refresh asks again, conditionally.
    opts.refresh = true;
    HttpClient refreshing(opts);
    auto asked = refreshing.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(asked) << text(asked.error());
    EXPECT_FALSE(asked->fresh);
    EXPECT_TRUE(asked->revalidated);
    auto log = s.server->log_for("/cu128/torch/");
    ASSERT_EQ(log.size(), 2u);
    EXPECT_TRUE(log[1]["headers"].contains("if-none-match"));
}

TEST(HttpClient, MaxAgeDecidesAndA304MakesTheCopyFreshAgain) {
    Served s;
    HttpClient http(test::test_http_options(s.dir.path()));
    s.server->set_faults({{"/cu128/torch/", {{"cache_control", "public, max-age=0"}}}});
    ASSERT_TRUE(http.fetch(s.page("/cu128/torch/")));
    // Stale at once: asked again; the 304 now says max-age=600, which the stored copy takes.
    s.server->set_faults({{"/cu128/torch/", {{"cache_control", "max-age=600, public"}}}});
    expect_cached(http, s, "/cu128/torch/", false);
    expect_cached(http, s, "/cu128/torch/", true);
    EXPECT_EQ(s.server->log_for("/cu128/torch/").size(), 2u);
    // Another page answered max-age=0 stays stale: each use asks.
    s.server->set_faults({{"/cu128/torchvision/", {{"cache_control", "max-age=0"}}}});
    ASSERT_TRUE(http.fetch(s.page("/cu128/torchvision/")));
    expect_cached(http, s, "/cu128/torchvision/", false);
    EXPECT_EQ(s.server->log_for("/cu128/torchvision/").size(), 2u);
}

TEST(HttpClient, EntriesWithoutFreshnessAreAskedAgain) {
    // An entry stored before freshness was kept (no such keys in its header line) reads as stale.
    Served s;
    auto opts = test::test_http_options(s.dir.path());
    HttpClient http(opts);
    ASSERT_TRUE(http.fetch(s.page("/cu128/torch/")));
    HttpCache cache(opts.cache_dir);
    auto path = cache.entry_path(s.page("/cu128/torch/").url, kIndexAccept);
    auto entry = cache.load(s.page("/cu128/torch/").url, kIndexAccept);
    ASSERT_TRUE(entry);
    auto bytes = encode_cache_entry(*entry);
    auto nl = bytes.find('\n');
    auto header = nlohmann::json::parse(bytes.substr(0, nl));
    for (const char* k : {"cache_control", "expires", "lifetime", "initial_age", "always_revalidate"}) header.erase(k);
    test::write_text(path, header.dump() + bytes.substr(nl));
    expect_cached(http, s, "/cu128/torch/", false);
    // Stored again with its freshness: the next use asks nothing.
    expect_cached(http, s, "/cu128/torch/", true);
    EXPECT_EQ(s.server->log_for("/cu128/torch/").size(), 2u);
}

TEST(HttpClient, AFreshPageIsUsedOnlyForTheCredentialsItWasFetchedWith) {
    Served s;
    const std::string secret = "s3cret-Pa55";
    s.server->set_faults({{"*", {{"auth", "alice:" + secret}}}});
    auto opts = test::test_http_options(s.dir.path());
    HttpClient http(opts);
    const auto base = "http://127.0.0.1:" + std::to_string(s.server->port()) + "/cu128/torch/";
    const auto alice = "http://alice:" + secret + "@127.0.0.1:" + std::to_string(s.server->port()) + "/cu128/torch/";
    ASSERT_TRUE(http.get(HttpRequest{alice, std::string(kIndexAccept), {}, true}));
    auto again = http.get(HttpRequest{alice, std::string(kIndexAccept), {}, true});
    ASSERT_TRUE(again) << text(again.error());
    EXPECT_TRUE(again->fresh);
    // The cache's key leaves credentials out; without them, or with others, the server decides.
    auto anonymous = http.get(HttpRequest{base, std::string(kIndexAccept), {}, true});
    ASSERT_FALSE(anonymous);
    EXPECT_EQ(anonymous.error().code, ExitCode::HttpStatus);
    auto mallory = http.get(HttpRequest{
        "http://alice:guess@127.0.0.1:" + std::to_string(s.server->port()) + "/cu128/torch/", std::string(kIndexAccept), {}, true});
    ASSERT_FALSE(mallory);
    EXPECT_EQ(s.server->log_for("/cu128/torch/").size(), 3u);
}

TEST(HttpClient, FileUrlsAreReadAgainEveryTime) {
    // A folder's index (envfix fetch --dest, then --index-url file://…) changes under the cache
    // with no server to ask: never taken as fresh, though curl gives it a Last-Modified.
    TempDir d("fileidx");
    auto page = d.path() / "simple/demo/index.html";
    test::write_text(page, "<a href=\"demo-1.0-py3-none-any.whl\">demo-1.0</a>\n");
    HttpClient http(test::test_http_options(d.path()));
    const auto url = "file://" + page.string();
    auto first = http.fetch(HttpRequest{url, "", {}, true});
    ASSERT_TRUE(first) << text(first.error());
    test::write_text(page, "<a href=\"demo-2.0-py3-none-any.whl\">demo-2.0</a>\n");
    auto second = http.fetch(HttpRequest{url, "", {}, true});
    ASSERT_TRUE(second) << text(second.error());
    EXPECT_FALSE(second->fresh);
    EXPECT_NE(second->body.find("demo-2.0"), std::string::npos) << second->body;
}

TEST(HttpClient, A304NamingAnotherValidatorDoesNotRefreshTheStoredCopy) {
    Served s;
    HttpClient http(test::test_http_options(s.dir.path()));
    s.server->set_faults({{"/cu128/torch/", {{"cache_control", "max-age=0"}}}});
    ASSERT_TRUE(http.fetch(s.page("/cu128/torch/")));
    // A 304 with another strong ETag does not describe the stored body (RFC 9111 §4.3.4): the
    // copy is still used for this answer, but not made fresh by it.
    s.server->set_faults({{"/cu128/torch/", {{"cache_control", "max-age=600"}, {"etag", "\"other\""}, {"not_modified", true}}}});
    expect_cached(http, s, "/cu128/torch/", false);
    expect_cached(http, s, "/cu128/torch/", false);
    EXPECT_EQ(s.server->log_for("/cu128/torch/").size(), 3u);
}

TEST(HttpClient, OfflineUsesOnlyTheCache) {
    Served s;
    auto opts = test::test_http_options(s.dir.path());
    {
        HttpClient online(opts);
        ASSERT_TRUE(online.fetch(s.page("/cu128/torch/")));
    }
    auto before = s.server->log().size();
    opts.offline = true;
    HttpClient offline(opts);
    auto hit = offline.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(hit) << text(hit.error());
    EXPECT_TRUE(hit->from_cache);
    EXPECT_NE(hit->body.find("Links for torch"), std::string::npos);
    auto miss = offline.fetch(s.page("/cu128/torchvision/"));
    ASSERT_FALSE(miss);
    EXPECT_EQ(miss.error().code, ExitCode::NotCached);
    EXPECT_EQ(text(miss.error()), "offline, and " + s.server->url("/cu128/torchvision/") + " is not in the cache");
    // The JSON variant of a page is another cache entry.
    auto other_accept = offline.fetch(HttpRequest{s.server->url("/cu128/torch/"), "application/json", {}, true});
    EXPECT_FALSE(other_accept);
    EXPECT_EQ(s.server->log().size(), before);  // offline: not one request
}

TEST(HttpClient, DamagedCacheEntryIsAMiss) {
    Served s;
    auto opts = test::test_http_options(s.dir.path());
    HttpClient http(opts);
    ASSERT_TRUE(http.fetch(s.page("/cu128/torch/")));
    for (auto& e : std::filesystem::recursive_directory_iterator(opts.cache_dir))
        if (e.is_regular_file()) {
            auto t = test::read_text(e.path());
            test::write_text(e.path(), t.substr(0, t.size() - 10));
        }
    auto again = http.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(again);
    EXPECT_FALSE(again->from_cache);
    EXPECT_FALSE(s.server->log_for("/cu128/torch/").back()["headers"].contains("if-none-match"));
}

TEST(HttpClient, RetriesServerErrorsThenSucceeds) {
    Served s;
    s.server->set_faults({{"/cu128/torch/", {{"status", 503}, {"times", 2}}}});
    test::RecordingReporter rep;
    HttpClient http(test::test_http_options(s.dir.path()), rep);
    auto r = http.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(r) << text(r.error());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->attempts, 3);
    EXPECT_EQ(s.server->log_for("/cu128/torch/").size(), 3u);
    EXPECT_NE(rep.all_text().find("answered HTTP 503; retrying (attempt 2 of 3)"), std::string::npos) << rep.all_text();
}

TEST(HttpClient, GivesUpAfterTheRetries) {
    Served s;
    s.server->set_faults({{"/cu128/torch/", {{"status", 502}}}});
    HttpClient http(test::test_http_options(s.dir.path()));
    auto r = http.get(s.page("/cu128/torch/"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::HttpStatus);
    EXPECT_EQ(text(r.error()), s.server->url("/cu128/torch/") + " answered HTTP 502");
    EXPECT_EQ(s.server->log_for("/cu128/torch/").size(), 3u);
}

TEST(HttpClient, RetriesConnectionResets) {
    Served s;
    s.server->set_faults({{"/cu128/torch/", {{"reset", true}, {"times", 1}}}});
    HttpClient http(test::test_http_options(s.dir.path()));
    auto r = http.fetch(s.page("/cu128/torch/"));
    ASSERT_TRUE(r) << text(r.error());
    EXPECT_EQ(r->attempts, 2);

    s.server->set_faults({{"/cu128/torchvision/", {{"reset", true}}}});
    auto fail = http.fetch(s.page("/cu128/torchvision/"));
    ASSERT_FALSE(fail);
    EXPECT_EQ(fail.error().code, ExitCode::Network);
    EXPECT_EQ(fail.error().message.key, "http.connection_lost") << text(fail.error());
}

TEST(HttpClient, TruncatedBodyIsANetworkError) {
    Served s;
    s.server->set_faults({{"/cu128/torch/", {{"truncate", 100}}}});
    auto opts = test::test_http_options(s.dir.path());
    HttpClient http(opts);
    auto r = http.fetch(s.page("/cu128/torch/"));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::Network);
    EXPECT_EQ(r.error().message.key, "http.truncated");
    EXPECT_NE(text(r.error()).find(s.server->url("/cu128/torch/")), std::string::npos);
    // Nothing partial was cached.
    opts.offline = true;
    HttpClient offline(opts);
    EXPECT_EQ(offline.fetch(s.page("/cu128/torch/")).error().code, ExitCode::NotCached);
}

TEST(HttpClient, ConnectionRefusedAndTimeout) {
    TempDir dir;
    auto opts = test::test_http_options(dir.path());
    opts.retries = 0;
    HttpClient http(opts);
    int port = test::free_port();
    auto r = http.fetch(HttpRequest{"http://127.0.0.1:" + std::to_string(port) + "/simple/torch/", "", {}, true});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::Network);
    EXPECT_EQ(r.error().message.key, "http.connect");

    Served s;
    s.server->set_faults({{"/cu128/torch/", {{"delay", 4}}}});
    opts.timeout = std::chrono::seconds(1);
    HttpClient slow(opts);
    auto t0 = std::chrono::steady_clock::now();
    auto t = slow.fetch(s.page("/cu128/torch/"));
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, ExitCode::Network);
    EXPECT_EQ(t.error().message.key, "http.timeout");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(4));
}

// A machine that cannot reach an index pays for it once: the host is not asked again by this
// client, nor by the next commands (the same cache folder) for ten minutes; --refresh asks.
TEST(HttpClient, AHostThatDoesNotAnswerIsNotAskedAgainForAWhile) {
    TempDir dir;
    auto opts = test::test_http_options(dir.path());
    const std::string url = "http://127.0.0.1:" + std::to_string(test::free_port()) + "/simple/torch/";
    test::RecordingReporter notes;
    HttpClient http(opts, notes);
    auto first = http.fetch(HttpRequest{url, "", {}, true});
    ASSERT_FALSE(first);
    EXPECT_EQ(first.error().message.key, "http.connect");
    // Said while it waited, once per retry.
    EXPECT_EQ(std::count_if(notes.notes.begin(), notes.notes.end(), [](const std::string& n) { return n.starts_with("no answer from "); }),
              2)
        << notes.all_text();

    auto t0 = std::chrono::steady_clock::now();
    auto again = http.fetch(HttpRequest{url + "../torchvision/", "", {}, true});
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().code, ExitCode::Network);
    EXPECT_EQ(again.error().message.key, "http.unreachable_remembered");
    EXPECT_NE(text(again.error()).find("--index-url"), std::string::npos) << text(again.error());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
    HttpClient next_command(opts);
    EXPECT_EQ(next_command.fetch(HttpRequest{url, "", {}, true}).error().message.key, "http.unreachable_remembered");
    auto refresh = opts;
    refresh.refresh = true;
    HttpClient asks(refresh);
    EXPECT_EQ(asks.fetch(HttpRequest{url, "", {}, true}).error().message.key, "http.connect");

    // A host that answers is forgotten: a server now listening on that port is asked.
    Served s;
    auto served = test::test_http_options(s.dir.path());
    HttpClient fine(served);
    ASSERT_TRUE(fine.fetch(s.page("/cu128/torch/")));
    EXPECT_TRUE(fine.fetch(s.page("/cu128/torchvision/")));
}

TEST(HttpClient, FollowsRedirectsWithinBounds) {
    Served s;
    s.server->set_faults({{"/old/torch/", {{"redirect", "/cu128/torch/"}, {"code", 301}}}, {"/loop/", {{"redirect", "/loop/"}}}});
    auto opts = test::test_http_options(s.dir.path());
    HttpClient http(opts);
    auto r = http.get(s.page("/old/torch/"));
    ASSERT_TRUE(r) << text(r.error());
    EXPECT_EQ(r->url, s.server->url("/cu128/torch/"));
    auto loop = http.get(s.page("/loop/"));
    ASSERT_FALSE(loop);
    EXPECT_EQ(loop.error().message.key, "http.redirects");
    EXPECT_EQ(s.server->log_for("/loop/").size(), static_cast<size_t>(opts.max_redirects + 1));
}

TEST(HttpClient, BasicAuthFromUrlAndNetrcNeverLeaks) {
    Served s;
    const std::string secret = "s3cret-Pa55";
    s.server->set_faults({{"*", {{"auth", "alice:" + secret}}}});
    test::RecordingReporter rep;
    auto opts = test::test_http_options(s.dir.path());
    auto with_creds = "http://alice:" + secret + "@127.0.0.1:" + std::to_string(s.server->port());
    {
        HttpClient http(opts, rep);
        auto ok = http.get(HttpRequest{with_creds + "/cu128/torch/", "", {}, true});
        ASSERT_TRUE(ok) << text(ok.error());
        EXPECT_EQ(ok->url.find(secret), std::string::npos);
        auto missing = http.get(HttpRequest{with_creds + "/cu128/nosuch/", "", {}, true});
        ASSERT_FALSE(missing);
        EXPECT_EQ(text(missing.error()).find(secret), std::string::npos) << text(missing.error());
        EXPECT_NE(text(missing.error()).find("404"), std::string::npos);
    }
    // Without credentials: 401.
    HttpClient anonymous(opts);
    auto denied = anonymous.get(s.page("/cu128/torch/"));
    ASSERT_FALSE(denied);
    EXPECT_EQ(denied.error().code, ExitCode::HttpStatus);
    // From netrc (the file NETRC names).
    test::write_text(s.dir / "netrc", "machine 127.0.0.1 login alice password " + secret + "\n");
    ::setenv("NETRC", (s.dir / "netrc").c_str(), 1);
    auto cfg = load_index_config({});
    ::unsetenv("NETRC");
    ASSERT_TRUE(cfg);
    EXPECT_EQ(cfg->netrc.value, (s.dir / "netrc").string());
    auto nopts = cfg->http_options();
    nopts.cache_dir = s.dir / "netrc-cache";
    HttpClient netrc_client(nopts, rep);
    auto ok = netrc_client.get(s.page("/cu128/torch/"));
    ASSERT_TRUE(ok) << text(ok.error());
    auto users = s.server->log_for("/cu128/torch/");
    EXPECT_EQ(users.back()["headers"]["authorization-user"], "alice");
    EXPECT_EQ(rep.all_text().find(secret), std::string::npos) << rep.all_text();
}

TEST(HttpClient, UsesProxyFromEnvironmentAndHonoursNoProxy) {
    Served s;  // the index, reached directly
    Served proxy;  // a second server playing the proxy (answers absolute-URL requests)
    ::setenv("HTTP_PROXY", proxy.server->url("").c_str(), 1);
    ::unsetenv("NO_PROXY");
    ::unsetenv("no_proxy");
    auto cfg = load_index_config({});
    ASSERT_TRUE(cfg);
    auto opts = cfg->http_options();
    opts.cache_dir = s.dir / "c1";
    {
        HttpClient http(opts);
        // A host that does not exist: only the proxy can answer.
        auto r = http.get(HttpRequest{"http://index.invalid/cu128/torch/", "", {}, true});
        ASSERT_TRUE(r) << text(r.error());
        auto log = proxy.server->log_for("/cu128/torch/");
        ASSERT_EQ(log.size(), 1u);
        EXPECT_EQ(log[0]["proxy"], true);
        EXPECT_EQ(log[0]["host"], "index.invalid");
    }
    // NO_PROXY: a dead proxy is bypassed for 127.0.0.1.
    ::setenv("HTTP_PROXY", ("http://127.0.0.1:" + std::to_string(test::free_port())).c_str(), 1);
    ::setenv("no_proxy", "localhost,127.0.0.1", 1);
    cfg = load_index_config({});
    ::unsetenv("HTTP_PROXY");
    ::unsetenv("no_proxy");
    ASSERT_TRUE(cfg);
    EXPECT_EQ(cfg->no_proxy.value, "localhost,127.0.0.1");
    opts = cfg->http_options();
    opts.cache_dir = s.dir / "c2";
    HttpClient direct(opts);
    auto r = direct.get(s.page("/cu128/torch/"));
    ASSERT_TRUE(r) << text(r.error());
    EXPECT_EQ(s.server->log_for("/cu128/torch/").back()["proxy"], false);
}
