// PEP 440 versions: parsing, normalisation, accessors and packaging's total order.
#include <gtest/gtest.h>

#include <unordered_set>

#include "envfix/standards/version.hpp"

using envfix::ExitCode;
using envfix::standards::PreKind;
using envfix::standards::Version;

namespace {
Version V(std::string_view s) {
    auto v = Version::parse(s);
    EXPECT_TRUE(v) << s;
    return v ? *v : Version{};
}
}  // namespace

TEST(Version, NormalisesEverySpellingPep440Allows) {
    struct Case {
        const char* in;
        const char* out;
    };
    const Case cases[] = {
        {"1.0", "1.0"},
        {"1.0.0", "1.0.0"},  // release kept as written
        {"01.002.0003", "1.2.3"},  // leading zeros dropped
        {"v1.0", "1.0"},
        {"V1.0", "1.0"},
        {"  1.0\t\n", "1.0"},  // surrounding whitespace
        {"1.0RC1", "1.0rc1"},
        {"1.0c1", "1.0rc1"},
        {"1.0pre1", "1.0rc1"},
        {"1.0preview1", "1.0rc1"},
        {"1.0alpha1", "1.0a1"},
        {"1.0beta2", "1.0b2"},
        {"1.0a", "1.0a0"},  // implicit pre-release number
        {"1.0.a1", "1.0a1"},
        {"1.0-a1", "1.0a1"},
        {"1.0_a_1", "1.0a1"},
        {"1.0a.1", "1.0a1"},
        {"1.0-1", "1.0.post1"},  // implicit post release
        {"1.0.post", "1.0.post0"},
        {"1.0post1", "1.0.post1"},
        {"1.0-post-1", "1.0.post1"},
        {"1.0.rev1", "1.0.post1"},
        {"1.0r1", "1.0.post1"},
        {"1.0.dev", "1.0.dev0"},
        {"1.0dev1", "1.0.dev1"},
        {"1.0-dev_1", "1.0.dev1"},
        {"1.0a1-1", "1.0a1.post1"},
        {"1.0a-1", "1.0a1"},  // "-1" is the pre-release number here, as in packaging
        {"1.0rc1.post2.dev3", "1.0rc1.post2.dev3"},
        {"1!2.0", "1!2.0"},
        {"0!1.0", "1.0"},  // epoch 0 not written
        {"2.7.0+cu128", "2.7.0+cu128"},
        {"2.7.0+CU128", "2.7.0+cu128"},
        {"1.0+abc-def_ghi", "1.0+abc.def.ghi"},
        {"1.0+abc.007", "1.0+abc.7"},  // numeric local parts lose leading zeros
        {"1.0+0", "1.0+0"},
        {"1.0a1.dev1+local.1", "1.0a1.dev1+local.1"},
        {"99999999999999999999999.0", "99999999999999999999999.0"},  // arbitrary size
    };
    for (const auto& c : cases) {
        auto v = Version::parse(c.in);
        ASSERT_TRUE(v) << c.in;
        EXPECT_EQ(v->to_string(), c.out) << c.in;
        EXPECT_EQ(Version::parse(v->to_string())->to_string(), c.out) << "round trip of " << c.in;
    }
}

TEST(Version, RejectsLegacyAndMalformedStrings) {
    const char* bad[] = {
        "",       " ",         "1.0-foo",         "foo",   "1.0.",   ".1",       "1..0",        "1.0+", "1.0+abc.", "1.0+.abc",
        "1.0++1", "1.0a1a1",   "1.0.post1.post2", "1!",    "!1.0",   "1.0 1",    "1,0",         "v",    "vv1.0",    "1.0-",
        "1.0.*",  "1.0dev1a1", "1.0+ab c",        "1.0+é", "1.0abc", "1.0prev1", "2.7.0 +cu128"};
    for (const char* s : bad) {
        auto v = Version::parse(s);
        EXPECT_FALSE(v) << '"' << s << "\" parsed as " << (v ? v->to_string() : "");
        if (!v) {
            EXPECT_EQ(v.error().code, ExitCode::BadInput);
            EXPECT_EQ(v.error().message.key, "version.invalid");
            EXPECT_EQ(v.error().message.arg("text"), s);
        }
        EXPECT_FALSE(Version::try_parse(s)) << s;
    }
    EXPECT_FALSE(Version::try_parse(std::string("1.0\0", 4)));
}

TEST(Version, TrailingSeparatorsThatPep440Absorbs) {
    // packaging accepts these: the separator after a pre/post/dev word belongs to it.
    EXPECT_EQ(V("1.0a.").to_string(), "1.0a0");
    EXPECT_EQ(V("1.0a-").to_string(), "1.0a0");
    EXPECT_EQ(V("1.0.post.").to_string(), "1.0.post0");
    EXPECT_EQ(V("1.0.dev_").to_string(), "1.0.dev0");
    EXPECT_EQ(V("1.0-r-").to_string(), "1.0.post0");
}

TEST(Version, Accessors) {
    auto v = V("1!2.7.3rc4.post5.dev6+cu128.1");
    EXPECT_EQ(v.epoch(), 1u);
    EXPECT_EQ(v.release_size(), 3u);
    EXPECT_EQ(v.major(), 2u);
    EXPECT_EQ(v.minor(), 7u);
    EXPECT_EQ(v.micro(), 3u);
    EXPECT_EQ(v.release(7), 0u);
    EXPECT_EQ(v.pre_kind(), PreKind::Rc);
    EXPECT_EQ(v.pre_number(), 4u);
    EXPECT_EQ(v.post(), 5u);
    EXPECT_EQ(v.dev(), 6u);
    EXPECT_EQ(v.local(), "cu128.1");
    EXPECT_TRUE(v.has_local());
    EXPECT_EQ(v.public_version(), "1!2.7.3rc4.post5.dev6");
    EXPECT_EQ(v.base_version(), "1!2.7.3");
    EXPECT_EQ(v.without_local().to_string(), "1!2.7.3rc4.post5.dev6");
    EXPECT_EQ(v.base().to_string(), "1!2.7.3");
    EXPECT_TRUE(v.is_prerelease());
    EXPECT_TRUE(v.is_postrelease());
    EXPECT_TRUE(v.is_devrelease());

    auto plain = V("2.7.0");
    EXPECT_FALSE(plain.is_prerelease());
    EXPECT_FALSE(plain.is_postrelease());
    EXPECT_FALSE(plain.has_local());
    EXPECT_EQ(plain.local(), "");
    EXPECT_FALSE(plain.pre_kind());
    EXPECT_TRUE(V("1.0.dev1").is_prerelease());
    EXPECT_FALSE(V("1.0.post1").is_prerelease());
    EXPECT_EQ(V("99999999999999999999999").major(), UINT64_MAX);  // saturates
    EXPECT_EQ(Version{}.to_string(), "0");
    EXPECT_EQ(Version{}, V("0.0"));
}

// Every version below sorts strictly before the next one (packaging's order).
TEST(Version, TotalOrderMatchesPackaging) {
    const char* ordered[] = {
        "0.dev0",
        "0a0",
        "0",
        "0.0.1",
        "1.0.dev456",
        "1.0a1",
        "1.0a2.dev456",
        "1.0a12.dev456",
        "1.0a12",
        "1.0b1.dev456",
        "1.0b2",
        "1.0b2.post345.dev456",
        "1.0b2.post345",
        "1.0b2-346",
        "1.0c1.dev456",
        "1.0rc2",
        "1.0",
        "1.0+abc.5",
        "1.0+abc.7",
        "1.0+5",
        "1.0+6.a",
        "1.0+6.a.1",
        "1.0.post456.dev34",
        "1.0.post456",
        "1.0.post456+x",
        "1.0.15",
        "1.1.dev1",
        "1.1a1",
        "1.1",
        "1.2+123abc",
        "1.2+123abc456",
        "1.2+abc",
        "1.2+abc123",
        "1.2+abc123def",
        "1.2+1234.abc",
        "1.2+123456",
        "2.7.0+cpu",
        "2.7.0+cu118",
        "2.7.0+cu126",
        "2.7.0+cu128",
        "2.7.0+cu128.1",
        "2.7.1",
        "10.0",
        "100.0",
        "1!0.1",
        "1!1.0",
        "2!0.0.dev0",
    };
    std::vector<Version> vs;
    for (const char* s : ordered) vs.push_back(V(s));
    for (size_t i = 0; i < vs.size(); ++i)
        for (size_t j = 0; j < vs.size(); ++j) {
            auto c = vs[i] <=> vs[j];
            auto want = i < j ? std::strong_ordering::less : (i > j ? std::strong_ordering::greater : std::strong_ordering::equal);
            EXPECT_TRUE(c == want) << ordered[i] << " vs " << ordered[j];
        }
}

TEST(Version, EqualityIgnoresSpellingTrailingZerosAndLocalLeadingZeros) {
    EXPECT_EQ(V("1.0"), V("1"));
    EXPECT_EQ(V("1.0"), V("1.0.0.0"));
    EXPECT_EQ(V("1.0RC1"), V("1.0rc1"));
    EXPECT_EQ(V("1.0-1"), V("1.0.post1"));
    EXPECT_EQ(V("1.0+abc.7"), V("1.0+ABC.007"));
    EXPECT_EQ(V("1.0+a-b"), V("1.0+a.b"));
    EXPECT_NE(V("1.0"), V("1.0+0"));
    EXPECT_NE(V("1.0a0"), V("1.0.dev0"));
    EXPECT_EQ(V("0!1.0"), V("1.0"));
    std::unordered_set<Version> set{V("1.0"), V("1.0.0"), V("v1"), V("1.0+x"), V("1.0+X")};
    EXPECT_EQ(set.size(), 2u);
}

TEST(Version, NumbersOfAnyLengthCompareExactly) {
    EXPECT_LT(V("1.99999999999999999998"), V("1.99999999999999999999"));
    EXPECT_LT(V("1.9"), V("1.10"));
    EXPECT_LT(V("1.0+99999999999999999999998"), V("1.0+99999999999999999999999"));
    EXPECT_LT(V("1.0.post9"), V("1.0.post10"));
}
