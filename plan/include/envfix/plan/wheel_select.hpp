#pragma once
// Which file of a project page an interpreter installs, per version (pure): wheels only, the
// lowest tag rank wins (pip's rule), a higher build tag breaks ties; Requires-Python must hold for
// the interpreter's full version; yanked files are kept but marked (the resolver takes them only
// for an exact pin, PEP 592). What was left out is counted, so "no wheel for cp313" can be said.
//
//   auto sel = select_wheels(page.files, "torch", {.tags = &tags, .python = py});
//   sel.candidates.front().version  // newest installable version
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/network/index_page.hpp"
#include "envfix/standards/tags.hpp"
#include "envfix/standards/version.hpp"
#include "envfix/standards/wheel_name.hpp"

namespace envfix::plan {

struct WheelCandidate {
    standards::Version version;
    network::IndexFile file;
    standards::WheelName wheel;
    size_t rank = 0;  // SupportedTags::rank of the chosen file: 0 = the interpreter's best tag
};

struct WheelSelectContext {
    const standards::SupportedTags* tags = nullptr;  // the interpreter's tags, best first
    standards::Version python;  // python_full_version, for Requires-Python
};

struct WheelSelection {
    std::vector<WheelCandidate> candidates;  // one per version, newest first
    size_t files = 0;  // files of the project on the page
    size_t other_project = 0;  // files named for another project
    size_t not_wheels = 0;  // sdists and other formats (envfix installs wheels only)
    size_t bad_names = 0;  // wheels whose name does not parse
    size_t other_tags = 0;  // wheels for other interpreters or platforms
    size_t requires_python = 0;  // wheels whose Requires-Python excludes this interpreter
    std::vector<std::string> tag_examples;  // a few tags seen on skipped wheels ("cp312-cp312-win_amd64")
};

WheelSelection select_wheels(const std::vector<network::IndexFile>& files, std::string_view project, const WheelSelectContext& ctx);

// Does a Requires-Python text admit this interpreter? An unparsable text admits it (pip warns
// and does the same).
bool requires_python_allows(std::string_view requires_python, const standards::Version& python);

}  // namespace envfix::plan
