// How much creating many small files on several threads costs when they all go into one folder
// against spread over several (installer/src/unpacked_cache.cpp, kShards): wall time and the
// process's time in the kernel. docs/performance.md.
//
// Build: g++ -O2 -std=c++20 -pthread bench/dir_contention.cpp -o dir_contention
// Run:   dir_contention DIR THREADS FILES SHARDS [BYTES]   (DIR is made and removed)
#include <sys/resource.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s DIR THREADS FILES SHARDS [BYTES]\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    const unsigned threads = std::stoul(argv[2]);
    const size_t files = std::stoul(argv[3]), shards = std::stoul(argv[4]);
    const size_t bytes = argc > 5 ? std::stoul(argv[5]) : 4096;
    std::filesystem::remove_all(dir);
    for (size_t k = 0; k < shards; ++k) std::filesystem::create_directories(dir / std::to_string(k));
    const std::string data(bytes, 'x');
    rusage before{}, after{};
    getrusage(RUSAGE_SELF, &before);
    const auto t0 = std::chrono::steady_clock::now();
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (size_t i; (i = next.fetch_add(1)) < files;) {
                auto p = dir / std::to_string(i % shards) / std::to_string(i);
                int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
                if (fd < 0 || ::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) std::abort();
                ::close(fd);
            }
        });
    for (auto& t : pool) t.join();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    getrusage(RUSAGE_SELF, &after);
    auto sec = [](const timeval& a, const timeval& b) { return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_usec - a.tv_usec) / 1e3; };
    std::printf("%u threads, %zu files of %zu bytes in %zu folders: %.0f ms wall, %.0f ms in the kernel\n", threads, files, bytes,
                shards, ms, sec(before.ru_stime, after.ru_stime));
    std::filesystem::remove_all(dir);
    return 0;
}
