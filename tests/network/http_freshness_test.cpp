// Freshness of cached index pages (RFC 9111 §4.2, a private cache): pure, table-driven.
#include <gtest/gtest.h>

#include "envfix/network/http_freshness.hpp"

using namespace envfix::network;

namespace {
// 2026-12-05 00:00:00 UTC and its HTTP-date.
constexpr int64_t T0 = 1796428800;
constexpr const char* kT0 = "Sat, 05 Dec 2026 00:00:00 GMT";
}  // namespace

TEST(HttpFreshness, ReadsCacheControlDirectives) {
    auto cc = parse_cache_control("public, MAX-AGE=600, must-revalidate");
    ASSERT_TRUE(cc.max_age);
    EXPECT_EQ(*cc.max_age, 600);
    EXPECT_TRUE(cc.must_revalidate);
    EXPECT_FALSE(cc.no_cache);
    cc = parse_cache_control("no-cache,no-store,must-revalidate");
    EXPECT_TRUE(cc.no_cache);
    EXPECT_TRUE(cc.no_store);
    EXPECT_FALSE(cc.max_age);
    EXPECT_EQ(parse_cache_control("max-age=\"60\"").max_age.value_or(-1), 60);
    EXPECT_TRUE(parse_cache_control("max-age=31536000, immutable").immutable);
    // A malformed or negative max-age is stale at once (§4.2.1), an overflowing one 2^31.
    EXPECT_EQ(parse_cache_control("max-age=ten").max_age.value_or(-1), 0);
    EXPECT_EQ(parse_cache_control("max-age=-5").max_age.value_or(-1), 0);
    EXPECT_EQ(parse_cache_control("max-age=99999999999999999999").max_age.value_or(-1), int64_t{1} << 31);
    EXPECT_EQ(parse_cache_control("max-age=-99999999999999999999").max_age.value_or(-1), 0);
    // Repeated (an origin's line and a CDN's joined): the first.
    EXPECT_EQ(parse_cache_control("max-age=0, max-age=600").max_age.value_or(-1), 0);
    EXPECT_FALSE(parse_cache_control("").max_age);
    EXPECT_FALSE(parse_cache_control(" , private, x-ext=\"a,b\"").no_cache);
}

TEST(HttpFreshness, ReadsTheThreeDateForms) {
    EXPECT_EQ(parse_http_date(kT0).value_or(0), T0);
    EXPECT_EQ(parse_http_date("Saturday, 05-Dec-26 00:00:00 GMT").value_or(0), T0);
    EXPECT_EQ(parse_http_date("Sat Dec  5 00:00:00 2026").value_or(0), T0);
    EXPECT_FALSE(parse_http_date(""));
    EXPECT_FALSE(parse_http_date("0"));
    EXPECT_FALSE(parse_http_date("not a date"));
}

TEST(HttpFreshness, LifetimeFromMaxAgeThenExpiresThenTheHeuristic) {
    struct Case {
        const char* name;
        FreshnessHeaders h;
        int64_t lifetime;
        bool always;
    } cases[] = {
        {"PyPI", {"max-age=600, public", "", kT0, "", kT0}, 600, false},
        {"max-age beats Expires", {"max-age=60", "Sat, 05 Dec 2026 01:00:00 GMT", kT0, "", ""}, 60, false},
        {"Expires - Date", {"", "Sat, 05 Dec 2026 01:00:00 GMT", kT0, "", ""}, 3600, false},
        {"Expires in the past", {"", "Fri, 04 Dec 2026 00:00:00 GMT", kT0, "", ""}, 0, false},
        {"invalid Expires is expired", {"", "0", kT0, "", kT0}, 0, false},
        {"Last-Modified only: 600 s", {"", "", kT0, "", "Mon, 01 Jan 2024 00:00:00 GMT"}, kHeuristicFreshSeconds, false},
        {"nothing: stale", {"", "", kT0, "", ""}, 0, false},
        {"PyTorch nightly", {"no-cache,no-store,must-revalidate", "", kT0, "", kT0}, 0, true},
        {"no-cache with max-age", {"no-cache, max-age=600", "", kT0, "", ""}, 0, true},
    };
    for (const auto& c : cases) {
        auto f = freshness_of(c.h, T0, T0);
        EXPECT_EQ(f.lifetime, c.lifetime) << c.name;
        EXPECT_EQ(f.always_revalidate, c.always) << c.name;
    }
}

TEST(HttpFreshness, AgeCountsTheAgeHeaderTheDateAndTheTimeStored) {
    // A CDN copy 100 s old, 2 s on the way: 102 s of its 600 used when it arrives.
    auto f = freshness_of({"max-age=600", "", kT0, "100", ""}, T0 - 2, T0);
    EXPECT_EQ(f.initial_age, 102);
    EXPECT_EQ(fresh_for(f, T0, T0), 498);
    EXPECT_EQ(fresh_for(f, T0, T0 + 497), 1);
    EXPECT_LE(fresh_for(f, T0, T0 + 498), 0);
    // A Date 30 s behind the response time (a slow origin) counts too.
    f = freshness_of({"max-age=600", "", "Fri, 04 Dec 2026 23:59:30 GMT", "", ""}, T0, T0);
    EXPECT_EQ(f.initial_age, 30);
    // A server clock ahead of ours ages nothing.
    f = freshness_of({"max-age=600", "", "Sat, 05 Dec 2026 00:10:00 GMT", "", ""}, T0, T0);
    EXPECT_EQ(f.initial_age, 0);
    // Our clock set back since it was stored: asked again.
    EXPECT_LE(fresh_for(f, T0, T0 - 1), 0);
    // no-cache is never fresh.
    EXPECT_LE(fresh_for(freshness_of({"no-cache", "", kT0, "", ""}, T0, T0), T0, T0), 0);
}
