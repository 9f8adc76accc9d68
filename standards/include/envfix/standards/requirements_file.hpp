#pragma once
// pip requirements files ("requirements.txt"), parsed line by line as pip reads them: comments
// (" #" or a leading "#"), "\" continuations, options (-r/--requirement, -c/--constraint,
// -e/--editable, -i/--index-url, --extra-index-url, -f/--find-links, --pre, --no-binary ...),
// per-requirement options (--hash, --config-settings), PEP 508 requirements with markers and
// "name @ url", bare URLs (git+https://...) and local paths. Pure: the caller reads the file
// (read_requirements_tree follows -r and -c).
//
//   auto file = parse_requirements_file(text, "ComfyUI/requirements.txt");
//   for (const auto& line : file.lines) if (line.kind == ReqLineKind::Requirement) line.requirements[0];
//
// One extension: a line pip would reject because it names several requirements separated by
// spaces ("torch==2.0.1+cu118 torchvision==0.15.2+cu118 --extra-index-url ..."), as kohya_ss's
// installer reads its files line by line, gives each of them.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/standards/requirement.hpp"

namespace envfix::standards {

enum class ReqLineKind {
    Requirement,  // PEP 508 (requirements holds one, or several on a kohya-style line)
    Include,  // -r FILE: target
    Constraint,  // -c FILE: target
    Editable,  // -e PATH|URL: target
    Url,  // a bare URL (git+https://..., https://.../x.whl): target
    Path,  // a local path or archive (".", "./sd-scripts", "x.whl"): target
    Option,  // a global option: target = its long name ("--extra-index-url"), value
    Invalid,  // error says why
};
std::string_view req_line_kind_name(ReqLineKind k);  // "requirement", "include", ...

struct RequirementsLine {
    size_t line = 0;  // 1-based physical line the logical line starts on
    std::string text;  // the logical line: continuations joined, comment removed, trimmed
    ReqLineKind kind = ReqLineKind::Invalid;
    std::vector<Requirement> requirements;
    std::string target;
    std::string value;
    std::vector<std::string> options;  // per-requirement options as written ("--hash=sha256:...")
    std::optional<Error> error;  // Invalid: ExitCode::BadInput, key "reqfile.*" with source and line
};

struct RequirementsFile {
    std::string source;  // how messages name it
    std::vector<RequirementsLine> lines;  // blank and comment-only lines left out
};

// Never fails as a whole: a line pip would refuse is kept as Invalid with its error.
RequirementsFile parse_requirements_file(std::string_view text, std::string_view source);

// Reads `file` and what it includes with -r / -c (relative to the including file), each file once.
// `display` names `file` in messages; included files are named relative to it. Files that cannot
// be read (a missing include, a URL include) are reported in `problems` (ExitCode::BadInput,
// "reqfile.unreadable" / "reqfile.url_include"), not followed.
struct RequirementsTree {
    std::vector<RequirementsFile> files;  // `file` first, then includes in the order met
    std::vector<Error> problems;
};
RequirementsTree read_requirements_tree(const std::filesystem::path& file, const std::string& display);

}  // namespace envfix::standards
