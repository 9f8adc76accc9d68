// envfix::parallel_for (common/src/parallel_for.cpp): the installer's file system work and the
// resolver's page fetches share its helper threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "envfix/common/parallel_for.hpp"

using namespace envfix;

TEST(ParallelFor, NestedAndConcurrentCallsEachDoAllTheirWorkAndAThrowIsTheCallers) {
    // Helper threads are kept between calls: calls made from inside another's work or side by
    // side each finish all their items; a share that throws, on any thread, is thrown by the call
    // once no helper is still in its work.
    std::atomic<size_t> done{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&] {
            parallel_for(40, [&](size_t) { parallel_for(50, [&](size_t) { done.fetch_add(1); }, 1); }, 1);
        });
    for (auto& t : callers) t.join();
    EXPECT_EQ(done.load(), 4u * 40 * 50);
    for (size_t bad : {size_t{0}, size_t{7}, size_t{399}}) {
        std::atomic<size_t> ran{0};
        EXPECT_THROW(parallel_for(400, [&](size_t i) {
                         ran.fetch_add(1);
                         if (i == bad) throw std::runtime_error("share " + std::to_string(i));
                     }, 1),
                     std::runtime_error)
            << bad;
        EXPECT_GE(ran.load(), 1u);
    }
}

TEST(ParallelFor, NeverMoreThreadsInItThanAskedAndOneItemRunsOnTheCaller) {
    std::atomic<int> inside{0}, most{0};
    parallel_for(64, [&](size_t) {
        int now = ++inside;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        --inside;
    }, 1, 3);
    EXPECT_GE(most.load(), 1);
    EXPECT_LE(most.load(), 3);
    std::thread::id where;
    parallel_for(1, [&](size_t) { where = std::this_thread::get_id(); }, 1, 4);
    EXPECT_EQ(where, std::this_thread::get_id());
}
