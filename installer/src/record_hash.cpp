// RECORD digests (record_hash.hpp); RecordHasher itself is platform code: record_hasher_posix.cpp
// (OpenSSL EVP), record_hasher_win32.cpp (Windows CNG).
#include "record_hash.hpp"

#include "envfix/common/hash.hpp"
#include "envfix/installer/wheel.hpp"

namespace envfix::installer {

std::string record_sha256(std::string_view data) {
    Sha256 h;
    h.update(data);
    auto d = h.finish();
    return base64_urlsafe_nopad(d.data(), d.size());
}

std::optional<std::string> record_hex(std::string_view digest) {
    if (digest.empty()) return std::nullopt;
    auto raw = base64_urlsafe_decode(digest);
    if (!raw || raw->size() != 32) return std::nullopt;
    return to_hex(reinterpret_cast<const uint8_t*>(raw->data()), raw->size());
}

}  // namespace envfix::installer
