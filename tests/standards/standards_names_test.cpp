// PEP 503 names and wheel escaping.
#include <gtest/gtest.h>

#include "envfix/standards/names.hpp"

using namespace envfix::standards;

TEST(Names, CanonicalizeAsPep503) {
    struct Case {
        const char* in;
        const char* canonical;
        const char* wheel;
    };
    const Case cases[] = {
        {"torch", "torch", "torch"},
        {"Typing_Extensions", "typing-extensions", "typing_extensions"},
        {"zope.interface", "zope-interface", "zope_interface"},
        {"nvidia-cudnn-cu12", "nvidia-cudnn-cu12", "nvidia_cudnn_cu12"},
        {"A__B--C..D", "a-b-c-d", "a_b_c_d"},
        {"a-_.b", "a-b", "a_b"},
        {"PyYAML", "pyyaml", "pyyaml"},
        {"", "", ""},
    };
    for (const auto& c : cases) {
        EXPECT_EQ(canonicalize_name(c.in), c.canonical) << c.in;
        EXPECT_EQ(wheel_escape_name(c.in), c.wheel) << c.in;
    }
}

TEST(Names, Validity) {
    for (const char* ok : {"a", "A1", "torch", "zope.interface", "a-b_c.d", "1a"}) EXPECT_TRUE(is_valid_name(ok)) << ok;
    for (const char* bad : {"", "-a", "a-", "_a", "a.", "a b", "a+b", "é", "a/b"}) EXPECT_FALSE(is_valid_name(bad)) << bad;
    for (const char* ok : {"a", "a-b", "typing-extensions", "a1-2b"}) EXPECT_TRUE(is_normalized_name(ok)) << ok;
    for (const char* bad : {"A", "a_b", "a.b", "a--b", "-a", "a-", ""}) EXPECT_FALSE(is_normalized_name(bad)) << bad;
    auto bad = validated_name("-x");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message.key, "name.invalid");
    EXPECT_EQ(*validated_name("Typing_Extensions"), "typing-extensions");
}
