// SHA-256 through OpenSSL (hash.hpp; Windows: sha256_win32.cpp).
#include "envfix/common/hash.hpp"

// OpenSSL's SHA-256 functions themselves, not EVP: the same code (SHA-NI where the CPU has it,
// 1.4 GB/s here either way), without EVP's setup on first use (its configuration file read, its
// providers loaded: 0.9 ms of every command that hashes anything, a warm install's cache keys
// first). Deprecated in OpenSSL 3.0, still in 4.0.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <memory>

namespace envfix {

struct Sha256::Impl {
    SHA256_CTX ctx;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) { SHA256_Init(&impl_->ctx); }
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(const void* data, size_t n) { SHA256_Update(&impl_->ctx, data, n); }

std::array<uint8_t, 32> Sha256::finish() {
    std::array<uint8_t, 32> out{};
    SHA256_Final(out.data(), &impl_->ctx);
    SHA256_Init(&impl_->ctx);  // reusable after finish
    return out;
}

}  // namespace envfix
