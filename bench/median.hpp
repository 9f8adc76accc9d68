#pragma once
// The median wall time of `runs` calls of `f`, in milliseconds (the in-process benchmarks).
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace envfix::bench {

inline double median_ms(int runs, const std::function<void()>& f) {
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

}  // namespace envfix::bench
