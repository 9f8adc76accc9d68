// Expected results of the driver check, computed on the host.
#include "envfix/probe/kernel_check.hpp"

namespace envfix::probe::kernel_data {

uint32_t max_elements() {
    // sum of y over n elements = 6 per 4 elements; stay below 2^24.
    return ((1u << 24) - 1) / 6 * 4;
}

namespace {
void record(Outcome& o, uint64_t index, double expected, double got) {
    if (!o.first) o.first = Mismatch{index, expected, got};
    ++o.mismatches;
}
}  // namespace

Outcome check_saxpy(const float* out, uint32_t n) {
    Outcome o;
    for (uint32_t i = 0; i < n; ++i) {
        float want = kA * x(i) + y(i);
        if (out[i] != want) record(o, i, want, out[i]);
    }
    return o;
}

Outcome check_reduce(const float* partials, uint32_t blocks, uint32_t n) {
    Outcome o;
    if (blocks == 0) return o;
    std::vector<double> want(blocks, 0.0);
    // Thread t of block b starts at b*kBlockSize + t and strides by blocks*kBlockSize, so the
    // chunk of kBlockSize elements starting at i belongs to block (i / kBlockSize) % blocks.
    for (uint32_t i = 0; i < n; ++i) want[(i / kBlockSize) % blocks] += y(i);
    for (uint32_t b = 0; b < blocks; ++b)
        if (static_cast<double>(partials[b]) != want[b]) record(o, b, want[b], partials[b]);
    return o;
}

}  // namespace envfix::probe::kernel_data
