#pragma once
// What `--torch` and the apply spec's `torch:` take, and which matrix releases it lets through.
// A PEP 440 specifier set (">=2.7,<2.12", "==2.7.1+cu128"), or a bare version as conda reads
// `torch=2.7`: "2.7" is the 2.7 line (==2.7.*), "2.7.1" that release (==2.7.1.*); a bare version
// with a pre-release, post-release or local label is that exact version (==V).
#include <functional>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"
#include "envfix/matrix/matrix.hpp"
#include "envfix/standards/specifier.hpp"

namespace envfix::plan {

struct TorchFilter {
    standards::SpecifierSet spec;
    std::string text;  // the specifier set, as written or as a bare version was read ("==2.7.*")
};

// Errors: the specifier parser's (BadInput, "specifier.*").
Expected<TorchFilter> parse_torch_filter(std::string_view text);

// Whether a matrix release passes: the matrix names releases without local labels, so
// "==2.11.0+cu126" lets release 2.11.0 through (tested with each label the specifiers pin).
std::function<bool(const matrix::Release&)> release_filter(const standards::SpecifierSet& spec);

}  // namespace envfix::plan
