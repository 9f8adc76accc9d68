#include <gtest/gtest.h>

#include "envfix/common/error.hpp"

using namespace envfix;

namespace {
Expected<int> parse_positive(int v) {
    if (v <= 0) return fail(ExitCode::BadInput, "x.bad", {{"v", std::to_string(v)}});
    return v;
}
Expected<int> doubled(int v) {
    ENVFIX_TRY(int x, parse_positive(v));
    return 2 * x;
}
}  // namespace

TEST(Expected, ValueAndErrorPropagate) {
    EXPECT_EQ(*doubled(4), 8);
    auto e = doubled(-1);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().code, ExitCode::BadInput);
    EXPECT_EQ(e.error().message.arg("v"), "-1");
}

TEST(Expected, ValueOrThrowThrowsFailure) {
    try {
        value_or_throw(parse_positive(0));
        FAIL();
    } catch (const Failure& f) {
        EXPECT_EQ(f.code(), ExitCode::BadInput);
    }
}

TEST(ExitCodes, TableHasUniqueCodesAndNames) {
    std::set<int> codes;
    std::set<std::string_view> names;
    for (const auto& i : exit_code_table()) {
        EXPECT_TRUE(codes.insert(static_cast<int>(i.code)).second);
        EXPECT_TRUE(names.insert(i.name).second);
    }
}
