#include "envfix/standards/specifier.hpp"

#include <algorithm>

#include "chars.hpp"
#include "fail_with.hpp"
#include "pep508.hpp"
#include "version_scan.hpp"

namespace envfix::standards {

using detail::VersionAccess;

std::string_view op_text(SpecOp op) {
    switch (op) {
        case SpecOp::Compatible: return "~=";
        case SpecOp::Equal: return "==";
        case SpecOp::NotEqual: return "!=";
        case SpecOp::LessEqual: return "<=";
        case SpecOp::GreaterEqual: return ">=";
        case SpecOp::Less: return "<";
        case SpecOp::Greater: return ">";
        case SpecOp::Arbitrary: return "===";
    }
    return "";
}

namespace {

// Longest operator first, as packaging's regular expression ends up choosing.
std::optional<SpecOp> scan_op(std::string_view s, size_t& p) {
    auto at = [&](std::string_view t) { return s.substr(p, t.size()) == t; };
    if (at("===")) {
        p += 3;
        return SpecOp::Arbitrary;
    }
    static constexpr std::pair<std::string_view, SpecOp> two[] = {
        {"~=", SpecOp::Compatible}, {"==", SpecOp::Equal},        {"!=", SpecOp::NotEqual},
        {"<=", SpecOp::LessEqual},  {">=", SpecOp::GreaterEqual},
    };
    for (const auto& [t, op] : two)
        if (at(t)) {
            p += 2;
            return op;
        }
    if (at("<")) {
        ++p;
        return SpecOp::Less;
    }
    if (at(">")) {
        ++p;
        return SpecOp::Greater;
    }
    return std::nullopt;
}

bool allows_local(SpecOp op) { return op == SpecOp::Equal || op == SpecOp::NotEqual; }

}  // namespace

namespace detail {
size_t match_specifier(std::string_view s, size_t pos) {
    size_t p = pos;
    auto op = scan_op(s, p);
    if (!op) return 0;
    p = chars::skip_space(s, p);
    if (*op == SpecOp::Arbitrary) {
        while (p < s.size() && !chars::space_at(s, p) && s[p] != ';' && s[p] != ')') ++p;
        return p - pos;
    }
    auto scanned = VersionAccess::scan(s, p, allows_local(*op));
    if (!scanned || (*op == SpecOp::Compatible && scanned->version.release_size() < 2)) return 0;
    if (allows_local(*op) && scanned->release_only && s.substr(p, 2) == ".*") p += 2;
    return p - pos;
}
}  // namespace detail

Expected<Specifier> Specifier::parse(std::string_view text) {
    const std::string whole(text);
    auto error = [&](const char* key, MessageArgs extra = {}) {
        return detail::fail_with(ExitCode::BadInput, key, {{"text", whole}}, extra);
    };
    size_t p = chars::skip_space(text, 0);
    auto op = scan_op(text, p);
    if (!op) return error("specifier.invalid");
    Specifier spec;
    spec.op_ = *op;
    p = chars::skip_space(text, p);
    const size_t begin = p;

    if (*op == SpecOp::Arbitrary) {
        // "===" takes any run of characters but whitespace, ";" and ")".
        while (p < text.size() && !chars::space_at(text, p) && text[p] != ';' && text[p] != ')') ++p;
        spec.text_ = std::string(text.substr(begin, p - begin));
        if (chars::skip_space(text, p) != text.size()) return error("specifier.invalid");
        spec.version_ = Version::try_parse(spec.text_);
        return spec;
    }

    auto scanned = VersionAccess::scan(text, p, allows_local(*op));
    auto rest = [&] { return std::string(chars::strip_space(text.substr(begin))); };
    if (!scanned) return error("specifier.bad_version", {{"version", rest()}});
    if (allows_local(*op) && scanned->release_only && text.substr(p, 2) == ".*") {
        spec.wildcard_ = true;
        p += 2;
    }
    if (chars::skip_space(text, p) != text.size()) {
        if (text.substr(p, 2) == ".*") return error("specifier.wildcard_not_allowed");
        if (text[p] == '+' && !allows_local(*op)) return error("specifier.local_not_allowed");
        return error("specifier.bad_version", {{"version", rest()}});
    }
    if (*op == SpecOp::Compatible && scanned->version.release_size() < 2) return error("specifier.compatible_needs_two");
    spec.text_ = std::string(text.substr(begin, p - begin));
    spec.version_ = std::move(scanned->version);
    return spec;
}

std::string Specifier::to_string() const { return std::string(op_text(op_)) + text_; }

namespace {
// packaging's Version(a.base_version) == Version(b.base_version): epoch and release, trailing
// zeros aside.
bool same_base(const Version& a, const Version& b) {
    return VersionAccess::epoch_digits(a) == VersionAccess::epoch_digits(b) && VersionAccess::same_trimmed_release(a, b);
}
}  // namespace

bool Specifier::matches(const Version& v) const {
    if (op_ == SpecOp::Arbitrary) {
        std::string have = v.to_string();
        return chars::lower(have) == chars::lower(text_);
    }
    const Version& V = *version_;
    switch (op_) {
        case SpecOp::Equal:
        case SpecOp::NotEqual: {
            bool eq;
            if (wildcard_)
                eq = VersionAccess::release_has_prefix(v, V, V.release_size());
            else if (V.has_local())
                eq = v == V;
            else
                eq = v.without_local() == V;
            return (op_ == SpecOp::Equal) == eq;
        }
        case SpecOp::LessEqual: return v.without_local() <= V;
        case SpecOp::GreaterEqual: return v >= V;
        // The ordered comparisons as pip's packaging makes them (specifiers.py, _compare_less_than
        // and _compare_greater_than), where pip and PEP 440's wording part: the exclusions go by
        // the base version (epoch and release), so >1.0b2 keeps out 1.0+abc and >1.0a2.dev3 keeps
        // out 1.0b2.post345.
        case SpecOp::Less:
            // <V keeps out pre-releases of V's release unless V is one (<2.0 excludes 2.0rc1).
            return v < V && (V.is_prerelease() || !v.is_prerelease() || !same_base(v, V));
        case SpecOp::Greater:
            // >V keeps out post-releases of V's release unless V is one, and local versions of it.
            if (!(v > V)) return false;
            if (!V.is_postrelease() && v.is_postrelease() && same_base(v, V)) return false;
            return !(v.has_local() && same_base(v, V));
        case SpecOp::Compatible: return v >= V && VersionAccess::release_has_prefix(v, V, V.release_size() - 1);
        case SpecOp::Arbitrary: break;
    }
    return false;
}

bool Specifier::implies_prereleases() const {
    if (op_ == SpecOp::NotEqual || wildcard_) return false;
    return version_ && version_->is_prerelease();
}

bool Specifier::contains(const Version& v, std::optional<bool> prereleases) const {
    bool allow = prereleases ? *prereleases : implies_prereleases();
    if (v.is_prerelease() && !allow) return false;
    return matches(v);
}

bool Specifier::operator==(const Specifier& o) const {
    if (op_ != o.op_) return false;
    if (op_ == SpecOp::Arbitrary || wildcard_ || o.wildcard_) return wildcard_ == o.wildcard_ && text_ == o.text_;
    bool strip = op_ != SpecOp::Compatible;
    return VersionAccess::canonical(*version_, strip) == VersionAccess::canonical(*o.version_, strip);
}

Expected<SpecifierSet> SpecifierSet::parse(std::string_view text) {
    SpecifierSet set;
    size_t b = 0;
    for (;;) {
        size_t e = text.find(',', b);
        std::string_view part = chars::strip_space(text.substr(b, e == std::string_view::npos ? e : e - b));
        if (!part.empty()) {
            ENVFIX_TRY(Specifier s, Specifier::parse(part));
            set.specs_.push_back(std::move(s));
        }
        if (e == std::string_view::npos) break;
        b = e + 1;
    }
    return set;
}

bool SpecifierSet::implies_prereleases() const {
    return std::any_of(specs_.begin(), specs_.end(), [](const Specifier& s) { return s.implies_prereleases(); });
}

bool SpecifierSet::contains(const Version& v, std::optional<bool> prereleases) const {
    bool allow = prereleases ? *prereleases : (prereleases_ ? *prereleases_ : implies_prereleases());
    if (v.is_prerelease() && !allow) return false;
    return std::all_of(specs_.begin(), specs_.end(), [&](const Specifier& s) { return s.matches(v); });
}

std::vector<size_t> SpecifierSet::select_flags(const std::vector<char>& matched, const std::vector<char>& pre,
                                               std::optional<bool> prereleases) const {
    std::optional<bool> allow = prereleases ? prereleases : prereleases_;
    if (!allow && implies_prereleases()) allow = true;
    std::vector<size_t> finals, all;
    for (size_t i = 0; i < matched.size(); ++i) {
        if (!matched[i]) continue;
        all.push_back(i);
        if (!pre[i]) finals.push_back(i);
    }
    if (allow == true) return all;
    if (allow == false || !finals.empty()) return finals;
    return all;  // PEP 440: pre-releases when nothing else matches
}

std::vector<size_t> SpecifierSet::select(std::span<const Version> versions, std::optional<bool> prereleases) const {
    std::vector<char> matched(versions.size()), pre(versions.size());
    for (size_t i = 0; i < versions.size(); ++i) {
        matched[i] = contains(versions[i], true);
        pre[i] = versions[i].is_prerelease();
    }
    return select_flags(matched, pre, prereleases);
}

std::vector<Version> SpecifierSet::filter(std::span<const Version> versions, std::optional<bool> prereleases) const {
    std::vector<Version> out;
    for (size_t i : select(versions, prereleases)) out.push_back(versions[i]);
    return out;
}

namespace {
std::vector<const Specifier*> canonical_order(const std::vector<Specifier>& specs) {
    std::vector<const Specifier*> sorted;
    for (const auto& s : specs) sorted.push_back(&s);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Specifier* a, const Specifier* b) { return a->to_string() < b->to_string(); });
    std::vector<const Specifier*> out;
    for (const Specifier* s : sorted)
        if (std::none_of(out.begin(), out.end(), [&](const Specifier* k) { return *k == *s; })) out.push_back(s);
    return out;
}
}  // namespace

std::string SpecifierSet::to_string() const {
    std::string out;
    for (const Specifier* s : canonical_order(specs_)) {
        if (!out.empty()) out += ',';
        out += s->to_string();
    }
    return out;
}

bool SpecifierSet::operator==(const SpecifierSet& o) const {
    auto a = canonical_order(specs_), b = canonical_order(o.specs_);
    if (a.size() != b.size()) return false;
    for (const Specifier* s : a)
        if (std::none_of(b.begin(), b.end(), [&](const Specifier* k) { return *k == *s; })) return false;
    return true;
}

SpecifierSet SpecifierSet::operator&(const SpecifierSet& o) const {
    SpecifierSet out = *this;
    out.specs_.insert(out.specs_.end(), o.specs_.begin(), o.specs_.end());
    if (!out.prereleases_) out.prereleases_ = o.prereleases_;
    return out;
}

}  // namespace envfix::standards
