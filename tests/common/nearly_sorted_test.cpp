// sort_nearly_sorted against std::sort: sorted, nearly sorted, reversed and random inputs.
#include "envfix/common/nearly_sorted.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace envfix {
namespace {

std::vector<std::string> sorted_copy(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

TEST(NearlySorted, SameAsStdSortOnEveryShapeOfInput) {
    std::mt19937 rng(7);
    auto word = [&] {
        std::string s = "torch/";
        const size_t n = rng() % 6;
        for (size_t i = 0; i < n; ++i) s += static_cast<char>('a' + rng() % 4);
        return s;
    };
    for (int round = 0; round < 2000; ++round) {
        std::vector<std::string> v(rng() % 60);
        for (auto& s : v) s = word();
        switch (round % 4) {
            case 0: break;                                   // random
            case 1: std::sort(v.begin(), v.end()); break;    // sorted
            case 2:                                          // sorted, then a few moved or appended
                std::sort(v.begin(), v.end());
                for (int k = 0; k < 3 && !v.empty(); ++k) std::swap(v[rng() % v.size()], v[rng() % v.size()]);
                v.push_back("torch/");
                v.push_back("a");
                break;
            case 3: std::sort(v.rbegin(), v.rend()); break;  // reversed
        }
        auto want = sorted_copy(v);
        sort_nearly_sorted(v, [](const std::string& a, const std::string& b) { return a < b; });
        ASSERT_EQ(v, want) << "round " << round;
    }
}

TEST(NearlySorted, EmptyAndOneElement) {
    std::vector<int> none, one{5};
    sort_nearly_sorted(none, std::less<>());
    sort_nearly_sorted(one, std::less<>());
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(one, std::vector<int>{5});
}

}  // namespace
}  // namespace envfix
