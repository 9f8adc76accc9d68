#pragma once
// A digest through Windows CNG (bcrypt.dll), for the Windows build's SHA-256 and RECORD digests
// instead of OpenSSL: part of every Windows 10/11, so envfix.exe links no crypto library.
// Windows only (sha256_win32.cpp, record_hasher_win32.cpp).
#include <cstddef>
#include <cstdint>
#include <string>

namespace envfix {

enum class CngAlgorithm { Sha256, Sha384, Sha512 };

class CngDigest {
public:
    explicit CngDigest(CngAlgorithm a);
    ~CngDigest();
    CngDigest(CngDigest&& o) noexcept;
    CngDigest& operator=(CngDigest&& o) noexcept;
    CngDigest(const CngDigest&) = delete;
    CngDigest& operator=(const CngDigest&) = delete;
    void update(const void* data, size_t n);
    // The digest's bytes; the object then starts a new digest of the same algorithm.
    std::string finish();

private:
    void open();
    CngAlgorithm algorithm_;
    void* hash_ = nullptr;  // BCRYPT_HASH_HANDLE
};

}  // namespace envfix
