// RECORD digests through OpenSSL EVP (record_hash.hpp).
#include "record_hash.hpp"

#include <openssl/evp.h>

#include "envfix/common/hash.hpp"
#include "envfix/installer/wheel.hpp"

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
