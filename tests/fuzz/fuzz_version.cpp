// PEP 440 versions: parse never fails badly, and parse(to_string(v)) == v with the same text.
#include <cstdint>

#include "envfix/standards/version.hpp"
#include "fuzz_check.hpp"

using envfix::standards::Version;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text = fuzz_text(data, size);
    auto v = Version::try_parse(text);
    auto e = Version::parse(text);
    FUZZ_CHECK(v.has_value() == e.has_value(), text);
    if (!v) return 0;
    std::string s = v->to_string();
    auto again = Version::try_parse(s);
    FUZZ_CHECK(again.has_value(), text, s);
    FUZZ_CHECK(*again == *v, text, s);
    FUZZ_CHECK(again->to_string() == s, text, s);
    FUZZ_CHECK(again->hash() == v->hash(), text, s);
    auto pub = Version::try_parse(v->public_version());
    FUZZ_CHECK(pub && *pub == v->without_local() && !pub->has_local(), text);
    auto base = Version::try_parse(v->base_version());
    FUZZ_CHECK(base && *base == v->base() && !base->is_prerelease() && !base->is_postrelease(), text);
    FUZZ_CHECK(v->without_local() <= *v, text);
    FUZZ_CHECK(v->is_prerelease() == (v->pre_kind().has_value() || v->dev().has_value()), text);
    if (v->has_local()) FUZZ_CHECK(Version::try_parse(v->public_version() + "+" + v->local()) == v, text);
    return 0;
}
