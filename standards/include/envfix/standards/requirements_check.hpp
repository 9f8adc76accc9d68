#pragma once
// `envfix check`: pip check's question for an environment. Every installed distribution's
// Requires-Dist, markers evaluated for the environment's interpreter with extra = "" (as pip
// does: the extras a distribution was installed with are not recorded), against the installed
// versions (pre-releases allowed, local labels as PEP 440 says). docs/check.md lists where the
// answer differs from pip's and why.
//
//   auto set = read_installed(env.site_packages, {.headers_only = true});
//   auto result = check_requirements(*set, {.markers = marker_environment(env.facts),
//                                           .order = env.site_packages, .tags = &tags,
//                                           .wheel_tags = read_wheel_tags(*set)});
//   result.problems;   // missing, conflict, unsupported, bad-metadata
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/message.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/marker.hpp"
#include "envfix/standards/tags.hpp"

namespace envfix::standards {

enum class CheckProblemKind {
    Missing,  // a requirement names a distribution that is not installed
    Conflict,  // installed, at a version the requirement excludes
    Unsupported,  // installed from a wheel whose tags this interpreter does not accept
    BadMetadata,  // a Requires-Dist (or its marker) that cannot be read
};
std::string_view check_problem_kind_name(CheckProblemKind k);  // "missing", "conflict", "unsupported", "bad-metadata"

struct CheckProblem {
    CheckProblemKind kind = CheckProblemKind::Missing;
    std::string name;  // the requiring distribution, as its metadata writes it
    std::string version;  // its version
    std::string requirement;  // the requirement, normalised ("torch==2.6.0"); Unsupported: the wheel tags
    std::string dependency;  // PEP 503 name of what it requires ("" for Unsupported / BadMetadata)
    std::string installed;  // Conflict: the installed version of the dependency
    Message text;  // the sentence shown
};

struct CheckInput {
    MarkerEnvironment markers;  // the interpreter's (extra is set to "")
    std::vector<std::filesystem::path> order;  // site-packages in sys.path order: the first copy of a name wins
    const SupportedTags* tags = nullptr;  // nullptr: no platform check
    // Index-aligned with set.dists: the WHEEL file's tags (nullopt: no WHEEL file).
    std::vector<std::optional<std::vector<Tag>>> wheel_tags;
};

struct CheckResult {
    std::vector<CheckProblem> problems;  // by requiring name, then requirement text
    // Distributions whose metadata could not be read: they count as installed under their folder's
    // name and version (as pip 23.3 and later count them), their own requirements unchecked.
    std::vector<Message> skipped;
    size_t checked = 0;  // distributions whose requirements were read
    bool ok() const { return problems.empty(); }
};

// Pure.
CheckResult check_requirements(const InstalledSet& set, const CheckInput& in);

// The Tag lines of each distribution's WHEEL file (nullopt where there is none, or for egg-info).
// An unreadable tag is left out.
std::vector<std::optional<std::vector<Tag>>> read_wheel_tags(const InstalledSet& set);

}  // namespace envfix::standards
