// METADATA / PKG-INFO / WHEEL files: whatever parses, written back field by field, parses to the
// same fields and body; every Requires-Dist is handled.
#include <cstdint>

#include "envfix/standards/core_metadata.hpp"
#include "fuzz_check.hpp"

using namespace envfix::standards;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text = fuzz_text(data, size);
    auto core = parse_core_metadata(text, "METADATA");
    if (core) (void)parse_requires_dist(*core);
    auto file = parse_metadata_file(text, "METADATA");
    if (!file) {
        FUZZ_CHECK(!core, text);
        return 0;
    }
    FUZZ_CHECK(!file->fields.empty() || !file->body.empty(), text);  // the input was not blank
    std::string written;
    for (const auto& f : file->fields) {
        written += f.name + ": ";
        for (char c : f.value) written += c == '\n' ? std::string("\n        ") : std::string(1, c);
        written += '\n';
    }
    if (!file->body.empty()) written += "\n" + file->body;
    auto again = parse_metadata_file(written, "METADATA");
    FUZZ_CHECK(again.has_value(), text, written);
    FUZZ_CHECK(again->fields.size() == file->fields.size(), text, written);
    for (size_t i = 0; i < file->fields.size(); ++i) {
        FUZZ_CHECK(again->fields[i].name == file->fields[i].name, file->fields[i].name, again->fields[i].name);
        FUZZ_CHECK(again->fields[i].value == file->fields[i].value, file->fields[i].value, again->fields[i].value);
    }
    FUZZ_CHECK(again->body == file->body, file->body, again->body);
    FUZZ_CHECK(again->invalid_utf8_lines.empty(), written);
    return 0;
}
