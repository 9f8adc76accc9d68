// pip requirements files, line by line (pip's req_file.py: preprocess, break_args_options,
// the supported options and per-requirement options).
#include "envfix/standards/requirements_file.hpp"

#include <array>
#include <cctype>

#include "envfix/common/strings.hpp"

namespace envfix::standards {

namespace {

struct OptionSpec {
    std::string_view long_name;
    std::string_view short_name;  // "" none
    bool takes_value;
    ReqLineKind kind;  // Include, Constraint, Editable or Option
};

// pip's SUPPORTED_OPTIONS (global: a line of its own).
constexpr std::array<OptionSpec, 14> kGlobalOptions = {{
    {"--requirement", "-r", true, ReqLineKind::Include},
    {"--constraint", "-c", true, ReqLineKind::Constraint},
    {"--editable", "-e", true, ReqLineKind::Editable},
    {"--index-url", "-i", true, ReqLineKind::Option},
    {"--extra-index-url", "", true, ReqLineKind::Option},
    {"--no-index", "", false, ReqLineKind::Option},
    {"--find-links", "-f", true, ReqLineKind::Option},
    {"--no-binary", "", true, ReqLineKind::Option},
    {"--only-binary", "", true, ReqLineKind::Option},
    {"--prefer-binary", "", false, ReqLineKind::Option},
    {"--require-hashes", "", false, ReqLineKind::Option},
    {"--pre", "", false, ReqLineKind::Option},
    {"--trusted-host", "", true, ReqLineKind::Option},
    {"--use-feature", "", true, ReqLineKind::Option},
}};

// pip's SUPPORTED_OPTIONS_REQ: allowed after a requirement on the same line.
constexpr std::array<std::string_view, 3> kRequirementOptions = {"--hash", "--config-settings", "--global-option"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// pip's COMMENT_RE: "(^|\s+)#.*$".
std::string_view strip_comment(std::string_view s) {
    for (size_t i = 0; i < s.size(); ++i)
        if (s[i] == '#' && (i == 0 || is_space(s[i - 1]))) return s.substr(0, i);
    return s;
}

std::vector<std::string> tokens_of(std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    char quote = 0;
    bool any = false;
    for (char c : s) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                cur += c;
        } else if (c == '"' || c == '\'') {
            quote = c;
            any = true;
        } else if (is_space(c)) {
            if (any || !cur.empty()) out.push_back(std::move(cur));
            cur.clear();
            any = false;
        } else {
            cur += c;
        }
    }
    if (any || !cur.empty()) out.push_back(std::move(cur));
    return out;
}

bool is_url(std::string_view s) {
    static constexpr std::array<std::string_view, 10> schemes = {"http://", "https://", "file:",  "git+",   "hg+",
                                                                 "svn+",    "bzr+",     "git://", "ftp://", "data:"};
    std::string lower = str::lower(s);
    for (auto scheme : schemes)
        if (lower.starts_with(scheme)) return true;
    return false;
}

bool is_archive(std::string_view s) {
    std::string lower = str::lower(s);
    for (std::string_view ext : {".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".tar"})
        if (lower.ends_with(ext)) return true;
    return false;
}

// What pip reads as a local folder before trying a requirement: ".", "./x", "../x", "/x", "~/x".
bool is_explicit_path(std::string_view s) {
    return s == "." || s == ".." || s.starts_with("./") || s.starts_with("../") || s.starts_with(".\\") || s.starts_with("/") ||
           s.starts_with("~") || (s.size() > 2 && s[1] == ':' && (s[2] == '/' || s[2] == '\\'));
}

Error line_error(const char* key, std::string_view source, size_t line, std::string_view text, MessageArgs extra = {}) {
    Error e =
        make_error(ExitCode::BadInput, key, {{"source", std::string(source)}, {"line", std::to_string(line)}, {"text", std::string(text)}});
    for (const auto& [k, v] : extra) e.message.with(k, v);
    return e;
}

// A global option line: "-r file", "-rfile", "--requirement=file", "--requirement file".
void parse_option_line(RequirementsLine& out, const std::vector<std::string>& tokens, std::string_view source) {
    const std::string& first = tokens[0];
    for (const auto& o : kGlobalOptions) {
        std::string value;
        bool matched = false, has_value = false;
        if (first == o.long_name || (!o.short_name.empty() && first == o.short_name)) {
            matched = true;
            if (tokens.size() > 1) {
                value = tokens[1];
                has_value = true;
            }
        } else if (first.starts_with(std::string(o.long_name) + "=")) {
            matched = true;
            value = first.substr(o.long_name.size() + 1);
            has_value = true;
        } else if (!o.short_name.empty() && first.size() > 2 && first.starts_with(o.short_name)) {
            matched = true;
            value = first.substr(2);
            has_value = true;
        }
        if (!matched) continue;
        if (o.takes_value && (!has_value || value.empty())) {
            out.kind = ReqLineKind::Invalid;
            out.error = line_error("reqfile.option_needs_value", source, out.line, out.text, {{"option", std::string(o.long_name)}});
            return;
        }
        out.kind = o.kind;
        if (o.kind == ReqLineKind::Option) {
            out.target = std::string(o.long_name);
            out.value = value;
        } else {
            out.target = value;
        }
        return;
    }
    out.kind = ReqLineKind::Invalid;
    out.error = line_error("reqfile.unknown_option", source, out.line, out.text, {{"option", first}});
}

// The requirement part of a line ("torch>=2.7; sys_platform != 'darwin'", "name @ url", a URL, a path).
void parse_requirement_part(RequirementsLine& out, const std::string& args, std::string_view source) {
    // "url ; marker" or "path ; marker": pip splits the marker off at "; ".
    std::string location = args;
    if (auto semi = args.find(" ;"); semi != std::string::npos)
        location = std::string(str::trim(args.substr(0, semi)));
    else if (auto semi2 = args.find("; "); semi2 != std::string::npos)
        location = std::string(str::trim(args.substr(0, semi2)));
    if (is_url(location)) {
        out.kind = ReqLineKind::Url;
        out.target = location;
        return;
    }
    if (is_archive(location) || is_explicit_path(location)) {
        out.kind = ReqLineKind::Path;
        out.target = location;
        return;
    }
    auto req = Requirement::parse(args);
    if (req) {
        out.kind = ReqLineKind::Requirement;
        out.requirements.push_back(std::move(*req));
        return;
    }
    // A folder named without "./" ("sd-scripts/", "libs\\x").
    if (location.find('/') != std::string::npos || location.find('\\') != std::string::npos) {
        out.kind = ReqLineKind::Path;
        out.target = location;
        return;
    }
    // Several requirements on one line (kohya_ss): each space-separated word a requirement.
    auto words = tokens_of(args);
    if (words.size() > 1) {
        std::vector<Requirement> several;
        for (const auto& w : words) {
            auto r = Requirement::parse(w);
            if (!r) break;
            several.push_back(std::move(*r));
        }
        if (several.size() == words.size()) {
            out.kind = ReqLineKind::Requirement;
            out.requirements = std::move(several);
            return;
        }
    }
    out.kind = ReqLineKind::Invalid;
    out.error =
        line_error("reqfile.bad_requirement", source, out.line, out.text, {{"column", std::string(req.error().message.arg("column"))}});
}

void parse_logical_line(RequirementsLine& out, std::string_view source) {
    if (out.text.find("${") != std::string::npos) {
        out.kind = ReqLineKind::Invalid;
        out.error = line_error("reqfile.env_var", source, out.line, out.text);
        return;
    }
    auto tokens = tokens_of(out.text);
    if (tokens.empty()) return;
    if (tokens[0].starts_with("-")) {
        parse_option_line(out, tokens, source);
        return;
    }
    // pip's break_args_options: words up to the first one starting with "-" are the requirement.
    std::vector<std::string> args_words;
    size_t i = 0;
    for (auto word : str::split(out.text, ' ')) {
        if (str::trim(word).starts_with("-")) break;
        args_words.emplace_back(word);
        ++i;
    }
    std::string args(str::trim(str::join(args_words, " ")));
    // What follows: per-requirement options (--hash ...), or, on kohya-style lines, global ones
    // pip would refuse there (--extra-index-url), kept as written.
    auto rest = tokens_of(out.text.substr(std::min(out.text.size(), args.size())));
    for (const auto& t : rest) {
        if (!t.starts_with("-")) {
            if (!out.options.empty()) out.options.back() += " " + t;
            continue;
        }
        out.options.push_back(t);
    }
    parse_requirement_part(out, args, source);
    if (out.kind == ReqLineKind::Invalid) return;
    for (const auto& o : out.options) {
        bool known = false;
        for (auto name : kRequirementOptions)
            if (o.starts_with(name)) known = true;
        // A global option after the requirement: pip refuses it; kohya_ss's installer takes it.
        for (const auto& g : kGlobalOptions)
            if (o.starts_with(g.long_name) || (!g.short_name.empty() && o.starts_with(std::string(g.short_name) + " "))) known = true;
        if (!known) {
            out.kind = ReqLineKind::Invalid;
            out.requirements.clear();
            out.error = line_error("reqfile.unknown_option", source, out.line, out.text, {{"option", o.substr(0, o.find_first_of(" ="))}});
            return;
        }
    }
}

}  // namespace

std::string_view req_line_kind_name(ReqLineKind k) {
    switch (k) {
        case ReqLineKind::Requirement: return "requirement";
        case ReqLineKind::Include: return "include";
        case ReqLineKind::Constraint: return "constraint";
        case ReqLineKind::Editable: return "editable";
        case ReqLineKind::Url: return "url";
        case ReqLineKind::Path: return "path";
        case ReqLineKind::Option: return "option";
        case ReqLineKind::Invalid: return "invalid";
    }
    return "invalid";
}

RequirementsFile parse_requirements_file(std::string_view text, std::string_view source) {
    RequirementsFile file{std::string(source), {}};
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark (Windows editors)
    auto physical = str::split(text, '\n');
    std::string logical;
    size_t start = 0;
    for (size_t i = 0; i < physical.size(); ++i) {
        std::string_view raw = physical[i];
        if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
        if (logical.empty()) start = i + 1;
        // pip joins "\"-ended lines first; a comment line ends the join.
        const bool comment_line = !str::trim(raw).empty() && str::trim(raw)[0] == '#';
        if (!comment_line && !raw.empty() && raw.back() == '\\' && i + 1 < physical.size()) {
            logical += std::string(raw.substr(0, raw.size() - 1));
            continue;
        }
        if (!comment_line) logical += std::string(raw);
        RequirementsLine line;
        line.line = start;
        line.text = std::string(str::trim(strip_comment(logical)));
        logical.clear();
        if (line.text.empty()) continue;
        parse_logical_line(line, source);
        file.lines.push_back(std::move(line));
    }
    return file;
}

}  // namespace envfix::standards
