#pragma once
// PEP 425 compatibility tags: parsing tag triples and compressed tag sets, and the ordered list
// of tags an interpreter accepts, computed from its probe::PythonFacts as
// packaging.tags.sys_tags() computes it for the running interpreter (CPython abi3 back to cp32,
// free-threaded "cp313t" without abi3, "none", "py3x"; manylinux PEP 600 and legacy aliases,
// musllinux, macOS versions and universal2, Windows). Pure; no I/O.
//
//   auto supported = supported_tags(facts);               // best first
//   auto wheel = parse_wheel_name("torch-2.7.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl");
//   supported.rank(wheel->tags);                           // 0 = best; nullopt = cannot install
//
// synthetic_facts() describes an interpreter on another machine (plan --python 3.12 --os windows
// --arch x86_64), for tags and markers.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/probe/python_facts.hpp"

namespace envfix::standards {

struct Tag {
    std::string interpreter;  // "cp312", "py3"
    std::string abi;  // "cp312", "abi3", "none"
    std::string platform;  // "manylinux_2_28_x86_64", "win_amd64", "any"
    // One "interpreter-abi-platform" triple; lower-cased. Errors: ExitCode::BadInput, "tag.invalid".
    static Expected<Tag> parse(std::string_view triple);
    std::string to_string() const { return interpreter + "-" + abi + "-" + platform; }
    auto operator<=>(const Tag&) const = default;
};

// A compressed tag set ("cp311.cp312-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64"): every
// combination, interpreters outermost, duplicates removed. Empty parts are errors ("tag.invalid").
Expected<std::vector<Tag>> parse_tag_set(std::string_view compressed);

// The tags one interpreter installs, most preferred first.
class SupportedTags {
public:
    SupportedTags() = default;
    explicit SupportedTags(std::vector<Tag> ordered);  // a repeated tag keeps its first place

    const std::vector<Tag>& tags() const { return tags_; }
    std::optional<size_t> priority(const Tag& t) const;  // 0 = most preferred
    // A wheel's rank: the best priority among its tags; nullopt when none is supported. The
    // planner installs the wheel with the lowest rank (pip's rule).
    std::optional<size_t> rank(std::span<const Tag> wheel_tags) const;
    bool supports(std::span<const Tag> wheel_tags) const { return rank(wheel_tags).has_value(); }

private:
    std::vector<Tag> tags_;
    std::unordered_map<std::string, size_t> index_;  // "interpreter-abi-platform" -> position
};

// packaging.tags.sys_tags() for the interpreter the facts describe. Read from the facts:
// implementation_name, major/minor (else version), abiflags, free_threaded, ext_suffix (ABI of
// non-CPython interpreters; "_d" debug builds on Windows; 32-bit Linux builds), platform_system,
// sysconfig_platform (else platform_machine), glibc, musl, and for macOS the Darwin release in
// platform_release. Differences from packaging are listed in docs/standards.md.
SupportedTags supported_tags(const probe::PythonFacts& facts);
std::vector<std::string> platform_tags(const probe::PythonFacts& facts);  // best first
std::string interpreter_tag(const probe::PythonFacts& facts);  // "cp312", "pp310"

// Another machine's interpreter, for planning without running it.
struct TargetPlatform {
    std::string python;  // "3.12" or "3.12.4"
    std::string os;  // "linux", "windows", "macos" (also "win32", "darwin", "macosx")
    std::string arch;  // "x86_64" ("amd64", "x64"), "aarch64" ("arm64"), "i686" ("x86",
        // "win32"), "armv7l", "ppc64le", "s390x"
    std::optional<std::pair<int, int>> glibc;  // Linux; default 2.28 (what PyTorch wheels need)
    std::optional<std::pair<int, int>> musl;  // Linux with musl instead of glibc
    std::optional<std::pair<int, int>> macos;  // default 11.0 (first release on Apple silicon)
    bool free_threaded = false;  // "3.13t"
    std::string implementation = "cpython";  // or "pypy"
};
inline constexpr std::pair<int, int> kDefaultTargetGlibc{2, 28};
inline constexpr std::pair<int, int> kDefaultTargetMacos{11, 0};

// Facts as the probe would report them on that machine. Fields a running interpreter would
// add (paths, platform_version, the patch level when `python` has none) are guesses listed in
// `unknown`; ran = false. Errors: ExitCode::Usage, keys "target.bad_python", "target.unknown_os",
// "target.unknown_arch".
Expected<probe::PythonFacts> synthetic_facts(const TargetPlatform& target);

}  // namespace envfix::standards

template <>
struct std::hash<envfix::standards::Tag> {
    size_t operator()(const envfix::standards::Tag& t) const noexcept { return std::hash<std::string>{}(t.to_string()); }
};
