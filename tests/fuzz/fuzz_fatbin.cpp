// libFuzzer target for the GPU binary reader: ELF / PE section tables, fatbin containers and
// entries, LZ4 / zstd cubin heads, the primary/extra classification. Any input must give a
// result or an error, never a crash, a hang or an out-of-bounds read. Seed it with the
// fixtures (docs/fuzzing.md):
//   build-fuzz/tests/fuzz/fuzz_fatbin -max_total_time=900 corpus/ tests/fixtures/fatbin/
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "envfix/probe/binary_archs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto r = envfix::probe::parse_binary_archs(bytes, "fuzz");
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
