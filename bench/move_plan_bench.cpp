// What a warm install's step "moves planned" waits for: tx::plan_moves over every file of a
// stack going into a new, empty venv (docs/performance.md: 14 ms of
// one thread for torch's 17 000 files on the GPU machine, the main thread waiting 9-13 ms of it).
// The files are those of an installed site-packages (SOURCE), named as if under a fresh venv's
// site-packages, grouped by top-level entry and sorted in each, as the install hands them over
// (each wheel's files in order, the wheels one after another). Prints the median of REPS runs
// and the moves planned, so that two builds can be checked to plan the same.
// Usage: build/tests/lowmem/move_plan_bench SITE_PACKAGES [REPS=20]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "tx_internal.hpp"

namespace stdfs = std::filesystem;
using namespace envfix::installer;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: move_plan_bench SITE_PACKAGES [REPS]\n");
        return 2;
    }
    const stdfs::path source = argv[1];
    const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
    const stdfs::path venv = stdfs::temp_directory_path() / ("move-plan-bench-" + std::to_string(::getpid()));
    const stdfs::path site = venv / "lib" / "python3" / "site-packages";
    stdfs::create_directories(site);
    stdfs::create_directories(venv / "bin");

    std::vector<stdfs::path> tops;
    for (const auto& e : stdfs::directory_iterator(source)) tops.push_back(e.path().filename());
    std::sort(tops.begin(), tops.end());
    std::vector<stdfs::path::string_type> add;
    for (const auto& top : tops) {
        std::vector<std::string> rels;
        if (stdfs::is_directory(source / top) && !stdfs::is_symlink(source / top)) {
            for (const auto& e : stdfs::recursive_directory_iterator(source / top))
                if (!e.is_directory()) rels.push_back(e.path().lexically_relative(source).generic_string());
        } else {
            rels.push_back(top.generic_string());
        }
        std::sort(rels.begin(), rels.end());
        for (const auto& r : rels) add.push_back((site / r).native());
    }
    const auto areas = tx::make_areas({venv.string(), site.string(), (venv / "bin").string()}, "bench");

    std::vector<double> ms;
    std::vector<JournalOp> ops;
    for (int r = 0; r < reps; ++r) {
        auto t = std::chrono::steady_clock::now();
        auto planned = tx::plan_moves(areas, {}, add);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
        if (!planned) {
            std::fprintf(stderr, "plan_moves failed\n");
            return 1;
        }
        ops = std::move(*planned);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%zu files, %zu moves planned; plan_moves median %.2f ms (%.2f-%.2f, %d runs)\n", add.size(), ops.size(),
                ms[ms.size() / 2], ms.front(), ms.back(), reps);
    for (const auto& op : ops) std::printf("  %s %u %s\n", op.kind == JournalOp::Kind::In ? "in " : "out", op.area, op.path.c_str());
    stdfs::remove_all(venv);
    return 0;
}
