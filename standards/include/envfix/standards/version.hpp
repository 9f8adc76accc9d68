#pragma once
// PEP 440 versions: parsed, normalised and ordered exactly as packaging.version.Version does
// (epochs, pre/post/dev releases, local labels such as "2.7.0+cu128"). Pure; no I/O.
//
//   auto v = Version::parse("2.7.0+cu128");      // Expected<Version>
//   v->public_version() == "2.7.0"; v->local() == "cu128";
//   Version::parse("1.0RC1")->to_string() == "1.0rc1";
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::standards {

// Pre-release kinds, in their sort order (a < b < rc). "alpha", "beta", "c", "pre" and
// "preview" are other spellings of these.
enum class PreKind : uint8_t { Alpha, Beta, Rc };

namespace detail {
struct VersionAccess;
}

class Version {
public:
    // Every spelling PEP 440 accepts: any case, a leading "v", "-", "_" or "." between parts,
    // "1.0-1" (post), "1.0.post" (post0), surrounding whitespace. Anything else (legacy versions
    // like "1.0-foo") fails with ExitCode::BadInput, key "version.invalid".
    static Expected<Version> parse(std::string_view text);
    // The same without building an error message (index pages hold thousands of versions).
    static std::optional<Version> try_parse(std::string_view text);
    Version() = default;  // "0"

    // Normalised form: "1!2.0rc1.post2.dev3+cu128" (release kept as written: "1.0.0" stays).
    std::string to_string() const;
    std::string public_version() const;  // to_string() without "+local"
    std::string base_version() const;  // epoch and release only: "1!2.0"
    std::string local() const;  // normalised local label ("cu128"), "" when none
    bool has_local() const { return !local_.empty(); }

    // Numbers are exact in comparisons at any length; these accessors saturate at UINT64_MAX.
    uint64_t epoch() const;
    size_t release_size() const { return release_.size(); }
    uint64_t release(size_t i) const;  // 0 past the end
    uint64_t major() const { return release(0); }
    uint64_t minor() const { return release(1); }
    uint64_t micro() const { return release(2); }
    std::optional<PreKind> pre_kind() const { return pre_kind_; }
    std::optional<uint64_t> pre_number() const;
    std::optional<uint64_t> post() const;
    std::optional<uint64_t> dev() const;

    bool is_prerelease() const { return pre_kind_.has_value() || dev_.has_value(); }
    bool is_postrelease() const { return post_.has_value(); }
    bool is_devrelease() const { return dev_.has_value(); }

    Version without_local() const;  // the public version as a Version
    Version base() const;  // epoch and release only

    // packaging's order: epoch, release (trailing zeros ignored), then 1.0.dev0 < 1.0a1 <
    // 1.0 < 1.0+local < 1.0.post1; local labels compare part by part (numbers numerically,
    // letters before numbers, shorter first). "1.0" == "1.0.0"; "1.0+abc.7" == "1.0+abc.007".
    std::strong_ordering operator<=>(const Version& o) const;
    bool operator==(const Version& o) const { return (*this <=> o) == 0; }
    size_t hash() const;  // equal versions hash equally

private:
    friend struct detail::VersionAccess;
    struct LocalPart {
        bool numeric = false;
        std::string text;  // digits without leading zeros, or lower-case letters and digits
    };
    // Numbers are decimal digit strings without leading zeros ("0" for zero): arbitrary size,
    // like Python's integers.
    std::string epoch_ = "0";
    std::vector<std::string> release_{"0"};
    std::optional<PreKind> pre_kind_;
    std::string pre_number_;
    std::optional<std::string> post_;
    std::optional<std::string> dev_;
    std::vector<LocalPart> local_;
};

}  // namespace envfix::standards

template <>
struct std::hash<envfix::standards::Version> {
    size_t operator()(const envfix::standards::Version& v) const noexcept { return v.hash(); }
};
