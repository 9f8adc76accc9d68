#pragma once
// Project names: PEP 503 normalisation, the core metadata validity rule, and the escaping
// wheel file names and .dist-info folders use (binary distribution format). Pure; no I/O.
//
//   canonicalize_name("Typing_Extensions") == "typing-extensions"
//   wheel_escape_name("nvidia-cudnn-cu12") == "nvidia_cudnn_cu12"
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"

namespace envfix::standards {

// PEP 503: every run of "-", "_", "." becomes one "-", and ASCII letters are lower-cased.
std::string canonicalize_name(std::string_view name);
// Core metadata "Name": ASCII letters and digits at both ends, "-", "_", "." inside.
bool is_valid_name(std::string_view name);
// Already in PEP 503 form (what canonicalize_name returns for a valid name).
bool is_normalized_name(std::string_view name);
// canonicalize_name(), failing (ExitCode::BadInput, "name.invalid") for an invalid name.
Expected<std::string> validated_name(std::string_view name);
// The form in wheel file names and "{name}-{version}.dist-info": runs of "-_." become "_",
// lower case.
std::string wheel_escape_name(std::string_view name);

}  // namespace envfix::standards
