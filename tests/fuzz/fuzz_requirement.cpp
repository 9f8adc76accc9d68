// PEP 508 requirements: printing and parsing again gives an equal requirement.
#include <cstdint>

#include "envfix/standards/requirement.hpp"
#include "fuzz_check.hpp"

using namespace envfix::standards;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text = fuzz_text(data, size);
    auto r = Requirement::parse(text);
    if (!r) {
        FUZZ_CHECK(!r.error().message.arg("column").empty(), text);
        return 0;
    }
    std::string s = r->to_string();
    auto again = Requirement::parse(s);
    FUZZ_CHECK(again.has_value(), text, s);
    FUZZ_CHECK(*again == *r, text, s);
    FUZZ_CHECK(again->to_string() == s, text, s);
    MarkerEnvironment env{"3.12", "3.12.3", "posix", "linux", "6.1", "Linux", "#1", "x86_64", "CPython", "cpython", "3.12.3", ""};
    std::vector<std::string> extras{"cuda"};
    auto a = r->applies(env, extras), b = again->applies(env, extras);
    FUZZ_CHECK(a.has_value() == b.has_value(), text, s);
    if (a) FUZZ_CHECK(*a == *b, text, s);
    return 0;
}
