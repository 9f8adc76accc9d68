// PEP 508 markers: printing and parsing again gives the same marker, evaluated alike.
#include <cstdint>

#include "envfix/standards/marker.hpp"
#include "fuzz_check.hpp"

using namespace envfix::standards;

namespace {
MarkerEnvironment environment(int which) {
    MarkerEnvironment e{"3.12", "3.12.3", "posix", "linux", "6.1.0-18-amd64", "Linux", "#1 SMP", "x86_64", "CPython",
                        "cpython", "3.12.3", ""};
    if (which == 1) e = {"3.10", "3.10.11", "nt", "win32", "10", "Windows", "10.0.19045", "AMD64", "CPython", "cpython", "3.10.11", "cuda"};
    return e;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text = fuzz_text(data, size);
    auto m = Marker::parse(text);
    if (!m) return 0;
    std::string s = m->to_string();
    auto again = Marker::parse(s);
    FUZZ_CHECK(again.has_value(), text, s);
    FUZZ_CHECK(again->to_string() == s, text, s);
    for (int i = 0; i < 2; ++i) {
        auto a = m->evaluate(environment(i)), b = again->evaluate(environment(i));
        FUZZ_CHECK(a.has_value() == b.has_value(), text, s);
        if (a) FUZZ_CHECK(*a == *b, text, s);
    }
    m->variables();
    m->extras();
    return 0;
}
