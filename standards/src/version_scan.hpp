#pragma once
// The PEP 440 grammar as a scanner over part of a larger text, shared by Version::parse, the
// specifier parser and the PEP 508 tokenizer. Private to the resolver.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "envfix/standards/version.hpp"

namespace envfix::standards::detail {

struct ScannedVersion {
    Version version;
    bool release_only = false;  // no pre, post, dev or local part was written
};

struct VersionAccess {
    // Scans one version at s[pos] (no surrounding whitespace), greedily as packaging's
    // VERSION_PATTERN does; on success moves pos past it. allow_local = false stops before
    // "+label" (the ordered operators' grammar has no local part).
    static std::optional<ScannedVersion> scan(std::string_view s, size_t& pos, bool allow_local);

    // Python int semantics on digit strings without leading zeros.
    static int compare_numbers(const std::string& a, const std::string& b);
    static bool same_trimmed_release(const Version& a, const Version& b);
    // Whether v's release, padded with zeros, starts with `prefix` (and the epochs agree).
    static bool release_has_prefix(const Version& v, const Version& prefix, size_t prefix_len);
    static const std::string& epoch_digits(const Version& v) { return v.epoch_; }
    // packaging.utils.canonicalize_version.
    static std::string canonical(const Version& v, bool strip_trailing_zero);
};

}  // namespace envfix::standards::detail
