#pragma once
// A plan: the framework build chosen for a machine and an environment, why, and exactly what
// changes: every wheel to fetch (URL, sha256, size), every installed distribution that stays, and
// every one that goes. `envfix plan` prints it; `envfix install` executes it; `envfix lock` and
// `apply` store it (serialize_plan / parse_plan: JSON with a format version). planner.hpp
// computes it. Plain values (no pointers into the matrix or the index), so a plan outlives both.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/exit_codes.hpp"
#include "envfix/common/message.hpp"

namespace envfix::plan {

inline constexpr int kPlanFormatVersion = 1;

// Where a wheel's METADATA came from while planning.
enum class MetadataSource {
    Pep658,  // the index's "<wheel>.metadata" file
    Range,  // read out of the wheel with HTTP range requests
    Wheel,  // the whole wheel downloaded (the server ignores Range)
    Cache,  // envfix read it before (keyed by the wheel's sha256)
    Installed,  // the installed distribution's METADATA
};
std::string_view metadata_source_name(MetadataSource s);  // "pep658", "range", "wheel", "cache", "installed"
std::optional<MetadataSource> parse_metadata_source(std::string_view s);

struct InstalledRef {
    std::string version;  // as installed ("2.7.0+cu126")
    std::string dist_info;  // the .dist-info folder to uninstall
};

struct PlannedWheel {
    std::string name;  // as its metadata writes it ("nvidia-cudnn-cu12")
    std::string canonical_name;  // PEP 503
    std::string version;  // "2.11.0+cu128"
    std::string filename;
    std::string url;  // without credentials: the index configuration (netrc) supplies them
    std::string sha256;  // lower-case hex; "" when the index gives none (nightly pages)
    std::optional<uint64_t> size;
    std::string index;  // the index URL it was found on (credentials redacted)
    std::string requires_python;
    MetadataSource metadata = MetadataSource::Pep658;
    bool framework = false;  // taken from the chosen variant's index (torch packages)
    std::vector<std::string> required_by;  // "torch 2.11.0+cu128"; "" = asked for by the plan itself
    std::optional<InstalledRef> replaces;  // the installed distribution it replaces
};

struct KeptDist {
    std::string name;
    std::string canonical_name;
    std::string version;
    std::vector<std::string> required_by;
};

struct RemovedDist {
    std::string name;
    std::string canonical_name;
    std::string version;
    std::string dist_info;
    Message reason;
};

struct PlanAlternative {
    std::string torch;
    std::string variant;
    std::string channel;  // "stable", "nightly"
    bool fits = false;  // fits the machine (then `why` says why it was not chosen)
    std::vector<Message> why;
};

struct PlanTarget {
    bool this_machine = true;  // probed here, or described by --gpu/--os/--arch
    std::string python;  // "3.11.2" ("" when unknown)
    std::string interpreter;  // "" when planning without one
    std::string environment;  // the environment's folder ("" when none)
    std::string platform;  // "linux-x86_64"
    std::string best_tag;  // the interpreter's most preferred wheel tag
    std::vector<std::string> gpus;  // "NVIDIA GeForce RTX 5090 (sm_120)"
    std::string driver;  // "570.133.07" ("" when unknown)
};

struct PlanFailure {
    ExitCode code = ExitCode::NothingFits;
    Message message;
    std::vector<Message> hints;  // what would fit
};

struct Plan {
    int format_version = kPlanFormatVersion;
    bool offline = false;  // decided from the matrix alone: no wheels, no dependencies
    // The choice. `torch` is the concrete version on the index ("2.11.0+cu128"); offline, the
    // matrix's ("2.11.0", or a nightly prefix "2.16.0.dev").
    std::string torch;
    std::string release;  // the matrix's release ("2.11.0")
    std::string channel;  // "stable" | "nightly"
    std::string variant;  // "cu128", "cpu"
    std::string cuda;  // the bundled CUDA toolkit ("12.8.0"); "" for cpu
    std::string driver_needed;  // the lowest driver the choice runs on here ("" for cpu)
    std::string framework_index;  // where torch and its companions come from (redacted)
    PlanTarget target;
    std::vector<Message> reasons;  // one per rule that decided, then what the index changed
    std::vector<Message> warnings;
    std::vector<PlanAlternative> alternatives;
    std::vector<PlannedWheel> install;
    std::vector<KeptDist> keep;
    std::vector<RemovedDist> remove;
    std::optional<PlanFailure> failure;  // nothing fits: no choice, no packages
    bool ok() const { return !failure.has_value(); }
};

// JSON, format version kPlanFormatVersion (docs/plan.md "The plan file"). Messages are stored as
// catalog key and arguments; with `render`, each also gets its text ("message").
std::string serialize_plan(const Plan& plan, const std::function<std::string(const Message&)>& render = {});
// Errors: BadInput naming `source` and what is wrong (not JSON, a newer format version, a field
// missing or of the wrong type).
Expected<Plan> parse_plan(std::string_view json, std::string_view source);

}  // namespace envfix::plan
