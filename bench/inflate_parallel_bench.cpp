// One large file deflated (raw, as in a wheel), then inflated by one zlib stream, by ISA-L where
// the build has it (through stream_zip_entry, as a large wheel entry is), and by the parallel
// inflater (wheel/src/inflate_parallel.hpp) with 1..N workers: MB/s of output and CPU time.
// Usage: build/tests/lowmem/inflate_parallel_bench FILE [LEVEL=6] [CHUNK_KIB=512] [MAX_THREADS=4]
//   [ONLY_PARALLEL=1: the parallel inflater alone, for a profile; MIN_THREADS=N: from N workers;
//    HANDOVER=F: also ISA-L taken over by MAX_THREADS workers once F of the stream is decoded]
// Results: docs/inflate-parallel.md; docs/performance.md.
#include <sys/resource.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>

#include "envfix/common/exit_codes.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/wheel/zip_read.hpp"
#include "inflate_parallel.hpp"

using namespace envfix;
using namespace envfix::wheel;

namespace {

double cpu_now() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

long faults_now() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return r.ru_minflt;
}

void timed(const char* what, size_t bytes, const std::function<void()>& f) {
    const double c0 = cpu_now();
    const long f0 = faults_now();
    auto t = std::chrono::steady_clock::now();
    f();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    std::printf("%-34s %7.3f s wall %7.3f s CPU %8.0f MB/s %7ld page faults\n", what, wall, cpu_now() - c0, bytes / wall / 1e6,
                faults_now() - f0);
}

}  // namespace

int main(int argc, char** argv) {
    envfix::platform::bound_allocator();  // as envfix's main: blocks of 256 KiB and more mapped and unmapped
    if (argc < 2) {
        std::fprintf(stderr, "usage: inflate_parallel_bench FILE [LEVEL] [CHUNK_KIB] [MAX_THREADS]\n");
        return 2;
    }
    const int level = argc > 2 ? std::atoi(argv[2]) : 6;
    const size_t chunk = (argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 512) << 10;
    const unsigned max_threads = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : 4;
    std::ifstream f(argv[1], std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string data = ss.str();
    std::string c(compressBound(static_cast<uLong>(data.size())) + 1024, '\0');
    {
        z_stream z{};
        deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
        z.avail_in = static_cast<uInt>(data.size());
        z.next_out = reinterpret_cast<Bytef*>(c.data());
        z.avail_out = static_cast<uInt>(c.size());
        deflate(&z, Z_FINISH);
        c.resize(z.total_out);
        deflateEnd(&z);
    }
    std::printf("%s: %.1f MB, deflated at level %d to %.1f MB; chunks of %zu KiB\n", argv[1], data.size() / 1e6, level, c.size() / 1e6,
                chunk >> 10);
    std::string out(data.size(), '\0');
    const char* only = std::getenv("ONLY_PARALLEL");
    const bool only_parallel = only && std::string_view(only) == "1";  // for a profile of the parallel inflater alone
    if (!only_parallel) timed("zlib, one stream", data.size(), [&] {
        z_stream z{};
        inflateInit2(&z, -MAX_WBITS);
        z.next_in = reinterpret_cast<Bytef*>(c.data());
        z.avail_in = static_cast<uInt>(c.size());
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        inflate(&z, Z_FINISH);
        inflateEnd(&z);
    });
    if (!only_parallel && out != data) std::printf("  zlib output differs!\n");
    wheel::ZipEntry e;
    e.name = "lib.so";
    e.method = 8;
    e.compressed_size = c.size();
    e.size = data.size();
    e.crc32 = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    e.data_offset = 0;
    wheel::ZipReadAt read = [&](uint64_t off, char* into, size_t n) -> Expected<size_t> {
        n = static_cast<size_t>(std::min<uint64_t>(n, c.size() - std::min<uint64_t>(off, c.size())));
        std::memcpy(into, c.data() + off, n);
        return n;
    };
    std::vector<char> bin(128u << 10), bout(128u << 10);
    size_t at = 0;
    if (!only_parallel)
        timed("wheel::stream_zip_entry (ISA-L or zlib)", data.size(), [&] {
            auto r = wheel::stream_zip_entry(e, "bench", read, bin, bout, [&](std::string_view s) -> Expected<void> {
                std::memcpy(out.data() + at, s.data(), s.size());
                at += s.size();
                return {};
            });
            if (!r) std::printf("  failed\n");
        });
    // HANDOVER=F: the stream on one thread (ISA-L) until F of its compressed bytes are decoded,
    // then MAX_THREADS workers from its next block boundary (stream_zip_entry_handing_over, as a
    // switch's libtorch_cuda.so once libtorch_cpu.so's workers are free).
    if (const char* h = std::getenv("HANDOVER")) {
        const double fraction = std::atof(h);
        unsigned by = 0;
        uint64_t joined = 0;
        at = 0;
        std::memset(out.data(), 0, out.size());
        char label[64];
        std::snprintf(label, sizeof label, "one stream, %u workers from %.0f%%", max_threads, fraction * 100);
        timed(label, data.size(), [&] {
            auto r = wheel::stream_zip_entry_handing_over(
                e, "bench", read, bin, bout,
                wheel::ZipLendWorkers{[&](uint64_t decoded) -> unsigned {
                                          if (static_cast<double>(decoded) < fraction * static_cast<double>(c.size())) return 0;
                                          joined = decoded;
                                          return max_threads;
                                      },
                                      [&] { std::printf("  no block boundary within 1 MiB: not handed over\n"); }},
                [&](std::string_view s) -> Expected<void> {
                    std::memcpy(out.data() + at, s.data(), s.size());
                    at += s.size();
                    return {};
                });
            if (r)
                by = *r;
            else
                std::printf("  failed\n");
        });
        std::printf("  taken over by %u workers at %.1f MB of %.1f MB compressed%s\n", by, joined / 1e6, c.size() / 1e6,
                    out == data ? "" : "; OUTPUT DIFFERS");
    }
    const char* min = std::getenv("MIN_THREADS");
    for (unsigned t = min ? static_cast<unsigned>(std::atoi(min)) : 1; t <= max_threads; ++t) {
        at = 0;
        wheel::pinflate::Stats st;
        char label[64];
        std::snprintf(label, sizeof label, "parallel, %u workers", t);
        std::memset(out.data(), 0, out.size());
        timed(label, data.size(), [&] {
            auto r = wheel::pinflate::inflate(
                c.size(), read,
                [&](std::string_view s) -> Expected<void> {
                    std::memcpy(out.data() + at, s.data(), s.size());
                    at += s.size();
                    return {};
                },
                [](std::string w) {
                    return make_error(ExitCode::BadWheel, "zip.data_mismatch", {{"what", w}});
                },
                {.threads = t, .chunk = chunk});
            if (r)
                st = *r;
            else
                std::printf("  failed\n");
        });
        std::printf("  %zu chunks, %zu taken, %zu redone%s\n", st.chunks, st.taken, st.redone, out == data ? "" : "; OUTPUT DIFFERS");
    }
}
