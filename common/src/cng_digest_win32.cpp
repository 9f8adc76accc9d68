// Digests through Windows CNG (cng_digest.hpp).
#include "envfix/common/cng_digest.hpp"

#include <windows.h>
// bcrypt.h uses windows.h's types.
#include <bcrypt.h>

#include <stdexcept>
#include <utility>

namespace envfix {
namespace {

// One provider per algorithm for the process: opening one loads and initialises the algorithm
// (much slower than creating a hash object), and a provider handle may be shared by threads.
BCRYPT_ALG_HANDLE provider(CngAlgorithm a) {
    static auto open_one = [](LPCWSTR id) {
        BCRYPT_ALG_HANDLE h = nullptr;
        if (!BCRYPT_SUCCESS(BCryptOpenAlgorithmProvider(&h, id, nullptr, 0)))
            throw std::runtime_error("BCryptOpenAlgorithmProvider failed");
        return h;
    };
    switch (a) {
        case CngAlgorithm::Sha384: {
            static BCRYPT_ALG_HANDLE h = open_one(BCRYPT_SHA384_ALGORITHM);
            return h;
        }
        case CngAlgorithm::Sha512: {
            static BCRYPT_ALG_HANDLE h = open_one(BCRYPT_SHA512_ALGORITHM);
            return h;
        }
        default: {
            static BCRYPT_ALG_HANDLE h = open_one(BCRYPT_SHA256_ALGORITHM);
            return h;
        }
    }
}

size_t digest_size(CngAlgorithm a) { return a == CngAlgorithm::Sha256 ? 32 : a == CngAlgorithm::Sha384 ? 48 : 64; }

}  // namespace

CngDigest::CngDigest(CngAlgorithm a) : algorithm_(a) { open(); }

CngDigest::~CngDigest() {
    if (hash_) BCryptDestroyHash(hash_);
}

CngDigest::CngDigest(CngDigest&& o) noexcept : algorithm_(o.algorithm_), hash_(std::exchange(o.hash_, nullptr)) {}

CngDigest& CngDigest::operator=(CngDigest&& o) noexcept {
    if (this != &o) {
        if (hash_) BCryptDestroyHash(hash_);
        algorithm_ = o.algorithm_;
        hash_ = std::exchange(o.hash_, nullptr);
    }
    return *this;
}

void CngDigest::open() {
    // The object's memory is CNG's own (Windows 7 and later allocate it when given none).
    BCRYPT_HASH_HANDLE h = nullptr;
    if (!BCRYPT_SUCCESS(BCryptCreateHash(provider(algorithm_), &h, nullptr, 0, nullptr, 0, 0)))
        throw std::runtime_error("BCryptCreateHash failed");
    hash_ = h;
}

void CngDigest::update(const void* data, size_t n) {
    // BCryptHashData takes a ULONG length: large buffers go in pieces.
    auto p = static_cast<const unsigned char*>(data);
    while (n > 0) {
        ULONG part = n > 0x40000000 ? 0x40000000 : static_cast<ULONG>(n);
        BCryptHashData(hash_, const_cast<PUCHAR>(p), part, 0);
        p += part;
        n -= part;
    }
}

std::string CngDigest::finish() {
    std::string out(digest_size(algorithm_), '\0');
    BCryptFinishHash(hash_, reinterpret_cast<PUCHAR>(out.data()), static_cast<ULONG>(out.size()), 0);
    BCryptDestroyHash(hash_);
    hash_ = nullptr;
    open();
    return out;
}

}  // namespace envfix
