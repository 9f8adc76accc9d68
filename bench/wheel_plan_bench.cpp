// What a warm install's step "wheels opened and planned" spends: open_wheel (its directory,
// RECORD and METADATA read) and plan_wheel (every file's destination), timed REPS times in one
// process; the first repetition pays the page faults a real install pays once
// (docs/performance.md). Given several wheels, they are opened and
// planned on up to 16 threads at once, one wheel per task, as the install does (its step's wall
// time, and each wheel's own time, the slowest first).
// With --kept UNPACKED_ROOT (the unpacked-wheel cache, `<cache>/unpacked`), each wheel (a file of the
// wheel cache) is opened as a warm install opens it: from the directory kept with its entry.
// Usage: build/tests/lowmem/wheel_plan_bench [--kept UNPACKED_ROOT] WHEEL... [REPS=5]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "envfix/installer/wheel.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "unpacked_store.hpp"

using namespace envfix::installer;

int main(int argc, char** argv) {
    std::vector<std::string> wheels;
    int reps = 5;
    std::string kept;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--kept" && i + 1 < argc) kept = argv[++i];
        else if (a.ends_with(".whl")) wheels.push_back(a);
        else reps = std::atoi(argv[i]);
    }
    if (wheels.empty()) {
        std::fprintf(stderr, "usage: wheel_plan_bench WHEEL... [REPS]\n");
        return 2;
    }
    const InstallScheme scheme{"/venv/lib/python3.11/site-packages", "/venv/lib/python3.11/site-packages", "/venv/bin", "/venv",
                               "/venv/include/site/python3.11"};
    const ScriptTarget target{"/venv/bin/python", {}, 3, 11, ""};
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count() * 1e3; };
    struct Took {
        double open = 0, plan = 0;
        size_t files = 0;
        bool ok = false;
    };
    for (int r = 0; r < reps; ++r) {
        std::vector<Took> took(wheels.size());
        std::vector<WheelFile> opened(wheels.size());
        std::vector<WheelPlan> plans(wheels.size());
        std::atomic<size_t> next{0};
        auto work = [&] {
            for (size_t i; (i = next.fetch_add(1)) < wheels.size();) {
                const auto a = Clock::now();
                std::optional<WheelFile> wheel;
                if (kept.empty()) {
                    if (auto w = open_wheel(wheels[i])) wheel = std::move(*w);
                } else if (auto sha = unpacked::known_sha256(kept, wheels[i])) {
                    wheel = unpacked::load_directory(kept, *sha, wheels[i]);
                }
                if (!wheel) continue;
                const auto b = Clock::now();
                auto plan = plan_wheel(*wheel, scheme, target, {});
                if (!plan) continue;
                took[i] = {ms(a, b), ms(b, Clock::now()), plan->files.size(), true};
                opened[i] = std::move(*wheel);  // freed after the timing, as the install frees them later
                plans[i] = std::move(*plan);
            }
        };
        const auto start = Clock::now();
        std::vector<std::thread> pool;
        for (size_t t = 1; t < std::min<size_t>(16, wheels.size()); ++t) pool.emplace_back(work);
        work();
        for (auto& t : pool) t.join();
        const double wall = ms(start, Clock::now());
        if (std::any_of(took.begin(), took.end(), [](const Took& t) { return !t.ok; })) return 1;
        std::vector<size_t> order(wheels.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return took[a].open + took[a].plan > took[b].open + took[b].plan; });
        if (wheels.size() == 1) {
            std::printf("open %.1f ms, plan %.1f ms, %zu files\n", took[0].open, took[0].plan, took[0].files);
            continue;
        }
        size_t files = 0;
        for (const auto& t : took) files += t.files;
        const auto& top = took[order[0]];
        std::printf("%zu wheels, %zu files: %.1f ms wall; slowest %s open %.1f + plan %.1f ms\n", wheels.size(), files, wall,
                    wheels[order[0]].substr(wheels[order[0]].find_last_of('/') + 1).c_str(), top.open, top.plan);
    }
    return 0;
}
