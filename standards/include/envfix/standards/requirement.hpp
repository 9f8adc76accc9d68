#pragma once
// PEP 508 requirements ("torch[opt-einsum]>=2.6,<2.8; platform_system == 'Linux'",
// "pkg @ https://host/pkg.whl ; python_version >= '3.10'"), parsed exactly as
// packaging.requirements.Requirement does. Pure; no I/O.
//
//   auto r = Requirement::parse("torchvision==0.22.0; extra == 'vision'");
//   r->canonical_name() == "torchvision"; r->specifier.contains(v, true);
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/standards/marker.hpp"
#include "envfix/standards/specifier.hpp"

namespace envfix::standards {

struct Requirement {
    std::string name;  // as written
    std::vector<std::string> extras;  // as written, sorted, without duplicates
    SpecifierSet specifier;  // empty when none was given
    std::string url;  // "name @ url"; "" when none
    std::optional<Marker> marker;

    // Whitespace rules, extras, specifiers with or without parentheses, URLs and markers as
    // PEP 508 and packaging allow them. Errors: ExitCode::BadInput, keys "requirement.*" with
    // the text and the column (1-based) where parsing stopped.
    static Expected<Requirement> parse(std::string_view text);

    std::string canonical_name() const;  // PEP 503
    // Whether the requirement applies (true when it has no marker), the way pip reads a
    // distribution's dependencies: extra = "" when no extras are requested, else any of them.
    Expected<bool> applies(const MarkerEnvironment& env, std::span<const std::string> requested_extras = {}) const;

    // packaging's form: "name[a,b]!=1.1,>=1.0; python_version < \"3.9\"", "name@ url ; marker".
    std::string to_string() const;
    // Same canonical name, extras, specifiers, URL and marker.
    bool operator==(const Requirement& o) const;
};

}  // namespace envfix::standards
