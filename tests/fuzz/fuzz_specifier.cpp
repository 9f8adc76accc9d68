// PEP 440 specifier sets: the first line is a specifier set, the others versions to match.
// Printing and parsing again gives an equal set that matches the same versions.
#include <cstdint>

#include "envfix/standards/specifier.hpp"
#include "fuzz_check.hpp"

using namespace envfix::standards;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text = fuzz_text(data, size);
    size_t nl = text.find('\n');
    std::string_view spec_text = text.substr(0, nl);
    auto one = Specifier::parse(spec_text);
    if (one) {
        auto again = Specifier::parse(one->to_string());
        FUZZ_CHECK(again && *again == *one, spec_text, one->to_string());
    }
    auto set = SpecifierSet::parse(spec_text);
    if (!set) return 0;
    auto again = SpecifierSet::parse(set->to_string());
    FUZZ_CHECK(again && *again == *set, spec_text, set->to_string());
    FUZZ_CHECK(again->to_string() == set->to_string(), spec_text, set->to_string());
    std::vector<Version> versions;
    for (size_t b = nl; b != std::string_view::npos && b < text.size();) {
        size_t e = text.find('\n', b + 1);
        if (auto v = Version::try_parse(text.substr(b + 1, e == std::string_view::npos ? e : e - b - 1))) versions.push_back(*v);
        b = e;
    }
    for (const char* fixed : {"0", "1.0", "1.0a1", "1.0.post1", "1.0+local", "2.7.0+cu128", "1!1.0.dev1"})
        versions.push_back(*Version::try_parse(fixed));
    for (const auto& v : versions) {
        for (std::optional<bool> pre : {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
            bool c = set->contains(v, pre);
            FUZZ_CHECK(c == again->contains(v, pre), spec_text, v.to_string());
            if (c && v.is_prerelease()) FUZZ_CHECK(pre != false, spec_text, v.to_string());
        }
        FUZZ_CHECK(set->contains(v, true) == (set->select(std::vector<Version>{v}, true).size() == 1), spec_text);
    }
    auto kept = set->select(versions);
    for (size_t i : kept) FUZZ_CHECK(set->contains(versions[i], true), spec_text, versions[i].to_string());
    return 0;
}
