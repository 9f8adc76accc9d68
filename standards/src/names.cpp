#include "envfix/standards/names.hpp"

#include "chars.hpp"

namespace envfix::standards {

namespace {
std::string collapse(std::string_view name, char with) {
    std::string out;
    out.reserve(name.size());
    bool in_run = false;
    for (char c : name) {
        if (chars::separator(c)) {
            if (!in_run) out += with;
            in_run = true;
        } else {
            out += chars::lower(c);
            in_run = false;
        }
    }
    return out;
}
}  // namespace

std::string canonicalize_name(std::string_view name) { return collapse(name, '-'); }
std::string wheel_escape_name(std::string_view name) { return collapse(name, '_'); }

bool is_valid_name(std::string_view name) {
    if (name.empty() || !chars::alnum(name.front()) || !chars::alnum(name.back())) return false;
    for (char c : name)
        if (!chars::alnum(c) && !chars::separator(c)) return false;
    return true;
}

bool is_normalized_name(std::string_view name) {
    if (name.empty() || !chars::alnum(name.front()) || !chars::alnum(name.back())) return false;
    for (size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        if (c == '-') {
            if (name[i - 1] == '-') return false;
            continue;
        }
        if (!chars::digit(c) && !chars::lower_alpha(c)) return false;
    }
    return true;
}

Expected<std::string> validated_name(std::string_view name) {
    if (!is_valid_name(name)) return fail(ExitCode::BadInput, "name.invalid", {{"name", std::string(name)}});
    return canonicalize_name(name);
}

}  // namespace envfix::standards
