#pragma once
// The declarative spec `envfix apply FILE.yaml` reads: which environments (an app folder, a venv
// with the interpreter to make it from, or an interpreter), the framework policy or a lock file
// for each, where packages come from (index, mirror, a fetched wheel folder), the cache, and
// whether to verify. Versioned (docs/provisioning.md#the-spec). Pure: parse_apply_spec() takes
// the text, check_apply_policies() the matrix besides; relative paths are resolved against
// `base_dir` (the spec's folder).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/matrix/matrix.hpp"

namespace envfix::installer {

inline constexpr int kApplySpecVersion = 1;

// Framework choice, as `envfix plan` takes it; unset fields inherit the spec's `policy`.
struct ApplyPolicy {
    std::optional<std::string> channel;     // auto | stable | nightly
    std::optional<std::string> variant;     // cu128, cpu
    std::optional<std::string> torch;       // PEP 440 specifier set
    std::optional<std::string> torch_from;  // pytorch | index
    std::optional<bool> verify;
    // Where each value was written (the environment's key, or the spec's `policy` for an
    // inherited one), for check_apply_policies()' messages; 0 when unset.
    int channel_line = 0, variant_line = 0, torch_line = 0;
};

struct ApplyEnvironment {
    std::string name;                       // label for output; default: the path
    std::optional<std::filesystem::path> venv;         // a venv (made when missing and base_python given)
    std::optional<std::filesystem::path> base_python;  // the interpreter a missing venv is made from
    std::optional<std::string> app;         // app profile name (with `path`)
    std::optional<std::filesystem::path> path;         // the app's folder
    std::optional<std::string> python;      // an interpreter (path or name on PATH)
    std::optional<std::filesystem::path> lock;         // install exactly this lock file
    ApplyPolicy policy;                     // merged with the spec's: what applies to this environment
    int line = 0;                           // where it is in the spec, for messages
};

struct ApplyIndex {
    std::optional<std::string> pytorch_index;  // URL or mirror name
    std::optional<std::string> index_url;
    std::vector<std::string> extra_index_urls;
    std::optional<std::string> cert;
    bool offline = false;
};

struct ApplySpec {
    int version = kApplySpecVersion;
    std::filesystem::path file;
    ApplyIndex index;
    std::optional<std::filesystem::path> cache_dir;
    // A folder (or URL) of wheels `envfix fetch` prepared: locked wheels are taken from it first.
    std::optional<std::string> wheels;
    std::string wheels_layout = "auto";    // auto (local folders: either) | flat | pep503
    std::vector<ApplyEnvironment> environments;
};

// Errors: BadInput "apply.spec_invalid" naming `source`, the line and what is wrong (YAML syntax,
// an unknown key, a wrong type or value, an environment that names no target or two), and
// "apply.spec_version" for a missing or newer `version`.
Expected<ApplySpec> parse_apply_spec(std::string_view text, const std::filesystem::path& source,
                                     const std::filesystem::path& base_dir);

// The policy values against the framework releases envfix knows, before any environment is
// touched: a `torch` that no release of the `channel` matches, a `variant` no release has, or
// none of the releases `torch` names. Errors: BadInput "apply.spec_invalid" at the value's line.
Expected<void> check_apply_policies(const ApplySpec& spec, const matrix::Matrix& matrix);

}  // namespace envfix::installer
