// packaging's PEP 508 tokenizer and parser (_tokenizer.py, _parser.py), rule for rule: the same
// tokens at the same positions, so the same strings are accepted and the same trees built.
#include "pep508.hpp"

#include <array>

#include "chars.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::standards::detail {

namespace {

constexpr long kNoMatch = -1;

struct Stop {
    const char* kind;  // message key suffix
    size_t pos;
};

// \b before/after position i, for a token whose first/last character is a word character.
bool word_before(std::string_view s, size_t i) { return i > 0 && chars::word(s[i - 1]); }
bool word_after(std::string_view s, size_t i) { return i < s.size() && chars::word(s[i]); }

constexpr std::array<std::pair<std::string_view, MarkerVariable>, 18> kVariables{{
    {"python_version", MarkerVariable::PythonVersion},
    {"python_full_version", MarkerVariable::PythonFullVersion},
    {"os_name", MarkerVariable::OsName},
    {"os.name", MarkerVariable::OsName},
    {"sys_platform", MarkerVariable::SysPlatform},
    {"sys.platform", MarkerVariable::SysPlatform},
    {"platform_release", MarkerVariable::PlatformRelease},
    {"platform_system", MarkerVariable::PlatformSystem},
    {"platform_version", MarkerVariable::PlatformVersion},
    {"platform.version", MarkerVariable::PlatformVersion},
    {"platform_machine", MarkerVariable::PlatformMachine},
    {"platform.machine", MarkerVariable::PlatformMachine},
    {"platform_python_implementation", MarkerVariable::PlatformPythonImplementation},
    {"platform.python_implementation", MarkerVariable::PlatformPythonImplementation},
    {"python_implementation", MarkerVariable::PlatformPythonImplementation},
    {"implementation_name", MarkerVariable::ImplementationName},
    {"implementation_version", MarkerVariable::ImplementationVersion},
    {"extra", MarkerVariable::Extra},
}};

class Tokenizer {
public:
    explicit Tokenizer(std::string_view s) : s_(s) {}
    size_t pos = 0;

    long ws() const {
        size_t i = pos;
        while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t')) ++i;
        return i > pos ? static_cast<long>(i - pos) : kNoMatch;
    }
    // Python's "$": the end, or just before a final newline.
    long end() const { return (pos == s_.size() || (pos + 1 == s_.size() && s_[pos] == '\n')) ? 0 : kNoMatch; }
    long ch(char c) const { return pos < s_.size() && s_[pos] == c ? 1 : kNoMatch; }
    long quoted_string() const {
        if (pos >= s_.size() || (s_[pos] != '\'' && s_[pos] != '"')) return kNoMatch;
        size_t close = s_.find(s_[pos], pos + 1);
        return close == std::string_view::npos ? kNoMatch : static_cast<long>(close + 1 - pos);
    }
    long op() const {
        for (std::string_view o : {"===", "==", "~=", "!=", "<=", ">=", "<", ">"})
            if (s_.substr(pos, o.size()) == o) return static_cast<long>(o.size());
        return kNoMatch;
    }
    long keyword(std::string_view w) const {
        if (s_.substr(pos, w.size()) != w || word_before(s_, pos) || word_after(s_, pos + w.size())) return kNoMatch;
        return static_cast<long>(w.size());
    }
    long boolop() const {
        long n = keyword("or");
        return n != kNoMatch ? n : keyword("and");
    }
    long variable(MarkerVariable* which) const {
        for (const auto& [name, var] : kVariables)
            if (long n = keyword(name); n != kNoMatch) {
                *which = var;
                return n;
            }
        return kNoMatch;
    }
    long specifier() const {
        size_t n = match_specifier(s_, pos);
        return n ? static_cast<long>(n) : kNoMatch;
    }
    long url() const {
        size_t i = pos;
        while (i < s_.size() && s_[i] != ' ' && s_[i] != '\t') ++i;
        return i > pos ? static_cast<long>(i - pos) : kNoMatch;
    }
    // \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b, backtracking to the longest end that is a word boundary.
    long identifier() const {
        if (pos >= s_.size() || !chars::alnum(s_[pos]) || word_before(s_, pos)) return kNoMatch;
        size_t e = pos + 1;
        while (e < s_.size() && (chars::alnum(s_[e]) || chars::separator(s_[e]))) ++e;
        for (; e > pos; --e)
            if (chars::word(s_[e - 1]) != word_after(s_, e)) return static_cast<long>(e - pos);
        return kNoMatch;
    }
    long version_prefix_trail() const { return s_.substr(pos, 2) == ".*" ? 2 : kNoMatch; }
    long version_local_trail() const {
        return pos + 1 < s_.size() && s_[pos] == '+' && (chars::lower_alpha(s_[pos + 1]) || chars::digit(s_[pos + 1])) ? 1 : kNoMatch;
    }

    std::string_view take(long n) {
        auto t = s_.substr(pos, static_cast<size_t>(n));
        pos += static_cast<size_t>(n);
        return t;
    }
    void skip_ws() {
        if (long n = ws(); n != kNoMatch) pos += static_cast<size_t>(n);
    }
    [[noreturn]] void stop(const char* kind) const { throw Stop{kind, pos}; }
    [[noreturn]] void stop_at(const char* kind, size_t at) const { throw Stop{kind, at}; }

private:
    std::string_view s_;
};

int hex_value(char c) {
    if (chars::digit(c)) return c - '0';
    char l = chars::lower(c);
    if (l >= 'a' && l <= 'f') return l - 'a' + 10;
    return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

// ast.literal_eval of a quoted marker string: Python's escapes. Returns false where Python
// raises (raw newline, bad \x, \N{...} which needs the Unicode name table, lone surrogates).
bool python_string_value(std::string_view body, std::string& out) {
    for (size_t i = 0; i < body.size(); ++i) {
        char c = body[i];
        if (c == '\n' || c == '\r' || c == '\0') return false;
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i >= body.size()) return false;
        char e = body[i];
        auto hex = [&](size_t digits) -> bool {
            uint32_t cp = 0;
            for (size_t k = 1; k <= digits; ++k) {
                if (i + k >= body.size()) return false;
                int h = hex_value(body[i + k]);
                if (h < 0) return false;
                cp = cp * 16 + static_cast<uint32_t>(h);
            }
            if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
            append_utf8(out, cp);
            i += digits;
            return true;
        };
        switch (e) {
            case '\n': break;  // line continuation
            case '\r':
                if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
                break;
            case '\\': out += '\\'; break;
            case '\'': out += '\''; break;
            case '"': out += '"'; break;
            case 'a': out += '\a'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'v': out += '\v'; break;
            case 'x':
                if (!hex(2)) return false;
                break;
            case 'u':
                if (!hex(4)) return false;
                break;
            case 'U':
                if (!hex(8)) return false;
                break;
            case 'N': return false;
            default:
                if (e >= '0' && e <= '7') {
                    uint32_t cp = static_cast<uint32_t>(e - '0');
                    for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
                        cp = cp * 8 + static_cast<uint32_t>(body[++i] - '0');
                    append_utf8(out, cp);
                } else {
                    out += '\\';  // unknown escapes stay as written
                    out += e;
                }
        }
    }
    return true;
}

class Parser {
public:
    explicit Parser(std::string_view s) : t_(s) {}

    Requirement requirement() {
        Requirement r;
        t_.skip_ws();
        long n = t_.identifier();
        if (n == kNoMatch) t_.stop("expected_name");
        r.name = std::string(t_.take(n));
        t_.skip_ws();
        r.extras = extras();
        t_.skip_ws();
        details(r);
        if (t_.end() == kNoMatch) t_.stop("expected_end");
        return r;
    }

    MarkerList full_marker() {
        MarkerList m = marker();
        if (t_.end() == kNoMatch) t_.stop("expected_end");
        return m;
    }

private:
    std::vector<std::string> extras() {
        std::vector<std::string> out;
        if (t_.ch('[') == kNoMatch) return out;
        t_.take(1);
        t_.skip_ws();
        if (long n = t_.identifier(); n != kNoMatch) {
            out.emplace_back(t_.take(n));
            for (;;) {
                t_.skip_ws();
                if (t_.identifier() != kNoMatch) t_.stop("expected_comma_between_extras");
                if (t_.ch(',') == kNoMatch) break;
                t_.take(1);
                t_.skip_ws();
                long m = t_.identifier();
                if (m == kNoMatch) t_.stop("expected_extra_after_comma");
                out.emplace_back(t_.take(m));
            }
        }
        t_.skip_ws();
        if (t_.ch(']') == kNoMatch) t_.stop("expected_bracket_close");
        t_.take(1);
        return out;
    }

    void details(Requirement& r) {
        if (t_.ch('@') != kNoMatch) {
            t_.take(1);
            t_.skip_ws();
            long n = t_.url();
            if (n == kNoMatch) t_.stop("expected_url");
            r.url = std::string(t_.take(n));
            if (t_.end() != kNoMatch) return;
            if (t_.ws() == kNoMatch) t_.stop("expected_ws_after_url");
            t_.skip_ws();
            if (t_.end() != kNoMatch) return;
            r.marker = requirement_marker("expected_semicolon_after_url");
            return;
        }
        std::string spec = specifier();
        auto set = SpecifierSet::parse(spec);
        if (!set) t_.stop("expected_end");  // unreachable: the token grammar is the specifier's
        r.specifier = std::move(*set);
        t_.skip_ws();
        if (t_.end() != kNoMatch) return;
        r.marker = requirement_marker(spec.empty() ? "expected_semicolon_after_name" : "expected_semicolon_after_specifier");
    }

    Marker requirement_marker(const char* missing_semicolon) {
        if (t_.ch(';') == kNoMatch) t_.stop(missing_semicolon);
        t_.take(1);
        MarkerList m = marker();
        t_.skip_ws();
        return Pep508Parser::make_marker(std::move(m));
    }

    std::string specifier() {
        bool paren = t_.ch('(') != kNoMatch;
        if (paren) t_.take(1);
        t_.skip_ws();
        std::string out;
        for (long n; (n = t_.specifier()) != kNoMatch;) {
            out += t_.take(n);
            if (t_.version_prefix_trail() != kNoMatch) t_.stop("wildcard_operator");
            if (t_.version_local_trail() != kNoMatch) t_.stop("local_operator");
            t_.skip_ws();
            if (t_.ch(',') == kNoMatch) break;
            out += t_.take(1);
            t_.skip_ws();
        }
        t_.skip_ws();
        if (paren) {
            if (t_.ch(')') == kNoMatch) t_.stop("expected_paren_close_specifier");
            t_.take(1);
        }
        return out;
    }

    MarkerList marker() {
        MarkerList list;
        list.items.push_back(atom());
        for (long n; (n = t_.boolop()) != kNoMatch;) {
            MarkerElement op;
            op.kind = t_.take(n) == "or" ? MarkerElement::Kind::Or : MarkerElement::Kind::And;
            list.items.push_back(std::move(op));
            list.items.push_back(atom());
        }
        return list;
    }

    MarkerElement atom() {
        t_.skip_ws();
        MarkerElement out;
        if (t_.ch('(') != kNoMatch) {
            t_.take(1);
            t_.skip_ws();
            out.kind = MarkerElement::Kind::Group;
            out.group = marker();
            t_.skip_ws();
            if (t_.ch(')') == kNoMatch) t_.stop("expected_paren_close_marker");
            t_.take(1);
        } else {
            out.comparison = item();
        }
        t_.skip_ws();
        return out;
    }

    MarkerComparison item() {
        MarkerComparison c;
        t_.skip_ws();
        c.lhs = operand();
        t_.skip_ws();
        c.op = marker_op();
        t_.skip_ws();
        c.rhs = operand();
        t_.skip_ws();
        return c;
    }

    MarkerOperand operand() {
        MarkerOperand o;
        if (long n = t_.variable(&o.variable); n != kNoMatch) {
            t_.take(n);
            o.is_variable = true;
            return o;
        }
        if (long n = t_.quoted_string(); n != kNoMatch) {
            size_t at = t_.pos;
            std::string_view token = t_.take(n);
            if (!python_string_value(token.substr(1, token.size() - 2), o.value)) t_.stop_at("bad_string", at);
            return o;
        }
        t_.stop("expected_marker_operand");
    }

    std::string marker_op() {
        if (long n = t_.keyword("in"); n != kNoMatch) {
            t_.take(n);
            return "in";
        }
        if (long n = t_.keyword("not"); n != kNoMatch) {
            t_.take(n);
            if (t_.ws() == kNoMatch) t_.stop("expected_ws_after_not");
            t_.skip_ws();
            long m = t_.keyword("in");
            if (m == kNoMatch) t_.stop("expected_in_after_not");
            t_.take(m);
            return "not in";
        }
        if (long n = t_.op(); n != kNoMatch) return std::string(t_.take(n));
        t_.stop("expected_marker_operator");
    }

    Tokenizer t_;
};

// PEP 685: extra values are stored normalised, so to_string() and equality see one spelling.
void normalize_extras(MarkerList& list) {
    for (auto& e : list.items) {
        if (e.kind == MarkerElement::Kind::Group) {
            normalize_extras(e.group);
        } else if (e.kind == MarkerElement::Kind::Comparison) {
            MarkerComparison* c = &e.comparison;
            if (c->lhs.is_variable && c->lhs.variable == MarkerVariable::Extra && !c->rhs.is_variable)
                c->rhs.value = canonicalize_name(c->rhs.value);
            else if (c->rhs.is_variable && c->rhs.variable == MarkerVariable::Extra && !c->lhs.is_variable)
                c->lhs.value = canonicalize_name(c->lhs.value);
        }
    }
}

Error syntax_error(const char* area, const Stop& s, std::string_view text) {
    return make_error(ExitCode::BadInput, std::string(area) + "." + s.kind,
                      {{"text", std::string(text)}, {"column", std::to_string(s.pos + 1)}});
}

}  // namespace

Marker Pep508Parser::make_marker(MarkerList list) {
    normalize_extras(list);
    Marker m;
    m.tree_ = std::make_shared<const MarkerTree>(MarkerTree{std::move(list)});
    return m;
}

Expected<Requirement> Pep508Parser::requirement(std::string_view text) {
    try {
        return Parser(text).requirement();
    } catch (const Stop& s) {
        return unexpected(syntax_error("requirement", s, text));
    }
}

Expected<Marker> Pep508Parser::marker(std::string_view text) {
    try {
        return make_marker(Parser(text).full_marker());
    } catch (const Stop& s) {
        return unexpected(syntax_error("marker", s, text));
    }
}

std::string quote_marker_value(const std::string& value) {
    std::string out = "\"";
    static const char* hexdig = "0123456789abcdef";
    // A backslash stays as written unless it would start an escape when parsed back.
    static constexpr std::string_view escapes = "\\'\"abfnrtvxuUN01234567\n\r";
    auto control = [](char c) {
        auto u = static_cast<unsigned char>(c);
        return c == '"' || u < 0x20 || u == 0x7f;
    };
    for (size_t i = 0; i < value.size(); ++i) {
        char c = value[i];
        auto u = static_cast<unsigned char>(c);
        // ... nor when the next character is written as an escape itself ("\\" + "\x02").
        bool plain_backslash =
            c == '\\' && i + 1 < value.size() && escapes.find(value[i + 1]) == std::string_view::npos && !control(value[i + 1]);
        if (control(c) || (c == '\\' && !plain_backslash)) {
            out += "\\x";
            out += hexdig[u >> 4];
            out += hexdig[u & 15];
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace envfix::standards::detail
