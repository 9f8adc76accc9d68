// Transaction journals read back from an environment (docs/security.md): a journal that parses
// has only relative, plain operation paths with areas in range, and writes back to the same
// journal.
#include <cstdint>

#include "envfix/common/beneath.hpp"
#include "envfix/installer/journal.hpp"
#include "fuzz_check.hpp"

using namespace envfix;
using namespace envfix::installer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text = fuzz_text(data, size);
    auto j = parse_journal(text, "fuzz");
    if (!j) return 0;
    for (const auto& op : j->ops) {
        FUZZ_CHECK(op.area < j->areas.size(), text);
        FUZZ_CHECK(fs::plain_relative(op.path), text, op.path);
    }
    const std::string again = journal_to_json(*j);
    auto k = parse_journal(again, "fuzz");
    FUZZ_CHECK(k.has_value(), text, again);
    FUZZ_CHECK(k->id == j->id && k->state == j->state && k->areas == j->areas && k->ops == j->ops && k->summary == j->summary, text, again);
    return 0;
}
