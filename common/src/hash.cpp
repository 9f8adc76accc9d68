#include "envfix/common/hash.hpp"

// The digest itself is platform code: sha256_posix.cpp (OpenSSL), sha256_win32.cpp (Windows CNG).
#include <algorithm>
#include <fstream>
#include <memory>
#include <vector>

#include "envfix/common/fs.hpp"

namespace envfix {

std::string to_hex(const uint8_t* data, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string out(n * 2, '0');
    for (size_t i = 0; i < n; ++i) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    return out;
}

std::string sha256_hex(std::string_view data) {
    Sha256 h;
    h.update(data);
    auto d = h.finish();
    return to_hex(d.data(), d.size());
}

Expected<std::string> sha256_file_hex(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return fail(ExitCode::BadInput, "hash.file_failed", {{"path", p.string()}, {"reason", render(msg("reason.cannot_open"))}});
    Sha256 h;
    // One buffer per thread, not zero-filled: a snapshot hashes 17 000 files on many threads, and
    // a fresh 1 MiB vector each (mapped and unmapped: bound_allocator's threshold, then zeroed page
    // by page) cost seconds of system time in page faults.
    constexpr size_t kBuf = 1 << 20;
    thread_local std::unique_ptr<char[]> buf(new char[kBuf]);
    while (in) {
        in.read(buf.get(), static_cast<std::streamsize>(kBuf));
        if (in.gcount() > 0) h.update(buf.get(), static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) return fail(ExitCode::BadInput, "hash.file_failed", {{"path", p.string()}, {"reason", render(msg("reason.read_error"))}});
    auto d = h.finish();
    return to_hex(d.data(), d.size());
}

std::string base64_urlsafe_nopad(const uint8_t* data, size_t n) {
    static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    out.reserve((n + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t(data[i]) << 16) | (uint32_t(data[i + 1]) << 8) | data[i + 2];
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
        out += tbl[v & 63];
    }
    if (i + 1 == n) {
        uint32_t v = uint32_t(data[i]) << 16;
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
    } else if (i + 2 == n) {
        uint32_t v = (uint32_t(data[i]) << 16) | (uint32_t(data[i + 1]) << 8);
        out += tbl[(v >> 18) & 63];
        out += tbl[(v >> 12) & 63];
        out += tbl[(v >> 6) & 63];
    }
    return out;
}

std::optional<std::string> base64_urlsafe_decode(std::string_view s) {
    auto val = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '-' || c == '+') return 62;
        if (c == '_' || c == '/') return 63;
        return -1;
    };
    while (!s.empty() && s.back() == '=') s.remove_suffix(1);
    if (s.size() % 4 == 1) return std::nullopt;
    std::string out;
    uint32_t acc = 0;
    int bits = 0;
    for (char c : s) {
        int v = val(c);
        if (v < 0) return std::nullopt;
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xFF);
        }
    }
    return out;
}

bool is_sha256_hex(std::string_view s) {
    return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace envfix
