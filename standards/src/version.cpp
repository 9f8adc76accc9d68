#include "envfix/standards/version.hpp"

#include <limits>

#include "chars.hpp"
#include "version_scan.hpp"

namespace envfix::standards {

namespace detail {

namespace {

std::string digits_at(std::string_view s, size_t& p) {
    size_t b = p;
    while (p < s.size() && chars::digit(s[p])) ++p;
    size_t first = b;
    while (first + 1 < p && s[first] == '0') ++first;  // Python's int(): no leading zeros
    return std::string(s.substr(first, p - first));
}

std::string number_or_zero(std::string_view s, size_t& p) {
    if (p < s.size() && chars::digit(s[p])) return digits_at(s, p);
    return "0";
}

bool skip_separator(std::string_view s, size_t& p) {
    if (p < s.size() && chars::separator(s[p])) {
        ++p;
        return true;
    }
    return false;
}

// Alternatives in packaging's order, so a longer spelling wins over its prefix.
struct Word {
    std::string_view text;
    PreKind kind;
};
constexpr Word kPreWords[] = {{"alpha", PreKind::Alpha}, {"a", PreKind::Alpha}, {"beta", PreKind::Beta}, {"b", PreKind::Beta},
                              {"preview", PreKind::Rc},  {"pre", PreKind::Rc},  {"c", PreKind::Rc},      {"rc", PreKind::Rc}};
constexpr std::string_view kPostWords[] = {"post", "rev", "r"};

}  // namespace

int VersionAccess::compare_numbers(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::optional<ScannedVersion> VersionAccess::scan(std::string_view s, size_t& pos, bool allow_local) {
    size_t p = pos;
    Version v;
    v.release_.clear();
    bool release_only = true;
    if (p < s.size() && (s[p] == 'v' || s[p] == 'V')) ++p;
    if (p >= s.size() || !chars::digit(s[p])) return std::nullopt;
    std::string first = digits_at(s, p);
    if (p < s.size() && s[p] == '!') {
        ++p;
        if (p >= s.size() || !chars::digit(s[p])) return std::nullopt;
        v.epoch_ = std::move(first);
        first = digits_at(s, p);
    }
    v.release_.push_back(std::move(first));
    while (p + 1 < s.size() && s[p] == '.' && chars::digit(s[p + 1])) {
        ++p;
        v.release_.push_back(digits_at(s, p));
    }

    // Pre-release: [._-]? (alpha|a|beta|b|preview|pre|c|rc) [._-]? N?
    {
        size_t q = p;
        skip_separator(s, q);
        for (const auto& w : kPreWords) {
            if (!chars::iequals_at(s, q, w.text)) continue;
            q += w.text.size();
            skip_separator(s, q);
            v.pre_kind_ = w.kind;
            v.pre_number_ = number_or_zero(s, q);
            p = q;
            release_only = false;
            break;
        }
    }
    // Post-release: -N | [._-]? (post|rev|r) [._-]? N?
    if (p + 1 < s.size() && s[p] == '-' && chars::digit(s[p + 1])) {
        ++p;
        v.post_ = digits_at(s, p);
        release_only = false;
    } else {
        size_t q = p;
        skip_separator(s, q);
        for (auto w : kPostWords) {
            if (!chars::iequals_at(s, q, w)) continue;
            q += w.size();
            skip_separator(s, q);
            v.post_ = number_or_zero(s, q);
            p = q;
            release_only = false;
            break;
        }
    }
    // Development release: [._-]? dev [._-]? N?
    {
        size_t q = p;
        skip_separator(s, q);
        if (chars::iequals_at(s, q, "dev")) {
            q += 3;
            skip_separator(s, q);
            v.dev_ = number_or_zero(s, q);
            p = q;
            release_only = false;
        }
    }
    // Local label: + [a-z0-9]+ ([._-] [a-z0-9]+)*
    if (allow_local && p + 1 < s.size() && s[p] == '+' && chars::alnum(s[p + 1])) {
        size_t q = p + 1;
        for (;;) {
            size_t b = q;
            while (q < s.size() && chars::alnum(s[q])) ++q;
            Version::LocalPart part;
            std::string_view text = s.substr(b, q - b);
            part.numeric = true;
            for (char c : text) part.numeric = part.numeric && chars::digit(c);
            if (part.numeric) {
                size_t k = 0;
                part.text = digits_at(text, k);
            } else {
                part.text = chars::lower(text);
            }
            v.local_.push_back(std::move(part));
            if (q + 1 < s.size() && chars::separator(s[q]) && chars::alnum(s[q + 1])) {
                ++q;
                continue;
            }
            break;
        }
        p = q;
        release_only = false;
    }
    pos = p;
    return ScannedVersion{std::move(v), release_only};
}

namespace {
size_t trimmed_size(const std::vector<std::string>& release) {
    size_t n = release.size();
    while (n > 0 && release[n - 1] == "0") --n;
    return n;
}
}  // namespace

bool VersionAccess::same_trimmed_release(const Version& a, const Version& b) {
    size_t na = trimmed_size(a.release_), nb = trimmed_size(b.release_);
    if (na != nb) return false;
    for (size_t i = 0; i < na; ++i)
        if (a.release_[i] != b.release_[i]) return false;
    return true;
}

bool VersionAccess::release_has_prefix(const Version& v, const Version& prefix, size_t prefix_len) {
    if (v.epoch_ != prefix.epoch_) return false;
    for (size_t i = 0; i < prefix_len; ++i) {
        const std::string& want = i < prefix.release_.size() ? prefix.release_[i] : std::string("0");
        const std::string& have = i < v.release_.size() ? v.release_[i] : std::string("0");
        if (want != have) return false;
    }
    return true;
}

std::string VersionAccess::canonical(const Version& v, bool strip_trailing_zero) {
    Version copy = v;
    if (strip_trailing_zero) {
        size_t n = trimmed_size(copy.release_);
        copy.release_.resize(n == 0 ? 1 : n);
    }
    return copy.to_string();
}

}  // namespace detail

using detail::VersionAccess;

namespace {

uint64_t saturate(const std::string& digits) {
    constexpr uint64_t max = std::numeric_limits<uint64_t>::max();
    uint64_t v = 0;
    for (char c : digits) {
        uint64_t d = static_cast<uint64_t>(c - '0');
        if (v > (max - d) / 10) return max;
        v = v * 10 + d;
    }
    return v;
}

template <class T>
int cmp3(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}

std::strong_ordering to_ordering(int c) {
    return c < 0 ? std::strong_ordering::less : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

const char* pre_text(PreKind k) {
    switch (k) {
        case PreKind::Alpha: return "a";
        case PreKind::Beta: return "b";
        case PreKind::Rc: return "rc";
    }
    return "";
}

}  // namespace

std::optional<Version> Version::try_parse(std::string_view text) {
    size_t p = chars::skip_space(text, 0);
    auto scanned = VersionAccess::scan(text, p, true);
    if (!scanned) return std::nullopt;
    if (chars::skip_space(text, p) != text.size()) return std::nullopt;
    return std::move(scanned->version);
}

Expected<Version> Version::parse(std::string_view text) {
    if (auto v = try_parse(text)) return std::move(*v);
    return fail(ExitCode::BadInput, "version.invalid", {{"text", std::string(text)}});
}

std::string Version::to_string() const {
    std::string out = public_version();
    if (!local_.empty()) out += "+" + local();
    return out;
}

std::string Version::public_version() const {
    std::string out = base_version();
    if (pre_kind_) out += std::string(pre_text(*pre_kind_)) + pre_number_;
    if (post_) out += ".post" + *post_;
    if (dev_) out += ".dev" + *dev_;
    return out;
}

std::string Version::base_version() const {
    std::string out;
    if (epoch_ != "0") out = epoch_ + "!";
    for (size_t i = 0; i < release_.size(); ++i) {
        if (i) out += '.';
        out += release_[i];
    }
    return out;
}

std::string Version::local() const {
    std::string out;
    for (size_t i = 0; i < local_.size(); ++i) {
        if (i) out += '.';
        out += local_[i].text;
    }
    return out;
}

uint64_t Version::epoch() const { return saturate(epoch_); }
uint64_t Version::release(size_t i) const { return i < release_.size() ? saturate(release_[i]) : 0; }
std::optional<uint64_t> Version::pre_number() const {
    if (!pre_kind_) return std::nullopt;
    return saturate(pre_number_);
}
std::optional<uint64_t> Version::post() const {
    if (!post_) return std::nullopt;
    return saturate(*post_);
}
std::optional<uint64_t> Version::dev() const {
    if (!dev_) return std::nullopt;
    return saturate(*dev_);
}

Version Version::without_local() const {
    Version out = *this;
    out.local_.clear();
    return out;
}

Version Version::base() const {
    Version out;
    out.epoch_ = epoch_;
    out.release_ = release_;
    return out;
}

std::strong_ordering Version::operator<=>(const Version& o) const {
    if (int c = VersionAccess::compare_numbers(epoch_, o.epoch_)) return to_ordering(c);

    // Release, trailing zeros ignored; a shorter release that is a prefix sorts first.
    size_t na = detail::trimmed_size(release_), nb = detail::trimmed_size(o.release_);
    for (size_t i = 0; i < na && i < nb; ++i)
        if (int c = VersionAccess::compare_numbers(release_[i], o.release_[i])) return to_ordering(c);
    if (na != nb) return to_ordering(na < nb ? -1 : 1);

    // Pre-release: 1.0.dev0 (no pre, no post) sorts below every 1.0aN; no pre sorts above.
    auto pre_rank = [](const Version& v) {
        if (!v.pre_kind_ && !v.post_ && v.dev_) return 0;
        return v.pre_kind_ ? 1 : 2;
    };
    int ra = pre_rank(*this), rb = pre_rank(o);
    if (ra != rb) return to_ordering(cmp3(ra, rb));
    if (ra == 1) {
        if (int c = cmp3(static_cast<int>(*pre_kind_), static_cast<int>(*o.pre_kind_))) return to_ordering(c);
        if (int c = VersionAccess::compare_numbers(pre_number_, o.pre_number_)) return to_ordering(c);
    }
    // Post-release: none sorts first.
    if (post_.has_value() != o.post_.has_value()) return to_ordering(post_ ? 1 : -1);
    if (post_)
        if (int c = VersionAccess::compare_numbers(*post_, *o.post_)) return to_ordering(c);
    // Development release: none sorts last.
    if (dev_.has_value() != o.dev_.has_value()) return to_ordering(dev_ ? -1 : 1);
    if (dev_)
        if (int c = VersionAccess::compare_numbers(*dev_, *o.dev_)) return to_ordering(c);
    // Local label: none sorts first; letters before numbers; a prefix sorts first.
    for (size_t i = 0; i < local_.size() && i < o.local_.size(); ++i) {
        const auto &a = local_[i], &b = o.local_[i];
        if (a.numeric != b.numeric) return to_ordering(a.numeric ? 1 : -1);
        int c = a.numeric ? VersionAccess::compare_numbers(a.text, b.text) : cmp3(a.text, b.text);
        if (c) return to_ordering(c);
    }
    return to_ordering(cmp3(local_.size(), o.local_.size()));
}

size_t Version::hash() const {
    size_t h = std::hash<std::string>{}(epoch_);
    auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    size_t n = detail::trimmed_size(release_);
    for (size_t i = 0; i < n; ++i) mix(std::hash<std::string>{}(release_[i]));
    mix(pre_kind_ ? static_cast<size_t>(*pre_kind_) + 1 : 0);
    mix(std::hash<std::string>{}(pre_kind_ ? pre_number_ : std::string()));
    mix(post_ ? std::hash<std::string>{}(*post_) + 1 : 0);
    mix(dev_ ? std::hash<std::string>{}(*dev_) + 1 : 0);
    for (const auto& part : local_) mix(std::hash<std::string>{}(part.text) + part.numeric);
    return h;
}

}  // namespace envfix::standards
