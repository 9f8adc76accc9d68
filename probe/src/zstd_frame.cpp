// The head of a Zstandard frame through libzstd's streaming decoder: it stops once the output
// buffer is full, so only the first block is decoded. One decoder context per thread, reused.
#include <zstd.h>

#include <memory>

#include "decompress_head.hpp"

namespace envfix::probe {

namespace {
struct DctxFree {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};
ZSTD_DCtx* thread_dctx() {
    thread_local std::unique_ptr<ZSTD_DCtx, DctxFree> ctx(ZSTD_createDCtx());
    return ctx.get();
}
}  // namespace

std::optional<std::string> zstd_frame_head(std::string_view src, size_t want) {
    ZSTD_DCtx* d = thread_dctx();
    if (!d || want == 0) return std::nullopt;
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
    // Frames of hostile inputs may declare huge windows; a cubin's are small.
    ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 27);
    std::string out(want, '\0');
    ZSTD_inBuffer in{src.data(), src.size(), 0};
    ZSTD_outBuffer ob{out.data(), out.size(), 0};
    while (ob.pos < ob.size) {
        const size_t before_in = in.pos, before_out = ob.pos;
        const size_t r = ZSTD_decompressStream(d, &ob, &in);
        if (ZSTD_isError(r)) return std::nullopt;
        if (r == 0 && ob.pos < ob.size) return std::nullopt;         // frame ended first
        if (in.pos == before_in && ob.pos == before_out) return std::nullopt;  // no progress: input ends
    }
    return out;
}

}  // namespace envfix::probe
