#include "envfix/standards/requirement.hpp"

#include <algorithm>

#include "envfix/standards/names.hpp"
#include "pep508.hpp"

namespace envfix::standards {

Expected<Requirement> Requirement::parse(std::string_view text) {
    ENVFIX_TRY(Requirement r, detail::Pep508Parser::requirement(text));
    std::sort(r.extras.begin(), r.extras.end());
    r.extras.erase(std::unique(r.extras.begin(), r.extras.end()), r.extras.end());
    return r;
}

std::string Requirement::canonical_name() const { return canonicalize_name(name); }

Expected<bool> Requirement::applies(const MarkerEnvironment& env, std::span<const std::string> requested_extras) const {
    if (!marker) return true;
    MarkerEnvironment e = env;
    if (requested_extras.empty()) {
        e.extra.clear();
        return marker->evaluate(e);
    }
    bool any = false;
    for (const auto& x : requested_extras) {
        e.extra = x;
        ENVFIX_TRY(bool r, marker->evaluate(e));
        any = any || r;
    }
    return any;
}

std::string Requirement::to_string() const {
    std::string out = name;
    if (!extras.empty()) {
        out += '[';
        for (size_t i = 0; i < extras.size(); ++i) out += (i ? "," : "") + extras[i];
        out += ']';
    }
    out += specifier.to_string();
    if (!url.empty()) {
        out += "@ " + url;
        if (marker) out += ' ';
    }
    if (marker) out += "; " + marker->to_string();
    return out;
}

bool Requirement::operator==(const Requirement& o) const {
    auto canonical_extras = [](const std::vector<std::string>& xs) {
        std::vector<std::string> out;
        for (const auto& x : xs) out.push_back(canonicalize_name(x));
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    };
    return canonical_name() == o.canonical_name() && canonical_extras(extras) == canonical_extras(o.extras) && specifier == o.specifier &&
           url == o.url && marker == o.marker;
}

}  // namespace envfix::standards
