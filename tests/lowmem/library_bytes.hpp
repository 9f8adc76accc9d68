#pragma once
// Test payloads shaped like shared libraries: pseudo-random bytes with some repetition, which
// deflate shrinks a little, as it does real libraries.
#include <cstdint>
#include <string>

namespace envfix::test {

inline std::string library_bytes(size_t n, uint32_t seed) {
    std::string s(n, '\0');
    uint32_t x = seed | 1;
    for (size_t i = 0; i < n; ++i) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        s[i] = static_cast<char>((i % 64 < 40) ? (x & 0x0f) : (x & 0xff));
    }
    return s;
}

}  // namespace envfix::test
