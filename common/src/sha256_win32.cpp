// SHA-256 through Windows CNG (hash.hpp, cng_digest.hpp; elsewhere sha256_posix.cpp).
#include <cstring>
#include <memory>

#include "envfix/common/cng_digest.hpp"
#include "envfix/common/hash.hpp"

namespace envfix {

struct Sha256::Impl {
    CngDigest digest{CngAlgorithm::Sha256};
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {}
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(const void* data, size_t n) { impl_->digest.update(data, n); }

std::array<uint8_t, 32> Sha256::finish() {
    std::array<uint8_t, 32> out{};
    auto d = impl_->digest.finish();  // reusable after finish, as the OpenSSL one
    std::memcpy(out.data(), d.data(), out.size());
    return out;
}

}  // namespace envfix
