// A large entry's bytes hashed and written behind the thread that pushes them
// (installer/src/write_behind.hpp), as the parallel inflater pushes a library's chunks: 2 MiB
// pieces, 512 MiB a run, into a file in DIR. Wall time, MB/s, where the push waited, the two
// threads' busy time, and the process's context switches (getrusage).
// Usage: build/tests/lowmem/write_behind_bench DIR [RUNS=3] [wide]
// `wide`: the ring widened (HashWriteBehind::widen), as behind a stream lent workers.
// Results: docs/performance.md.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "envfix/common/platform.hpp"
#include "file_ops.hpp"
#include "record_hash.hpp"
#include "write_behind.hpp"

using namespace envfix::installer;

int main(int argc, char** argv) {
    envfix::platform::bound_allocator();  // as envfix's main
    if (argc < 2) {
        std::fprintf(stderr, "usage: write_behind_bench DIR [RUNS] [wide]\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    const int runs = argc > 2 ? std::atoi(argv[2]) : 3;
    const bool wide = argc > 3 && std::string(argv[3]) == "wide";
    std::string data(64u << 20, '\0');
    std::mt19937_64 rng(9);
    for (size_t i = 0; i < data.size(); i += 8) {
        const uint64_t v = rng();
        std::memcpy(data.data() + i, &v, 8);
    }
    for (int run = 0; run < runs; ++run) {
        const auto path = dir / ("write_behind_bench." + std::to_string(run));
        std::filesystem::remove(path);
        auto file = fileops::OutFile::create(path);
        if (!file) return 1;
        RecordHasher hasher;
        hasher.start("sha256");
        rusage r0{}, r1{};
        getrusage(RUSAGE_SELF, &r0);
        const auto t = std::chrono::steady_clock::now();
        {
            HashedOutput out(hasher, *file, true);
            if (wide) out.widen();
            for (int k = 0; k < 8; ++k)
                for (size_t at = 0; at < data.size(); at += 2u << 20)
                    if (!out.push(std::string_view(data).substr(at, 2u << 20))) return 1;
            if (!out.finish()) return 1;
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
            getrusage(RUSAGE_SELF, &r1);
            std::printf("512 MiB: %.3f s, %5.0f MB/s; push waited %4.0f ms; hashing %4.0f ms, writing %4.0f ms; context switches %ld + %ld; %zu slot buffers\n",
                        s, 512 * 1.048576 / s, out.times().waited.count() / 1e6, out.times().hashing.count() / 1e6,
                        out.times().writing.count() / 1e6, r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw, out.times().buffers);
        }
        (void)file->finish(fileops::FileMode::Regular);
        std::filesystem::remove(path);
    }
}
