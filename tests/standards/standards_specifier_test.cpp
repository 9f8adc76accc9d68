// PEP 440 specifiers and sets: parsing, matching rules, pre-release policy, filter().
#include <gtest/gtest.h>

#include "envfix/standards/specifier.hpp"

using envfix::ExitCode;
using envfix::standards::Specifier;
using envfix::standards::SpecifierSet;
using envfix::standards::SpecOp;
using envfix::standards::Version;

namespace {
Version V(std::string_view s) { return *Version::parse(s); }
SpecifierSet S(std::string_view s) {
    auto set = SpecifierSet::parse(s);
    EXPECT_TRUE(set) << s;
    return set ? *set : SpecifierSet{};
}
std::vector<Version> Vs(std::initializer_list<const char*> l) {
    std::vector<Version> out;
    for (auto s : l) out.push_back(V(s));
    return out;
}
std::vector<std::string> strs(const std::vector<Version>& vs) {
    std::vector<std::string> out;
    for (const auto& v : vs) out.push_back(v.to_string());
    return out;
}
}  // namespace

TEST(Specifier, ParsesOperatorsAndKeepsTheVersionAsWritten) {
    struct Case {
        const char* in;
        SpecOp op;
        const char* version;
        const char* str;
    };
    const Case cases[] = {
        {"~=2.7", SpecOp::Compatible, "2.7", "~=2.7"},
        {"==2.7.*", SpecOp::Equal, "2.7.*", "==2.7.*"},
        {"!=2.7.*", SpecOp::NotEqual, "2.7.*", "!=2.7.*"},
        {" >= 1.0 ", SpecOp::GreaterEqual, "1.0", ">=1.0"},
        {"<=v1.0", SpecOp::LessEqual, "v1.0", "<=v1.0"},
        {"<1.0RC1", SpecOp::Less, "1.0RC1", "<1.0RC1"},
        {">1!1.0.post1", SpecOp::Greater, "1!1.0.post1", ">1!1.0.post1"},
        {"==2.7.0+cu128", SpecOp::Equal, "2.7.0+cu128", "==2.7.0+cu128"},
        {"===foobar", SpecOp::Arbitrary, "foobar", "===foobar"},
        {"=== 1.0", SpecOp::Arbitrary, "1.0", "===1.0"},
        {"===", SpecOp::Arbitrary, "", "==="},
    };
    for (const auto& c : cases) {
        auto s = Specifier::parse(c.in);
        ASSERT_TRUE(s) << c.in;
        EXPECT_EQ(s->op(), c.op) << c.in;
        EXPECT_EQ(s->version_text(), c.version) << c.in;
        EXPECT_EQ(s->to_string(), c.str) << c.in;
    }
    EXPECT_TRUE(Specifier::parse("==2.7.*")->is_wildcard());
    EXPECT_FALSE(Specifier::parse("===foo")->version());
    EXPECT_TRUE(Specifier::parse("===1.0")->version());
}

TEST(Specifier, RejectsBadSpecifiersWithTheReason) {
    struct Case {
        const char* in;
        const char* key;
    };
    const Case cases[] = {
        {"", "specifier.invalid"},
        {"2.7", "specifier.invalid"},
        {"=2.7", "specifier.invalid"},
        {"=>2.7", "specifier.invalid"},
        {"~2.7", "specifier.invalid"},
        {"in 2.7", "specifier.invalid"},
        {"===foo bar", "specifier.invalid"},
        {"===foo;", "specifier.invalid"},
        {">=", "specifier.bad_version"},
        {">=foo", "specifier.bad_version"},
        {">=1.0-foo", "specifier.bad_version"},
        {"== 1.0 .*", "specifier.bad_version"},
        {"==1.0a1.*", "specifier.wildcard_not_allowed"},
        {">=1.0.*", "specifier.wildcard_not_allowed"},
        {"~=1.0.*", "specifier.wildcard_not_allowed"},
        {"==1.0.post1.*", "specifier.wildcard_not_allowed"},
        {"<=1.0+local", "specifier.local_not_allowed"},
        {"~=1.0+local", "specifier.local_not_allowed"},
        {">1.0+cu128", "specifier.local_not_allowed"},
        {"~=1", "specifier.compatible_needs_two"},
        {"~=1a1", "specifier.compatible_needs_two"},
    };
    for (const auto& c : cases) {
        auto s = Specifier::parse(c.in);
        ASSERT_FALSE(s) << c.in;
        EXPECT_EQ(s.error().code, ExitCode::BadInput);
        EXPECT_EQ(s.error().message.key, c.key) << c.in;
        EXPECT_EQ(s.error().message.arg("text"), c.in);
    }
}

// spec, version, expected contains(v, true) — the operator rules, pre-release policy aside.
TEST(Specifier, OperatorRules) {
    struct Case {
        const char* spec;
        const char* version;
        bool match;
    };
    const Case cases[] = {
        // == and local versions
        {"==2.7.0", "2.7.0", true},
        {"==2.7.0", "2.7.0+cu128", true},
        {"==2.7", "2.7.0+cu128", true},
        {"==2.7.0+cu128", "2.7.0+cu128", true},
        {"==2.7.0+cu128", "2.7.0", false},
        {"==2.7.0+cu128", "2.7.0+cu126", false},
        {"==2.7.0+cu128", "2.7.0+CU128", true},
        {"==2.7.0", "2.7.0.post1", false},
        {"==2.7.0", "2.7.0rc1", false},
        {"!=2.7.0", "2.7.0+cpu", false},
        {"!=2.7.0+cpu", "2.7.0+cu128", true},
        // wildcards
        {"==2.7.*", "2.7", true},
        {"==2.7.*", "2.7.1", true},
        {"==2.7.*", "2.7.0rc1", true},
        {"==2.7.*", "2.7.0.dev1", true},
        {"==2.7.*", "2.7.5.post3+cu128", true},
        {"==2.7.*", "2.70", false},
        {"==2.7.*", "2.8", false},
        {"==2.7.*", "2", false},
        {"==2.0.*", "2", true},
        {"==2.7.0.*", "2.7", true},
        {"==2.*", "1!2.0", false},
        {"==1!2.*", "1!2.5", true},
        {"!=2.7.*", "2.7.3", false},
        {"!=2.7.*", "2.8.0", true},
        // ~=
        {"~=2.7", "2.7", true},
        {"~=2.7", "2.9", true},
        {"~=2.7", "3.0", false},
        {"~=2.7", "2.6", false},
        {"~=2.7.1", "2.7.9", true},
        {"~=2.7.1", "2.8.0", false},
        {"~=2.7.1", "2.7.0", false},
        {"~=2.2.post3", "2.2.post3", true},
        {"~=2.2.post3", "2.3", true},
        {"~=2.2.post3", "3.0", false},
        {"~=1.4.5a4", "1.4.5", true},
        {"~=1.4.5a4", "1.5.0", false},
        {"~=2.7", "3.0.dev0", false},
        // <= and >=
        {"<=2.7.0", "2.7.0+cu128", true},
        {"<=2.7.0", "2.7.0.post1", false},
        {">=2.7.0", "2.7.0+cpu", true},
        {">=2.7.0", "2.7.0rc1", false},
        {">=2.7.0rc1", "2.7.0rc1", true},
        // <: pre-releases of V stay out unless V is one
        {"<1.7", "1.7a1", false},
        {"<1.7", "1.7.dev0", false},
        {"<1.7", "1.6.9", true},
        {"<1.7", "1.6.9a1", true},
        {"<1.7", "1.7", false},
        {"<1.7a2", "1.7a1", true},
        {"<1.7a2", "1.7.dev0", true},
        {"<1.7.post1", "1.7", true},
        {"<1.7.post1", "1.7a1", false},  // pip: a pre-release of the release 1.7.post1 belongs to
        {"<2.0.post1", "2.0rc1", false},
        {"<1.7.post1", "1.7.post1.dev0", false},
        {"<1.7.post1", "1.7.post0", true},
        // >: post-releases of V's release stay out unless V is one, and local versions of it (pip's
        // packaging: by base version)
        {">1.7", "1.7.post1", false},
        {">1.7", "1.7+cu128", false},
        {">1.7", "1.7.post1+local", false},
        {">1.7", "1.7.1", true},
        {">1.7", "1.7.0.1", true},
        {">1.7", "1.8.dev0", true},
        {">1.7.post2", "1.7.post3", true},
        {">1.7.post2", "1.7.post2+local", false},
        {">1.7.post2", "1.7.post3.dev0", true},
        {">1.7a1", "1.7a1.post1", false},
        {">1.7a1", "1.7a2", true},
        {">1.7a1", "1.7", true},
        {">1.7a1", "1.7.post1", false},  // pip compares base versions: 1.7 is 1.7a1's
        {">1.7a1", "1.7+local", false},
        {">1.7.dev1", "1.7.dev1+local", false},
        {">1.7.dev1", "1.7.dev2", true},
        {">1.7.dev1", "1.7.post1", false},
        {">1.0a2.dev3", "1.0b2.post345", false},
        {">1.0b2", "1.0+abc.5", false},
        {">1.7.dev1", "1.7", true},
        // ===: the normalised text, case-insensitively
        {"===2.7.0", "2.7.0", true},
        {"===2.7.0", "2.7", false},
        {"===2.7.0+CU128", "2.7.0+cu128", true},
        {"===foo", "1.0", false},
    };
    for (const auto& c : cases) {
        auto s = Specifier::parse(c.spec);
        ASSERT_TRUE(s) << c.spec;
        EXPECT_EQ(s->contains(V(c.version), true), c.match) << c.spec << " contains " << c.version;
        EXPECT_EQ(s->matches(V(c.version)), c.match) << c.spec << " matches " << c.version;
    }
}

TEST(Specifier, PrereleasesOnlyWhenAskedOrNamed) {
    EXPECT_FALSE(Specifier::parse(">=1.0")->contains(V("2.0a1")));
    EXPECT_TRUE(Specifier::parse(">=1.0")->contains(V("2.0a1"), true));
    EXPECT_TRUE(Specifier::parse(">=1.0a1")->contains(V("2.0a1")));  // named by the specifier
    EXPECT_FALSE(Specifier::parse(">=1.0a1")->contains(V("2.0a1"), false));
    EXPECT_TRUE(Specifier::parse("<2.0a2")->contains(V("2.0a1")));
    EXPECT_FALSE(Specifier::parse("!=2.0a1")->contains(V("2.0a2")));  // "!=" names nothing
    EXPECT_FALSE(Specifier::parse("==2.*")->implies_prereleases());
    EXPECT_TRUE(Specifier::parse("==2.0.dev1")->implies_prereleases());
    EXPECT_TRUE(Specifier::parse("===2.0a1")->implies_prereleases());
    EXPECT_FALSE(Specifier::parse("===foo")->implies_prereleases());
}

TEST(Specifier, EqualityIsCanonical) {
    EXPECT_EQ(*Specifier::parse("==1.2.3"), *Specifier::parse("== 1.2.3.0"));
    EXPECT_EQ(*Specifier::parse(">=v1.0"), *Specifier::parse(">=1"));
    EXPECT_FALSE(*Specifier::parse("~=1.0") == *Specifier::parse("~=1.0.0"));  // ~= keeps its length
    EXPECT_FALSE(*Specifier::parse("==1.0") == *Specifier::parse("!=1.0"));
    EXPECT_FALSE(*Specifier::parse("==1.0.*") == *Specifier::parse("==1.*"));
}

TEST(SpecifierSet, ParsesCommaListsAndPrintsThemSorted) {
    EXPECT_EQ(S(">=1.0.0,!=1.0.1").to_string(), "!=1.0.1,>=1.0.0");
    EXPECT_EQ(S(" >=1.0 , <2 ,").to_string(), "<2,>=1.0");
    EXPECT_EQ(S("==1.0,==1.0.0").to_string(), "==1.0");  // duplicates removed
    EXPECT_TRUE(S("").empty());
    EXPECT_TRUE(S("  ").empty());
    EXPECT_TRUE(S(",").empty());
    EXPECT_EQ(S(">=1.0,<2").size(), 2u);
    EXPECT_EQ(S(">=1.0,!=1.0.1"), S("!=1.0.1, >=1.0.0"));
    EXPECT_FALSE(S(">=1.0") == S(">=1.0,<2"));
    EXPECT_EQ((S(">=1.0") & S("<2")).to_string(), "<2,>=1.0");
    auto bad = SpecifierSet::parse(">=1.0,foo");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message.arg("text"), "foo");
}

TEST(SpecifierSet, ContainsAppliesEverySpecifier) {
    EXPECT_TRUE(S(">=2.6,<2.8").contains(V("2.7.0+cu128")));
    EXPECT_FALSE(S(">=2.6,<2.8").contains(V("2.8.0")));
    EXPECT_FALSE(S(">=2.6,<2.8").contains(V("2.7.1rc1")));
    EXPECT_TRUE(S(">=2.6,<2.8").contains(V("2.7.1rc1"), true));
    EXPECT_TRUE(S(">=2.6rc1,<2.8").contains(V("2.7.1rc1")));  // one names a pre-release
    EXPECT_TRUE(S("").contains(V("1.0")));
    EXPECT_FALSE(S("").contains(V("1.0a1")));
    EXPECT_TRUE(S("").contains(V("1.0a1"), true));
    SpecifierSet pre = S(">=1.0");
    pre.set_prereleases(true);
    EXPECT_TRUE(pre.contains(V("2.0b1")));
    pre.set_prereleases(false);
    EXPECT_FALSE(S(">=1.0a1").contains(V("2.0b1"), false));
}

// packaging 26's filter() doc examples, and the PEP 440 rule behind them.
TEST(SpecifierSet, FilterTakesPrereleasesOnlyWhenNothingElseMatches) {
    auto vs = Vs({"1.2", "1.3", "1.5a1"});
    EXPECT_EQ(strs(S(">=1.2.3").filter(vs)), (std::vector<std::string>{"1.3"}));
    EXPECT_EQ(strs(S(">=1.2.3").filter(Vs({"1.2", "1.5a1"}))), (std::vector<std::string>{"1.5a1"}));
    EXPECT_EQ(strs(S(">=1.2.3").filter(Vs({"1.3", "1.5a1"}), true)), (std::vector<std::string>{"1.3", "1.5a1"}));
    EXPECT_EQ(strs(S(">=1.2.3").filter(Vs({"1.2", "1.5a1"}), false)), (std::vector<std::string>{}));
    EXPECT_EQ(strs(S("").filter(Vs({"1.3", "1.5a1"}))), (std::vector<std::string>{"1.3"}));
    EXPECT_EQ(strs(S("").filter(Vs({"1.5a1"}))), (std::vector<std::string>{"1.5a1"}));
    EXPECT_EQ(strs(S("").filter(Vs({"1.3", "1.5a1"}), true)), (std::vector<std::string>{"1.3", "1.5a1"}));
    EXPECT_EQ(strs(S(">=1.5a1").filter(Vs({"1.3", "1.5a1", "1.6"}))), (std::vector<std::string>{"1.5a1", "1.6"}));
    SpecifierSet forced = S(">=1.2.3");
    forced.set_prereleases(true);
    EXPECT_EQ(strs(forced.filter(Vs({"1.3", "1.5a1"}))), (std::vector<std::string>{"1.3", "1.5a1"}));
    // torch nightlies: only dev releases match, so they are taken.
    EXPECT_EQ(strs(S(">=2.7.1").filter(Vs({"2.7.0+cu128", "2.8.0.dev20250601+cu128"}))),
              (std::vector<std::string>{"2.8.0.dev20250601+cu128"}));
}

TEST(SpecifierSet, FilterByKeyKeepsItemsInOrder) {
    struct File {
        std::string name;
        Version version;
    };
    std::vector<File> files{{"a", V("2.6.0")}, {"b", V("2.7.0+cu128")}, {"c", V("2.7.1")}, {"d", V("2.8.0rc1")}};
    auto out = S("~=2.7.0").filter_by(files, [](const File& f) -> const Version& { return f.version; });
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].name, "b");
    EXPECT_EQ(out[1].name, "c");
    std::vector<Version> all = Vs({"2.6", "2.8rc1", "2.7"});
    EXPECT_EQ(S(">=2.6").select(all), (std::vector<size_t>{0, 2}));
}
