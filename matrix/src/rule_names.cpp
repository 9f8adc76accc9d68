#include "envfix/matrix/rule_names.hpp"

namespace envfix::matrix {

std::string_view coverage_kind_name(CoverageKind k) {
    switch (k) {
        case CoverageKind::Native: return "native";
        case CoverageKind::SameMajor: return "same-major";
        case CoverageKind::Family: return "family";
        case CoverageKind::Jit: return "ptx-jit";
        case CoverageKind::None: break;
    }
    return "none";
}

std::string_view runtime_fit_name(RuntimeFit f) {
    switch (f) {
        case RuntimeFit::Exact: return "exact";
        case RuntimeFit::MinorCompat: return "minor-compat";
        case RuntimeFit::TooOld: return "too-old";
        case RuntimeFit::Unknown: return "unknown";
        case RuntimeFit::NotNeeded: return "not-needed";
    }
    return "unknown";
}

}  // namespace envfix::matrix
