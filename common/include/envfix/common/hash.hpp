#pragma once
// SHA-256 (OpenSSL) and the encodings wheels and indexes use.
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"

namespace envfix {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(Sha256&&) noexcept;
    Sha256& operator=(Sha256&&) noexcept;
    void update(const void* data, size_t n);
    void update(std::string_view s) { update(s.data(), s.size()); }
    std::array<uint8_t, 32> finish();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

std::string sha256_hex(std::string_view data);
// 64 lower-case hex digits, as sha256_hex writes: a digest read back from a file names a file
// of a store or a cache, so nothing else may pass.
bool is_sha256_hex(std::string_view s);
Expected<std::string> sha256_file_hex(const std::filesystem::path& p);
std::string to_hex(const uint8_t* data, size_t n);
// RECORD's encoding: urlsafe base64 without '=' padding.
std::string base64_urlsafe_nopad(const uint8_t* data, size_t n);
std::optional<std::string> base64_urlsafe_decode(std::string_view s);

}  // namespace envfix
