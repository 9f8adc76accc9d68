// The flush (fsync) of one 64 MiB file while other threads write files and start their writeback
// (sync_file_range), as the unpacking does beside the downloads: docs/performance.md, "Inflating
// while downloading". Build and run (no envfix needed):
//   g++ -O2 -pthread -o /tmp/fsync_latency bench/fsync_latency.cpp && /tmp/fsync_latency DIR 0 && /tmp/fsync_latency DIR 2
#include <fcntl.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>
#include <atomic>
int main(int argc, char** argv) {
    const char* dir = argv[1];
    int writers = atoi(argv[2]);
    std::vector<char> buf(1 << 20, 'x');
    for (size_t i = 0; i < buf.size(); ++i) buf[i] = char(i * 7 + i / 4096);
    std::atomic<bool> go{true};
    std::vector<std::thread> ts;
    for (int w = 0; w < writers; ++w)
        ts.emplace_back([&, w] {
            for (int f = 0; go; ++f) {
                std::string p = std::string(dir) + "/w" + std::to_string(w) + "_" + std::to_string(f);
                int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                for (int k = 0; k < 256 && go; ++k) write(fd, buf.data(), buf.size());
                sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
                close(fd);
                unlink(p.c_str());
            }
        });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    for (int r = 0; r < 5; ++r) {
        std::string p = std::string(dir) + "/part" + std::to_string(r);
        int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        for (int k = 0; k < 64; ++k) write(fd, buf.data(), buf.size());
        auto t0 = std::chrono::steady_clock::now();
        fsync(fd);
        auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        printf("writers=%d fsync of 64 MiB: %.0f ms\n", writers, ms);
        close(fd);
        unlink(p.c_str());
    }
    go = false;
    for (auto& t : ts) t.join();
}
