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
    static bool same_pre(const Version& a, const Version& b) {
        return a.pre_kind_ == b.pre_kind_ && (!a.pre_kind_ || a.pre_number_ == b.pre_number_);
    }
    static bool same_dev(const Version& a, const Version& b) { return a.dev_ == b.dev_; }
    static bool same_post(const Version& a, const Version& b) { return a.post_ == b.post_; }
    static const std::string& epoch_digits(const Version& v) { return v.epoch_; }
    // V with dev set to 0 and no local part (the lowest pre-release of V's post family).
    static Version with_dev0(const Version& v);
    // packaging.utils.canonicalize_version.
    static std::string canonical(const Version& v, bool strip_trailing_zero);
};

}  // namespace envfix::standards::detail
