// RecordHasher through OpenSSL EVP (record_hash.hpp; Windows: record_hasher_win32.cpp).
#include <openssl/evp.h>

#include "envfix/common/hash.hpp"
#include "envfix/installer/wheel.hpp"
#include "record_hash.hpp"

namespace envfix::installer {

struct RecordHasher::Impl {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Impl() { EVP_MD_CTX_free(ctx); }
};

RecordHasher::RecordHasher() : impl_(std::make_unique<Impl>()) {}
RecordHasher::~RecordHasher() = default;

bool RecordHasher::start(std::string_view algorithm) {
    if (!record_hash_supported(algorithm)) return false;
    const EVP_MD* md = algorithm == "sha256" ? EVP_sha256() : algorithm == "sha384" ? EVP_sha384() : EVP_sha512();
    return EVP_DigestInit_ex(impl_->ctx, md, nullptr) == 1;
}

void RecordHasher::update(std::string_view data) { EVP_DigestUpdate(impl_->ctx, data.data(), data.size()); }

std::string RecordHasher::finish_b64() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_DigestFinal_ex(impl_->ctx, out, &len);
    return base64_urlsafe_nopad(out, len);
}

}  // namespace envfix::installer
