#pragma once
// PEP 508 environment markers ("python_version >= '3.9' and sys_platform == 'linux'"), parsed
// and evaluated as packaging.markers.Marker does, against an environment taken from a
// probe::PythonFacts (this machine's interpreter or a synthetic one for another machine). Pure.
//
//   auto m = Marker::parse("platform_system == 'Linux' and extra == 'CUDA'");
//   auto env = marker_environment(facts);  env.extra = "cuda";
//   m->evaluate(env);                      // Expected<bool>
//
// Comparisons: when the right side makes a valid specifier with the operator and the left side
// is a valid version, PEP 440 decides (pre-releases allowed, "3.10" > "3.9"); otherwise the
// strings are compared as Python compares them ("in", "not in", "<" ...). "===" compares strings
// case-insensitively. "~=" on strings that are not versions, and comparisons of two literals or
// two variables, are evaluation errors. Extra names are compared normalised (PEP 685).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::probe {
struct PythonFacts;
}

namespace envfix::standards {

// The marker variables; the PEP 345 spellings os.name, sys.platform, platform.version,
// platform.machine, platform.python_implementation and python_implementation read the same ones.
enum class MarkerVariable : uint8_t {
    PythonVersion,
    PythonFullVersion,
    OsName,
    SysPlatform,
    PlatformRelease,
    PlatformSystem,
    PlatformVersion,
    PlatformMachine,
    PlatformPythonImplementation,
    ImplementationName,
    ImplementationVersion,
    Extra,
};
std::string_view marker_variable_name(MarkerVariable v);  // "python_version", ...

struct MarkerEnvironment {
    std::string python_version;  // "3.12"
    std::string python_full_version;  // "3.12.3"
    std::string os_name;  // "posix", "nt"
    std::string sys_platform;  // "linux", "win32", "darwin"
    std::string platform_release;
    std::string platform_system;  // "Linux", "Windows", "Darwin"
    std::string platform_version;
    std::string platform_machine;  // "x86_64", "AMD64", "arm64"
    std::string platform_python_implementation;  // "CPython"
    std::string implementation_name;  // "cpython"
    std::string implementation_version;  // "3.12.3"
    std::string extra;  // the extra being evaluated, "" for none

    const std::string& get(MarkerVariable v) const;
    std::string& get(MarkerVariable v);
};

// The environment of the interpreter the facts describe, with extra = "". A python_full_version
// ending in "+" (untagged builds) gets "local" appended, as packaging does.
MarkerEnvironment marker_environment(const probe::PythonFacts& facts);

namespace detail {
struct MarkerTree;
struct Pep508Parser;
}  // namespace detail

class Marker {
public:
    // Errors: ExitCode::BadInput, keys "marker.*" with the text and the column (1-based).
    static Expected<Marker> parse(std::string_view text);

    // Errors: ExitCode::BadInput, "marker.undefined_comparison" ("~=" on non-versions),
    // "marker.two_literals", "marker.two_variables".
    Expected<bool> evaluate(const MarkerEnvironment& env) const;

    // packaging's form: variables bare, values in double quotes, single spaces, parentheses
    // only where the source grouped more than one term. Values holding a double quote,
    // backslash or control character are written with escapes so the text parses back.
    std::string to_string() const;
    bool operator==(const Marker& o) const { return to_string() == o.to_string(); }

    std::vector<MarkerVariable> variables() const;  // each variable read, in first-use order
    std::vector<std::string> extras() const;  // normalised extra names compared against

private:
    friend struct detail::Pep508Parser;
    Marker() = default;  // made by parse() only: a marker always has a tree
    std::shared_ptr<const detail::MarkerTree> tree_;  // immutable, so copies share it
};

}  // namespace envfix::standards
