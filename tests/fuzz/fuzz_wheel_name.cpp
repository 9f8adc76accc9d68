// Wheel and sdist file names, tag sets: a parsed wheel name written back from its parts parses
// to the same project, version, build and tags.
#include <cstdint>

#include "envfix/standards/wheel_name.hpp"
#include "fuzz_check.hpp"

using namespace envfix::standards;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text = fuzz_text(data, size);
    distribution_kind(text);
    (void)parse_sdist_name(text);
    if (auto tags = parse_tag_set(text)) FUZZ_CHECK(!tags->empty(), text);
    (void)Tag::parse(text);
    auto w = parse_wheel_name(text);
    if (!w) return 0;
    std::string rebuilt = w->name + "-" + w->version.to_string();
    if (w->build) rebuilt += "-" + w->build->number + w->build->suffix;
    rebuilt += "-" + w->tag_text + ".whl";
    // Written back, "+" and "%" must not be taken for escapes again.
    std::string escaped;
    for (char c : rebuilt) escaped += c == '%' ? std::string("%25") : std::string(1, c);
    auto again = parse_wheel_name(escaped);
    FUZZ_CHECK(again.has_value(), text, escaped);
    FUZZ_CHECK(again->canonical_name == w->canonical_name, text, escaped);
    FUZZ_CHECK(again->version == w->version && again->version.to_string() == w->version.to_string(), text, escaped);
    FUZZ_CHECK(again->build == w->build, text, escaped);
    FUZZ_CHECK(again->tags == w->tags, text, escaped);
    for (const auto& t : w->tags) FUZZ_CHECK(Tag::parse(t.to_string()).has_value(), text, t.to_string());
    return 0;
}
