#include <gtest/gtest.h>

#include "envfix/common/hash.hpp"

using namespace envfix;

TEST(Hash, Sha256KnownVectors) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Hash, RecordStyleBase64) {
    Sha256 h;
    h.update("abc");
    auto d = h.finish();
    // What pip writes in RECORD for a file containing "abc".
    EXPECT_EQ(base64_urlsafe_nopad(d.data(), d.size()), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    auto back = base64_urlsafe_decode("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, std::string(reinterpret_cast<const char*>(d.data()), d.size()));
    EXPECT_FALSE(base64_urlsafe_decode("a"));
}
