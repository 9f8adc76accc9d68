// PEP 508 requirements: names, extras, specifiers, URLs, markers, whitespace, errors.
#include <gtest/gtest.h>

#include "envfix/standards/requirement.hpp"

using envfix::ExitCode;
using namespace envfix::standards;

TEST(Requirement, ParsesEveryPart) {
    struct Case {
        const char* in;
        const char* name;
        const char* extras;  // comma-joined
        const char* specifier;  // SpecifierSet::to_string()
        const char* url;
        const char* marker;  // Marker::to_string(), "" for none
        const char* str;  // Requirement::to_string()
    };
    const Case cases[] = {
        {"torch", "torch", "", "", "", "", "torch"},
        {"  torch  ", "torch", "", "", "", "", "torch"},
        {"torch>=2.6", "torch", "", ">=2.6", "", "", "torch>=2.6"},
        {"torch >= 2.6 , < 2.8", "torch", "", "<2.8,>=2.6", "", "", "torch<2.8,>=2.6"},
        {"torch (>=2.6,<2.8)", "torch", "", "<2.8,>=2.6", "", "", "torch<2.8,>=2.6"},
        {"torch(==2.7.0+cu128)", "torch", "", "==2.7.0+cu128", "", "", "torch==2.7.0+cu128"},
        {"torch==2.7.*", "torch", "", "==2.7.*", "", "", "torch==2.7.*"},
        {"Typing_Extensions>=4.10.0", "Typing_Extensions", "", ">=4.10.0", "", "", "Typing_Extensions>=4.10.0"},
        {"name[]", "name", "", "", "", "", "name"},
        {"name[foo]", "name", "foo", "", "", "", "name[foo]"},
        {"name [ foo , bar ] >= 1", "name", "bar,foo", ">=1", "", "", "name[bar,foo]>=1"},
        {"name[foo,foo]", "name", "foo", "", "", "", "name[foo]"},
        {"cuda-toolkit[cublas,cudart,nvrtc]==13.0.2; platform_system == 'Linux'", "cuda-toolkit", "cublas,cudart,nvrtc", "==13.0.2", "",
         "platform_system == \"Linux\"", "cuda-toolkit[cublas,cudart,nvrtc]==13.0.2; platform_system == \"Linux\""},
        {"optree>=0.13.0; extra == \"optree\"", "optree", "", ">=0.13.0", "", "extra == \"optree\"", "optree>=0.13.0; extra == \"optree\""},
        {"name;os_name=='nt'", "name", "", "", "", "os_name == \"nt\"", "name; os_name == \"nt\""},
        {"name ; os_name=='nt'", "name", "", "", "", "os_name == \"nt\"", "name; os_name == \"nt\""},
        {"name>=1;python_version<'3.9'", "name", "", ">=1", "", "python_version < \"3.9\"", "name>=1; python_version < \"3.9\""},
        {"name @ https://host/name-1.0-py3-none-any.whl", "name", "", "", "https://host/name-1.0-py3-none-any.whl", "",
         "name@ https://host/name-1.0-py3-none-any.whl"},
        {"name@https://host/x.whl ; os_name == 'nt'", "name", "", "", "https://host/x.whl", "os_name == \"nt\"",
         "name@ https://host/x.whl ; os_name == \"nt\""},
        {"name[x] @ file:///tmp/a.whl", "name", "x", "", "file:///tmp/a.whl", "", "name[x]@ file:///tmp/a.whl"},
        {"name @ https://host/x;y", "name", "", "", "https://host/x;y", "", "name@ https://host/x;y"},
        {"name @ https://host/x.whl ", "name", "", "", "https://host/x.whl", "", "name@ https://host/x.whl"},
        {"name===foo", "name", "", "===foo", "", "", "name===foo"},
        {"name===1.0,>=1", "name", "", "===1.0,>=1", "", "", "name===1.0,>=1"},
        {"name>=1.0,", "name", "", ">=1.0", "", "", "name>=1.0"},
        {"A.B-C_D", "A.B-C_D", "", "", "", "", "A.B-C_D"},
        {"a_", "a_", "", "", "", "", "a_"},
        {"name\n", "name", "", "", "", "", "name"},
        {"name\t>=1.0\t;\tos_name=='nt'", "name", "", ">=1.0", "", "os_name == \"nt\"", "name>=1.0; os_name == \"nt\""},
    };
    for (const auto& c : cases) {
        auto r = Requirement::parse(c.in);
        ASSERT_TRUE(r) << c.in << ": " << r.error().message.key << " column " << r.error().message.arg("column");
        EXPECT_EQ(r->name, c.name) << c.in;
        std::string extras;
        for (const auto& x : r->extras) extras += (extras.empty() ? "" : ",") + x;
        EXPECT_EQ(extras, c.extras) << c.in;
        EXPECT_EQ(r->specifier.to_string(), c.specifier) << c.in;
        EXPECT_EQ(r->url, c.url) << c.in;
        EXPECT_EQ(r->marker ? r->marker->to_string() : "", c.marker) << c.in;
        EXPECT_EQ(r->to_string(), c.str) << c.in;
        auto again = Requirement::parse(r->to_string());
        ASSERT_TRUE(again) << r->to_string();
        EXPECT_EQ(*again, *r) << "round trip of " << c.in;
    }
}

TEST(Requirement, ErrorsNameTheColumnAndTheProblem) {
    struct Case {
        const char* in;
        const char* key;
        const char* column;
    };
    const Case cases[] = {
        {"", "requirement.expected_name", "1"},
        {">=1.0", "requirement.expected_name", "1"},
        {"-name", "requirement.expected_name", "1"},
        {"name[", "requirement.expected_bracket_close", "6"},
        {"name[foo", "requirement.expected_bracket_close", "9"},
        {"name[foo bar]", "requirement.expected_comma_between_extras", "10"},
        {"name[foo,]", "requirement.expected_extra_after_comma", "10"},
        {"name (>=1.0", "requirement.expected_paren_close_specifier", "12"},
        {"name>=1.0.*", "requirement.wildcard_operator", "10"},
        {"name==1.0a1.*", "requirement.wildcard_operator", "12"},
        {"name>=1.0+local", "requirement.local_operator", "10"},
        {"name @", "requirement.expected_url", "7"},
        {"name>=1.0 foo", "requirement.expected_semicolon_after_specifier", "11"},
        {"name foo", "requirement.expected_semicolon_after_name", "6"},
        {"name>=1.0abc", "requirement.expected_semicolon_after_specifier", "11"},
        {"name~=1", "requirement.expected_semicolon_after_name", "5"},
        {"name @ https://x.whl foo", "requirement.expected_semicolon_after_url", "22"},
        {"name; os_name", "requirement.expected_marker_operator", "14"},
        {"name; ", "requirement.expected_marker_operand", "7"},
        {"name; os_name == 'nt' garbage", "requirement.expected_end", "23"},
        {"name; (os_name == 'nt'", "requirement.expected_paren_close_marker", "23"},
        {"name; os_name not 'x'", "requirement.expected_in_after_not", "19"},
        {"name; os_name == 'a\\N{X}'", "requirement.bad_string", "18"},
        {"name==1.0\n\n", "requirement.expected_semicolon_after_specifier", "10"},
    };
    for (const auto& c : cases) {
        auto r = Requirement::parse(c.in);
        ASSERT_FALSE(r) << c.in;
        EXPECT_EQ(r.error().code, ExitCode::BadInput);
        EXPECT_EQ(r.error().message.key, c.key) << c.in;
        EXPECT_EQ(r.error().message.arg("column"), c.column) << c.in;
        EXPECT_EQ(r.error().message.arg("text"), c.in);
    }
}

TEST(Requirement, AppliesLikePipReadsDependencies) {
    MarkerEnvironment env;
    env.python_version = "3.12";
    env.python_full_version = "3.12.3";
    env.sys_platform = "linux";
    env.platform_system = "Linux";
    auto plain = *Requirement::parse("filelock");
    EXPECT_TRUE(*plain.applies(env));
    auto linux_only = *Requirement::parse("triton==3.3.0; platform_system == 'Linux'");
    EXPECT_TRUE(*linux_only.applies(env));
    auto extra = *Requirement::parse("opt-einsum>=3.3; extra == 'opt-einsum'");
    EXPECT_FALSE(*extra.applies(env));
    std::vector<std::string> wanted{"Opt_Einsum"};
    EXPECT_TRUE(*extra.applies(env, wanted));
    std::vector<std::string> other{"optree"};
    EXPECT_FALSE(*extra.applies(env, other));
    env.extra = "opt-einsum";  // the caller's extra does not leak in when none are requested
    EXPECT_FALSE(*extra.applies(env));
    auto broken = *Requirement::parse("x; os_name ~= 'a'");
    EXPECT_FALSE(broken.applies(env));
}

TEST(Requirement, EqualityIsCanonical) {
    EXPECT_EQ(*Requirement::parse("Typing_Extensions[A]>=1.0"), *Requirement::parse("typing-extensions [a] (>= 1.0.0)"));
    EXPECT_FALSE(*Requirement::parse("a>=1") == *Requirement::parse("a>=2"));
    EXPECT_FALSE(*Requirement::parse("a; os_name=='nt'") == *Requirement::parse("a"));
    EXPECT_EQ(Requirement::parse("Foo.Bar")->canonical_name(), "foo-bar");
}

// Found by tests/fuzz/fuzz_requirement: an extra value with a backslash before a control character.
TEST(Requirement, FuzzRegressionsRoundTrip) {
    const std::string inputs[] = {
        std::string("gdownA (>=2.7.3) ; extra == '!\\\x05\x05'"),
        std::string("a; extra == '\\\x01' and os_name != '\\\\'"),
    };
    for (const auto& in : inputs) {
        auto r = Requirement::parse(in);
        ASSERT_TRUE(r) << in;
        auto again = Requirement::parse(r->to_string());
        ASSERT_TRUE(again) << r->to_string();
        EXPECT_EQ(*again, *r) << in;
    }
}
