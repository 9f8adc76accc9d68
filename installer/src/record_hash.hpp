#pragma once
// The digests RECORD rows use (sha256, sha384, sha512), in RECORD's encoding (urlsafe base64
// without padding). OpenSSL's EVP interface; one object per worker thread, reused per file.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace envfix::installer {

class RecordHasher {
public:
    RecordHasher();
    ~RecordHasher();
    RecordHasher(const RecordHasher&) = delete;
    RecordHasher& operator=(const RecordHasher&) = delete;
    // Starts a digest; false for an algorithm RECORD may not use here.
    bool start(std::string_view algorithm);
    void update(std::string_view data);
    std::string finish_b64();  // then start() again

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// sha256 of `data` in RECORD's encoding (generated files, rewritten scripts).
std::string record_sha256(std::string_view data);

// A RECORD sha256 digest (urlsafe base64) as lower-case hex, the snapshots' form; nullopt where
// it is not one.
std::optional<std::string> record_hex(std::string_view digest);

}  // namespace envfix::installer
