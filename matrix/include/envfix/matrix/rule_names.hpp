#pragma once
// The words JSON documents use for the coverage and driver-rule verdicts (`envfix matrix --json`,
// `envfix doctor --json`), kept in one place.
#include <string_view>

#include "envfix/matrix/coverage.hpp"
#include "envfix/matrix/driver_rules.hpp"

namespace envfix::matrix {

// "native", "same-major", "family", "ptx-jit", "none".
std::string_view coverage_kind_name(CoverageKind k);
// "exact", "minor-compat", "too-old", "unknown", "not-needed".
std::string_view runtime_fit_name(RuntimeFit f);

}  // namespace envfix::matrix
