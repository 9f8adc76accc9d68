// Download throughput of envfix's downloader (network/downloader.hpp), the step before a cold
// install: bench/download_bench.py serves files on 127.0.0.1 and runs this with their URLs.
//   download_bench DEST_DIR PARALLEL URL SHA256 SIZE [URL SHA256 SIZE ...]
// Prints the seconds and MB/s of one download_files() call (every file hashed and flushed).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "envfix/common/reporter.hpp"
#include "envfix/network/downloader.hpp"

int main(int argc, char** argv) {
    if (argc < 6 || (argc - 3) % 3 != 0) {
        std::fprintf(stderr, "usage: download_bench DEST_DIR PARALLEL URL SHA256 SIZE [...]\n");
        return 2;
    }
    std::vector<envfix::network::DownloadItem> items;
    uint64_t total = 0;
    for (int i = 3; i + 2 < argc; i += 3) {
        uint64_t size = std::strtoull(argv[i + 2], nullptr, 10);
        std::string url = argv[i];
        items.push_back({url, argv[i + 1], size, std::string(argv[1]) + "/" + url.substr(url.rfind('/') + 1), ""});
        total += size;
    }
    envfix::NullReporter rep;
    envfix::network::HttpOptions http;
    auto t = std::chrono::steady_clock::now();
    auto results = envfix::network::download_files(items, http, rep, {.parallel = std::atoi(argv[2])});
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    for (const auto& r : results)
        if (!r.ok()) {
            std::fprintf(stderr, "download failed\n");
            return 1;
        }
    std::printf("%zu files, %.0f MB in %.3f s: %.0f MB/s\n", items.size(), total / 1e6, s, total / 1e6 / s);
    return 0;
}
