// Proposal measured for docs/performance.md ("Peak memory of a cold install"), not built by the
// project: streaming raw-deflate inflate of one wheel entry, zlib against Intel ISA-L (Debian 12:
// libisal-dev 2.30), both through 2 × 128 KiB buffers, as the stager streams entries over 1 MiB.
// Build and run (needs libisal-dev; the wheel from bench/large_entry.sh, its big entry first):
//   g++ -O2 -std=c++20 bench/proposals/isal_inflate_bench.cpp -o /tmp/isal_bench -lisal -lz
//   /tmp/isal_bench /tmp/envfix-large-entry/big-1.0-py3-none-any.whl
#include <isa-l/igzip_lib.h>
#include <zlib.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
#include <cstdint>
static uint16_t u16(const std::string& s, size_t p) { return (unsigned char)s[p] | (unsigned char)s[p+1] << 8; }
static uint32_t u32(const std::string& s, size_t p) { return u16(s,p) | (uint32_t)u16(s,p+2) << 16; }
int main(int argc, char** argv) {
    std::ifstream f(argv[1], std::ios::binary); std::string a((std::istreambuf_iterator<char>(f)), {});
    // first local header: the big entry (bench wheel writes it first)
    size_t n = u16(a, 26), x = u16(a, 28); size_t off = 30 + n + x; size_t csize = u32(a, 18), usize = u32(a, 22);
    std::string_view in(a.data() + off, csize);
    const size_t piece = 128 << 10;
    std::vector<unsigned char> ib(piece), ob(piece);
    for (int rep = 0; rep < 3; ++rep) {
        auto t = std::chrono::steady_clock::now(); size_t out = 0; uint32_t crc = 0;
        z_stream z{}; inflateInit2(&z, -MAX_WBITS); size_t fed = 0; int rc = Z_OK;
        while (rc != Z_STREAM_END) {
            if (z.avail_in == 0) { size_t k = std::min(piece, csize - fed); memcpy(ib.data(), in.data() + fed, k); fed += k; z.next_in = ib.data(); z.avail_in = k; }
            z.next_out = ob.data(); z.avail_out = piece; rc = inflate(&z, Z_NO_FLUSH); out += piece - z.avail_out;
        }
        inflateEnd(&z);
        double s1 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
        t = std::chrono::steady_clock::now(); size_t out2 = 0;
        inflate_state st; isal_inflate_init(&st); st.crc_flag = IGZIP_DEFLATE; fed = 0; int r = ISAL_DECOMP_OK;
        while (st.block_state != ISAL_BLOCK_FINISH) {
            if (st.avail_in == 0 && fed < csize) { size_t k = std::min(piece, csize - fed); memcpy(ib.data(), in.data() + fed, k); fed += k; st.next_in = ib.data(); st.avail_in = k; }
            st.next_out = ob.data(); st.avail_out = piece; r = isal_inflate(&st); out2 += piece - st.avail_out;
            if (r != ISAL_DECOMP_OK) { printf("isal error %d\n", r); return 1; }
        }
        double s2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
        printf("zlib %.2f s %.0f MB/s (%zu)   isa-l %.2f s %.0f MB/s (%zu of %zu), inflate_state %zu bytes\n", s1, out / s1 / 1e6, out, s2, out2 / s2 / 1e6, out2, usize, sizeof(inflate_state));
    }
}
