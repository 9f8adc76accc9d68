// RecordHasher through Windows CNG (record_hash.hpp, cng_digest.hpp; elsewhere
// record_hasher_posix.cpp).
#include <optional>

#include "envfix/common/cng_digest.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/installer/wheel.hpp"
#include "record_hash.hpp"

namespace envfix::installer {

struct RecordHasher::Impl {
    std::optional<CngDigest> digest;
};

RecordHasher::RecordHasher() : impl_(std::make_unique<Impl>()) {}
RecordHasher::~RecordHasher() = default;

bool RecordHasher::start(std::string_view algorithm) {
    if (!record_hash_supported(algorithm)) return false;
    impl_->digest.emplace(algorithm == "sha256"   ? CngAlgorithm::Sha256
                          : algorithm == "sha384" ? CngAlgorithm::Sha384
                                                  : CngAlgorithm::Sha512);
    return true;
}

void RecordHasher::update(std::string_view data) { impl_->digest->update(data.data(), data.size()); }

std::string RecordHasher::finish_b64() {
    auto d = impl_->digest->finish();
    return base64_urlsafe_nopad(reinterpret_cast<const uint8_t*>(d.data()), d.size());
}

}  // namespace envfix::installer
