#pragma once
// Wheel file names ({name}-{version}(-{build})?-{python}-{abi}-{platform}.whl) and source
// distribution names, parsed as packaging.utils does. The PyTorch index writes local versions
// with "+" ("torch-2.7.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl"), links often carry it
// as "%2B": names are percent-decoded first. Pure; no I/O.
//
//   auto w = parse_wheel_name("torch-2.7.0%2Bcu128-cp312-cp312-win_amd64.whl");
//   w->canonical_name == "torch"; w->version.local() == "cu128"; w->tags[0].platform == "win_amd64"
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/standards/tags.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::standards {

// PEP 427 build tag: a number, then any text; wheels with a higher one are preferred.
struct BuildTag {
    std::string number;  // decimal digits without leading zeros ("0" for zero)
    std::string suffix;  // the rest, as written
    std::strong_ordering operator<=>(const BuildTag& o) const;
    bool operator==(const BuildTag& o) const = default;
};

struct WheelName {
    std::string filename;  // percent-decoded
    std::string name;  // the name part as written ("nvidia_cudnn_cu12")
    std::string canonical_name;  // PEP 503 ("nvidia-cudnn-cu12")
    Version version;
    std::optional<BuildTag> build;
    std::string tag_text;  // "cp311.cp312-abi3-manylinux_2_17_x86_64"
    std::vector<Tag> tags;  // the compressed set expanded
};

struct SdistName {
    std::string filename;
    std::string canonical_name;
    Version version;
};

enum class DistributionKind { Wheel, Sdist, Other };
// By extension: ".whl"; ".tar.gz", ".zip" and the other archive forms pip builds from
// (".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tar"); anything else.
DistributionKind distribution_kind(std::string_view filename);

// Errors: a source distribution -> ExitCode::NotInstallable, "wheel_name.sdist" ("envfix installs
// wheels only"); anything else malformed -> ExitCode::BadInput, "wheel_name.not_wheel",
// "wheel_name.bad_escape", "wheel_name.parts", "wheel_name.bad_name", "wheel_name.bad_version",
// "wheel_name.bad_build", "wheel_name.bad_tags". Every message names the file.
Expected<WheelName> parse_wheel_name(std::string_view filename);
// "{name}-{version}.tar.gz" and the other sdist forms. Errors: ExitCode::BadInput,
// "sdist_name.invalid", "sdist_name.bad_version", "wheel_name.bad_escape".
Expected<SdistName> parse_sdist_name(std::string_view filename);

}  // namespace envfix::standards
