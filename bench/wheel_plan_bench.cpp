// What a warm install's step "wheels opened and planned" spends on one wheel: open_wheel (its
// directory, RECORD and METADATA read) and plan_wheel (every file's destination), timed REPS
// times in one process; the first repetition pays the page faults a real install pays once
// (docs/performance.md, "The sixteenth session").
// Usage: build/tests/lowmem/wheel_plan_bench WHEEL [REPS=5]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "envfix/installer/wheel.hpp"
#include "envfix/installer/wheel_plan.hpp"

using namespace envfix::installer;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: wheel_plan_bench WHEEL [REPS]\n");
        return 2;
    }
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    const InstallScheme scheme{"/venv/lib/python3.11/site-packages", "/venv/lib/python3.11/site-packages", "/venv/bin", "/venv",
                               "/venv/include/site/python3.11"};
    const ScriptTarget target{"/venv/bin/python", {}, 3, 11, ""};
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count() * 1e3; };
    for (int r = 0; r < reps; ++r) {
        const auto a = Clock::now();
        auto wheel = open_wheel(argv[1]);
        if (!wheel) return 1;
        const auto b = Clock::now();
        auto plan = plan_wheel(*wheel, scheme, target, {});
        if (!plan) return 1;
        const auto c = Clock::now();
        std::printf("open %.1f ms, plan %.1f ms, %zu files\n", ms(a, b), ms(b, c), plan->files.size());
    }
    return 0;
}
