// ~/.netrc parsing and lookup. Table-driven, pure.
#include <gtest/gtest.h>

#include "envfix/network/netrc.hpp"

using namespace envfix::network;

TEST(Netrc, ParsesEntries) {
    auto e = parse_netrc(
        "# corporate index\n"
        "machine pypi.corp.example login alice password \"s3cret with space\"\n"
        "machine Mirror.Example\n  login bob\n  password hunter2\n  account ignored\n"
        "macdef init\ncd /pub\nget x\n\n"
        "default login anon password anon@\n");
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[0].machine, "pypi.corp.example");
    EXPECT_EQ(e[0].password, "s3cret with space");
    EXPECT_EQ(e[1].machine, "mirror.example");
    EXPECT_EQ(e[1].login, "bob");
    EXPECT_EQ(e[2].machine, "");
}

TEST(Netrc, LooksUpByHostThenDefault) {
    auto e = parse_netrc("machine a.example login u1 password p1\ndefault login d password dp\n");
    struct Case {
        const char* host;
        const char* user;
    } cases[] = {{"a.example", "u1"}, {"A.EXAMPLE", "u1"}, {"b.example", "d"}};
    for (auto c : cases) {
        auto cred = netrc_lookup(e, c.host);
        ASSERT_TRUE(cred) << c.host;
        EXPECT_EQ(cred->user, c.user);
    }
    EXPECT_FALSE(netrc_lookup(parse_netrc("machine a login u password p"), "b"));
}

TEST(Netrc, ToleratesGarbage) {
    for (const char* text : {"", "machine", "login x", "password", "machine a login", "\"unterminated", "macdef x"})
        (void)parse_netrc(text);
    EXPECT_TRUE(parse_netrc("login x password y").empty());
}
