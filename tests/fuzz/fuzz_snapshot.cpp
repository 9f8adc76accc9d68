// Snapshot files read back from an environment (docs/security.md): a snapshot that parses names
// only store objects by a 64-digit lower-case hex digest and only relative, plain paths, and
// writes back to the same snapshot.
#include <cstdint>

#include "envfix/common/beneath.hpp"
#include "envfix/installer/snapshot.hpp"
#include "fuzz_check.hpp"

using namespace envfix;
using namespace envfix::installer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text = fuzz_text(data, size);
    auto s = parse_snapshot(text, "fuzz");
    if (!s) return 0;
    for (const auto& f : s->files) {
        FUZZ_CHECK(f.sha256.size() == 64, text, f.sha256);
        for (char c : f.sha256) FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'), text, f.sha256);
        FUZZ_CHECK(fs::plain_relative(f.path), text, f.path);
    }
    const std::string again = snapshot_to_text(*s);
    auto t = parse_snapshot(again, "fuzz");
    FUZZ_CHECK(t.has_value(), text, again);
    FUZZ_CHECK(t->files == s->files && t->dists == s->dists && t->id == s->id, text, again);
    return 0;
}
