#pragma once
// A property that must hold for every input: on failure, say which and stop (libFuzzer keeps the
// input as a crash).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond, ...)                                                                 \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond); \
            envfix_fuzz_detail(__VA_ARGS__);                                                  \
            std::abort();                                                                     \
        }                                                                                     \
    } while (0)

inline void envfix_fuzz_detail() {}
inline void envfix_fuzz_detail(std::string_view a, std::string_view b = {}) {
    std::fprintf(stderr, "  [%.*s]\n  [%.*s]\n", static_cast<int>(a.size()), a.data(), static_cast<int>(b.size()), b.data());
}

inline std::string_view fuzz_text(const unsigned char* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}
