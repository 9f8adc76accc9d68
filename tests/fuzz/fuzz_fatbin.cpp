// libFuzzer target for the GPU binary reader: ELF / PE section tables, fatbin containers and
// entries, LZ4 / zstd cubin heads, the primary/extra classification. Any input must give a
// result or an error, never a crash, a hang or an out-of-bounds read. Seed it with the
// fixtures (docs/fuzzing.md):
//   build-fuzz/tests/fuzz/fuzz_fatbin -max_total_time=900 corpus/ tests/fixtures/fatbin/
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "envfix/probe/binary_archs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // The ranges a cold-disk reader is told of lie inside the input (in the order of the walk:
    // each section's after the last of that section, sections in their table's order).
    auto r = envfix::probe::parse_binary_archs(bytes, "fuzz", [&](uint64_t offset, uint64_t length) {
        if (length == 0 || offset >= size || length > size - offset) std::abort();
    });
    if (r) {
        // Exercise the accessors on whatever came out.
        (void)r->arch_list();
        (void)r->extra_sass();
        for (const auto& m : r->problems) (void)envfix::render(m, envfix::Lang::En);
    } else {
        (void)envfix::render(r.error().message, envfix::Lang::Zh);
    }
    return 0;
}
