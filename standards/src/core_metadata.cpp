#include "envfix/standards/core_metadata.hpp"

#include "chars.hpp"
#include "envfix/common/strings.hpp"
#include "fail_with.hpp"

namespace envfix::standards {

namespace {

struct Line {
    std::string_view text;
    size_t number;
    size_t offset;
};

// Python's email parser splits lines at "\r\n", "\r" and "\n".
std::vector<Line> split_lines(std::string_view s) {
    std::vector<Line> out;
    size_t b = 0, n = 1;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\n' && s[i] != '\r') continue;
        out.push_back({s.substr(b, i - b), n++, b});
        if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
        b = i + 1;
    }
    if (b < s.size()) out.push_back({s.substr(b), n, b});
    return out;
}

// Length of the valid UTF-8 sequence at s[i], 0 if invalid.
size_t utf8_length(std::string_view s, size_t i) {
    auto u = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    unsigned c = u(0);
    if (c < 0x80) return 1;
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((u(k) & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && u(1) < 0xa0) return 0;  // overlong
    if (c == 0xed && u(1) > 0x9f) return 0;  // surrogates
    if (c == 0xf0 && u(1) < 0x90) return 0;  // overlong
    if (c == 0xf4 && u(1) > 0x8f) return 0;  // above U+10FFFF
    return n;
}

// Like Python's decode(errors="replace"): each invalid byte becomes U+FFFD.
bool repair_utf8(std::string_view s, std::string& out) {
    bool repaired = false;
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_length(s, i);
        if (n == 0) {
            out += "\xef\xbf\xbd";
            repaired = true;
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return repaired;
}

std::string_view trim_ws(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool field_name_char(char c) { return c >= 0x21 && c <= 0x7e && c != ':'; }

// The Description header of old setuptools keeps its lines as continuation lines indented by
// eight spaces, or by seven and a "|".
std::string description_line(std::string_view line) {
    if (line.substr(0, 8) == "       |") return std::string(line.substr(8));
    if (line.substr(0, 8) == "        ") return std::string(line.substr(8));
    return std::string(trim_ws(line));
}

}  // namespace

std::vector<std::string> MetadataFile::get_all(std::string_view field) const {
    std::vector<std::string> out;
    for (const auto& f : fields)
        if (str::iequals(f.name, field)) out.push_back(f.value);
    return out;
}

const MetadataField* MetadataFile::find(std::string_view field) const {
    for (const auto& f : fields)
        if (str::iequals(f.name, field)) return &f;
    return nullptr;
}

std::optional<std::string> MetadataFile::get(std::string_view field) const {
    if (const auto* f = find(field)) return f->value;
    return std::nullopt;
}

Expected<MetadataFile> parse_metadata_file(std::string_view raw, std::string_view source) {
    MetadataFile md;
    md.source = std::string(source);
    auto error = [&](const char* key, size_t line, MessageArgs extra = {}) {
        return detail::fail_with(ExitCode::BadInput, key, {{"source", md.source}, {"line", std::to_string(line)}}, extra);
    };
    if (raw.substr(0, 3) == "\xef\xbb\xbf") raw.remove_prefix(3);
    std::string text;
    text.reserve(raw.size());
    bool had_invalid = repair_utf8(raw, text);
    auto lines = split_lines(text);
    if (chars::strip_space(text).empty()) return error("metadata.empty", 1);

    std::vector<std::vector<std::string_view>> continuation;  // per field
    size_t i = 0;
    for (; i < lines.size(); ++i) {
        std::string_view l = lines[i].text;
        if (l.empty()) {
            ++i;
            break;
        }
        if (l[0] == ' ' || l[0] == '\t') {
            if (md.fields.empty()) return error("metadata.continuation_first", lines[i].number);
            continuation.back().push_back(l);
            continue;
        }
        size_t colon = 0;
        while (colon < l.size() && field_name_char(l[colon])) ++colon;
        if (colon == 0 || colon >= l.size() || l[colon] != ':')
            return error("metadata.bad_line", lines[i].number, {{"content", std::string(l.substr(0, 80))}});
        md.fields.push_back({std::string(l.substr(0, colon)), std::string(trim_ws(l.substr(colon + 1))), lines[i].number});
        continuation.emplace_back();
    }
    if (i < lines.size()) {
        std::string_view rest = std::string_view(text).substr(lines[i].offset);
        for (size_t k = 0; k < rest.size(); ++k) {
            if (rest[k] == '\r') {
                md.body += '\n';
                if (k + 1 < rest.size() && rest[k + 1] == '\n') ++k;
            } else {
                md.body += rest[k];
            }
        }
    }

    for (size_t f = 0; f < md.fields.size(); ++f) {
        auto& field = md.fields[f];
        bool description = str::iequals(field.name, "description");
        for (auto c : continuation[f]) {
            if (description)
                field.value += "\n" + description_line(c);
            else if (auto t = trim_ws(c); !t.empty())
                field.value += (field.value.empty() ? "" : " ") + std::string(t);
        }
    }

    if (had_invalid)
        for (const auto& l : split_lines(raw))
            for (size_t k = 0; k < l.text.size();) {
                size_t n = utf8_length(l.text, k);
                if (n == 0) {
                    md.invalid_utf8_lines.push_back(l.number);
                    break;
                }
                k += n;
            }
    return md;
}

Expected<CoreMetadata> parse_core_metadata(std::string_view raw, std::string_view source) {
    ENVFIX_TRY(MetadataFile file, parse_metadata_file(raw, source));
    CoreMetadata md;
    static_cast<MetadataFile&>(md) = std::move(file);
    auto error = [&](const char* key, size_t line, MessageArgs extra = {}) {
        return detail::fail_with(ExitCode::BadInput, key, {{"source", md.source}, {"line", std::to_string(line)}}, extra);
    };
    for (const char* single : {"Metadata-Version", "Name", "Version"}) {
        const MetadataField* first = nullptr;
        for (const auto& f : md.fields) {
            if (!str::iequals(f.name, single)) continue;
            if (first) return error("metadata.duplicate_field", f.line, {{"field", single}, {"first", std::to_string(first->line)}});
            first = &f;
        }
    }
    for (const char* required : {"Name", "Version"})
        if (!md.find(required)) return error("metadata.missing_field", 1, {{"field", required}});

    md.metadata_version = md.get("Metadata-Version").value_or("");
    md.name = md.get("Name").value_or("");
    md.version = md.get("Version").value_or("");
    md.summary = md.get("Summary").value_or("");
    md.requires_python = md.get("Requires-Python").value_or("");
    md.description_content_type = md.get("Description-Content-Type").value_or("");
    md.description = !md.body.empty() ? md.body : md.get("Description").value_or("");
    md.requires_dist = md.get_all("Requires-Dist");
    md.provides_extra = md.get_all("Provides-Extra");
    md.classifiers = md.get_all("Classifier");
    return md;
}

Expected<std::vector<Requirement>> parse_requires_dist(const CoreMetadata& md) {
    std::vector<Requirement> out;
    for (const auto& f : md.fields) {
        if (!str::iequals(f.name, "requires-dist")) continue;
        auto r = Requirement::parse(f.value);
        if (!r) {
            std::string column(r.error().message.arg("column"));
            return fail(ExitCode::BadInput, "metadata.bad_requirement",
                        {{"source", md.source}, {"line", std::to_string(f.line)}, {"text", f.value}, {"column", column}});
        }
        out.push_back(std::move(*r));
    }
    return out;
}

}  // namespace envfix::standards
