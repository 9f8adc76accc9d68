#include "envfix/standards/wheel_name.hpp"

#include <algorithm>

#include "chars.hpp"
#include "envfix/standards/names.hpp"
#include "fail_with.hpp"
#include "version_scan.hpp"

namespace envfix::standards {

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

constexpr std::string_view kSdistSuffixes[] = {".tar.gz", ".zip", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tar"};

std::optional<std::string_view> sdist_stem(std::string_view filename) {
    for (auto suffix : kSdistSuffixes)
        if (ends_with(filename, suffix)) return filename.substr(0, filename.size() - suffix.size());
    return std::nullopt;
}

int hex_digit(char c) {
    if (chars::digit(c)) return c - '0';
    char l = chars::lower(c);
    return (l >= 'a' && l <= 'f') ? l - 'a' + 10 : -1;
}

Expected<std::string> percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        int hi = i + 1 < s.size() ? hex_digit(s[i + 1]) : -1;
        int lo = i + 2 < s.size() ? hex_digit(s[i + 2]) : -1;
        if (hi < 0 || lo < 0) return fail(ExitCode::BadInput, "wheel_name.bad_escape", {{"file", std::string(s)}});
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

// packaging: ^[\w\d._]*$ and no "__" (PEP 427 escaping turns every run of "-_." into one "_").
bool valid_name_part(std::string_view name) {
    if (name.empty() || name.find("__") != std::string_view::npos) return false;
    return std::all_of(name.begin(), name.end(), [](char c) { return chars::alnum(c) || c == '_' || c == '.'; });
}

}  // namespace

std::strong_ordering BuildTag::operator<=>(const BuildTag& o) const {
    if (int c = detail::VersionAccess::compare_numbers(number, o.number))
        return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
    return suffix <=> o.suffix;
}

DistributionKind distribution_kind(std::string_view filename) {
    if (ends_with(filename, ".whl")) return DistributionKind::Wheel;
    if (sdist_stem(filename)) return DistributionKind::Sdist;
    return DistributionKind::Other;
}

Expected<WheelName> parse_wheel_name(std::string_view raw) {
    ENVFIX_TRY(std::string file, percent_decode(raw));
    auto error = [&](const char* key, MessageArgs extra = {}) {
        return detail::fail_with(ExitCode::BadInput, key, {{"file", file}}, extra);
    };
    switch (distribution_kind(file)) {
        case DistributionKind::Wheel: break;
        case DistributionKind::Sdist: return fail(ExitCode::NotInstallable, "wheel_name.sdist", {{"file", file}});
        case DistributionKind::Other: return error("wheel_name.not_wheel");
    }
    std::string_view stem = std::string_view(file).substr(0, file.size() - 4);
    size_t dashes = static_cast<size_t>(std::count(stem.begin(), stem.end(), '-'));
    if (dashes != 4 && dashes != 5) return error("wheel_name.parts", {{"count", std::to_string(dashes + 1)}});

    // The name and version never hold "-"; the tag triple is the last three parts.
    size_t d1 = stem.find('-'), d2 = stem.find('-', d1 + 1);
    WheelName w;
    w.filename = file;
    w.name = std::string(stem.substr(0, d1));
    if (!valid_name_part(w.name)) return error("wheel_name.bad_name", {{"name", w.name}});
    w.canonical_name = canonicalize_name(w.name);
    std::string_view version_text = stem.substr(d1 + 1, d2 - d1 - 1);
    auto version = Version::try_parse(version_text);
    if (!version) return error("wheel_name.bad_version", {{"version", std::string(version_text)}});
    w.version = std::move(*version);
    std::string_view rest = stem.substr(d2 + 1);
    if (dashes == 5) {
        size_t d3 = rest.find('-');
        std::string_view build = rest.substr(0, d3);
        if (build.empty() || !chars::digit(build[0])) return error("wheel_name.bad_build", {{"build", std::string(build)}});
        size_t k = 0;
        while (k < build.size() && chars::digit(build[k])) ++k;
        BuildTag tag;
        size_t z = 0;
        while (z + 1 < k && build[z] == '0') ++z;
        tag.number = std::string(build.substr(z, k - z));
        tag.suffix = std::string(build.substr(k));
        w.build = std::move(tag);
        rest = rest.substr(d3 + 1);
    }
    w.tag_text = std::string(rest);
    auto tags = parse_tag_set(rest);
    if (!tags) return error("wheel_name.bad_tags", {{"tags", w.tag_text}});
    w.tags = std::move(*tags);
    return w;
}

Expected<SdistName> parse_sdist_name(std::string_view raw) {
    ENVFIX_TRY(std::string file, percent_decode(raw));
    auto stem = sdist_stem(file);
    size_t dash = stem ? stem->rfind('-') : std::string_view::npos;
    if (!stem || dash == std::string_view::npos || dash == 0) return fail(ExitCode::BadInput, "sdist_name.invalid", {{"file", file}});
    // PEP 440 versions hold no "-", so the name ends at the last one.
    std::string_view version_text = stem->substr(dash + 1);
    auto version = Version::try_parse(version_text);
    if (!version) return fail(ExitCode::BadInput, "sdist_name.bad_version", {{"file", file}, {"version", std::string(version_text)}});
    return SdistName{file, canonicalize_name(stem->substr(0, dash)), std::move(*version)};
}

}  // namespace envfix::standards
