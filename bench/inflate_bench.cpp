// One large wheel entry (libcublasLt, 541 MB, as in torch's stack) inflated four ways, to weigh
// bounded memory against speed (docs/performance.md, "Peak memory of a cold install"):
//   libdeflate whole into one buffer of the entry's size (the old path, from memory);
//   zlib streamed through two 128 KiB buffers (stream_zip_entry, from memory), as the stager does;
//   the stager writing the file: streamed (the default above 1 MiB) with its hashing and writing
//   behind the inflate (the default from 16 MiB) or inline, and whole (threshold raised).
// Usage: inflate_bench WHEEL OUT_DIR      (bench/large_entry.sh makes the wheel and runs it)
#include <chrono>
#include <cstring>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "envfix/installer/wheel.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "stager.hpp"

using namespace envfix;
using namespace envfix::installer;

namespace {

double seconds_of(const std::function<void()>& f) {
    auto t = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void report(const char* what, double s, uint64_t bytes) {
    std::printf("%-52s %7.2f s  %7.0f MB/s (uncompressed)\n", what, s, static_cast<double>(bytes) / s / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: inflate_bench WHEEL OUT_DIR\n");
        return 2;
    }
    auto w = open_wheel(argv[1]);
    if (!w) {
        std::fprintf(stderr, "%s\n", render(w.error().message, Lang::En).c_str());
        return 1;
    }
    size_t largest = w->files.front();
    for (size_t i : w->files)
        if (w->zip.entries[i].size > w->zip.entries[largest].size) largest = i;
    const wheel::ZipEntry& e = w->zip.entries[largest];
    std::printf("%s: %s, %.0f MB, compressed %.0f MB\n", w->source().c_str(), e.name.c_str(), e.size / 1e6, e.compressed_size / 1e6);
    std::string_view archive = w->bytes();
    volatile size_t sink_bytes = 0;
    bool ok = true;
    for (int rep = 0; rep < 2; ++rep) {
        {
            std::vector<char> out(e.size);
            wheel::ZipInflater z;
            report("libdeflate, whole entry into memory", seconds_of([&] { ok &= bool(z.inflate(archive, e, w->source(), out.data())); }), e.size);
        }
        {
            std::vector<char> in(128u << 10), out(128u << 10);
            auto read = [&](uint64_t off, char* into, size_t n) -> Expected<size_t> {
                n = std::min<size_t>(n, archive.size() - off);
                std::memcpy(into, archive.data() + off, n);
                return n;
            };
            report("zlib, streamed through 2 x 128 KiB", seconds_of([&] {
                       ok &= bool(wheel::stream_zip_entry(e, w->source(), read, in, out, [&](std::string_view c) -> Expected<void> {
                           sink_bytes = sink_bytes + c.size();
                           return {};
                       }));
                   }),
                   e.size);
        }
        // Streamed with the hashing and writing behind it (the default), streamed with both inline
        // on the inflating thread (as before write_behind.hpp), and whole.
        struct Way {
            const char* what;
            size_t whole_up_to;
            uint64_t write_behind_from;
        };
        for (const Way& way : {Way{"stager: streamed, hash + write behind (default)", 0, 0},
                               Way{"stager: streamed, hash + write inline", 0, UINT64_MAX},
                               Way{"stager: libdeflate whole, hash, write", static_cast<size_t>(e.size), 0}}) {
            PlannedFile f;
            f.entry = largest;
            auto out = std::filesystem::path(argv[2]) / "staged.so";
            std::filesystem::remove(out);
            std::vector<StageItem> items{{&*w, &f, out, {}}};
            StageOptions o;
            o.whole_up_to = way.whole_up_to;
            o.write_behind_from = way.write_behind_from;
            report(way.what, seconds_of([&] { ok &= bool(stage_items(items, o)); }), e.size);
            std::filesystem::remove(out);
        }
    }
    if (!ok) std::fprintf(stderr, "a read failed\n");
    return ok ? 0 : 1;
}
