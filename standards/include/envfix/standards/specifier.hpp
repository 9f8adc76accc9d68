#pragma once
// PEP 440 version specifiers ("~=2.7", "==2.7.*", "!=2.7.1", ">=2.6,<2.8", "===foo") and sets of
// them, with packaging's matching rules. Pure; no I/O.
//
//   auto set = SpecifierSet::parse(">=2.6,<2.8");
//   set->contains(*Version::parse("2.7.0+cu128"));          // true
//   set->filter(candidates);                                 // PEP 440 pre-release rule
//
// Matching follows PEP 440 as packaging 26 implements it:
//  - "==2.7.0" matches 2.7.0+cu128 (local labels ignored unless the specifier has one);
//    "==2.7.0+cu128" matches only that local version; "==2.7.*" matches 2.7 and anything
//    starting with it (2.7.1, 2.7.0rc1, 2.7.0+cpu); "~=2.7.1" is ">=2.7.1, ==2.7.*".
//  - "<V" excludes pre-releases of V unless V is one ("<2.0" excludes 2.0rc1); ">V" excludes
//    V's post-releases and local versions unless V is a post-release (">1.7" excludes
//    1.7.post1 and 1.7+cu128, not 1.7.1).
//  - "===" compares the normalised version text, case-insensitively.
// Pre-releases: contains(v) accepts a pre-release only when asked (prereleases = true) or when
// a specifier names one (">=2.8.0rc1"); filter() also takes pre-releases when no final release
// matches (PEP 440). docs/standards.md lists where this differs from pip and packaging.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::standards {

enum class SpecOp : uint8_t { Compatible, Equal, NotEqual, LessEqual, GreaterEqual, Less, Greater, Arbitrary };
std::string_view op_text(SpecOp op);  // "~=", "==", ...

class Specifier {
public:
    // One operator and version; surrounding whitespace allowed. Errors: ExitCode::BadInput, keys
    // "specifier.invalid", "specifier.bad_version", "specifier.wildcard_not_allowed",
    // "specifier.local_not_allowed", "specifier.compatible_needs_two".
    static Expected<Specifier> parse(std::string_view text);

    SpecOp op() const { return op_; }
    const std::string& version_text() const { return text_; }  // as written: "2.7.*", "v1.0"
    bool is_wildcard() const { return wildcard_; }
    // The parsed version (without ".*"); nullopt only for "===" with a non-PEP 440 string.
    const std::optional<Version>& version() const { return version_; }
    std::string to_string() const;  // operator + version as written, no spaces: ">=1.0"

    // Whether v satisfies the operator; pre-release policy not applied.
    bool matches(const Version& v) const;
    // matches(), and v is not a pre-release unless allowed: prereleases, else implied_prereleases().
    bool contains(const Version& v, std::optional<bool> prereleases = std::nullopt) const;
    // The specifier names a pre-release (every operator but "!=" and "==X.*").
    bool implies_prereleases() const;

    // Same operator and same version once normalised (trailing ".0" ignored except for "~=").
    bool operator==(const Specifier& o) const;

private:
    Specifier() = default;  // made by parse() only: a specifier always has a version text
    SpecOp op_ = SpecOp::Equal;
    std::string text_;
    bool wildcard_ = false;
    std::optional<Version> version_;
};

class SpecifierSet {
public:
    // Comma-separated specifiers; "" (or only whitespace) is the set that matches everything.
    // Errors as Specifier::parse.
    static Expected<SpecifierSet> parse(std::string_view text);
    SpecifierSet() = default;
    explicit SpecifierSet(std::vector<Specifier> specs) : specs_(std::move(specs)) {}

    const std::vector<Specifier>& specifiers() const { return specs_; }
    bool empty() const { return specs_.empty(); }
    size_t size() const { return specs_.size(); }

    // An explicit pre-release decision for this set (pip's --pre), overriding what the
    // specifiers imply; nullopt by default.
    std::optional<bool> prereleases() const { return prereleases_; }
    void set_prereleases(std::optional<bool> p) { prereleases_ = p; }
    bool implies_prereleases() const;  // any specifier names a pre-release

    // Every specifier matches v; a pre-release only if allowed (argument, else the set's
    // override, else implied_prereleases()). pip check's question is contains(v, true).
    bool contains(const Version& v, std::optional<bool> prereleases = std::nullopt) const;

    // The indices of `versions` that match, in order, with PEP 440's pre-release rule: when
    // pre-releases are neither allowed nor refused (argument, override, implied), they are
    // kept only if no final release matches.
    std::vector<size_t> select(std::span<const Version> versions, std::optional<bool> prereleases = std::nullopt) const;
    std::vector<Version> filter(std::span<const Version> versions, std::optional<bool> prereleases = std::nullopt) const;
    // Items of any type, keyed by a version: filter(files, [](const File& f) -> const Version& {...}).
    template <class T, class Key>
    std::vector<T> filter_by(const std::vector<T>& items, Key key, std::optional<bool> prereleases = std::nullopt) const;

    // Sorted, duplicates removed, comma-joined, as packaging prints it: "!=2.7.1,>=2.6".
    std::string to_string() const;
    bool operator==(const SpecifierSet& o) const;  // same specifiers, order and duplicates aside
    SpecifierSet operator&(const SpecifierSet& o) const;  // both sets' specifiers

private:
    std::vector<size_t> select_flags(const std::vector<char>& matched, const std::vector<char>& pre, std::optional<bool> prereleases) const;
    std::vector<Specifier> specs_;
    std::optional<bool> prereleases_;
};

template <class T, class Key>
std::vector<T> SpecifierSet::filter_by(const std::vector<T>& items, Key key, std::optional<bool> prereleases) const {
    std::vector<char> matched(items.size()), pre(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
        const Version& v = key(items[i]);
        matched[i] = contains(v, true);
        pre[i] = v.is_prerelease();
    }
    std::vector<T> out;
    for (size_t i : select_flags(matched, pre, prereleases)) out.push_back(items[i]);
    return out;
}

}  // namespace envfix::standards
