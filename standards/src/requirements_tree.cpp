// Reading a requirements file and the files it includes with -r / -c.
#include <set>

#include "envfix/common/fs.hpp"
#include "envfix/standards/requirements_file.hpp"

namespace envfix::standards {

namespace stdfs = std::filesystem;

namespace {

constexpr int kMaxDepth = 16;  // pip has no limit; a chain this deep is a mistake

void read_one(const stdfs::path& file, const std::string& display, int depth, std::set<stdfs::path>& seen, RequirementsTree& out) {
    std::error_code ec;
    auto key = stdfs::weakly_canonical(file, ec);
    if (!seen.insert(ec ? file : key).second || depth > kMaxDepth) return;
    auto text = fs::read_file(file);
    if (!text) {
        out.problems.push_back(make_error(ExitCode::BadInput, "reqfile.unreadable", {{"source", display}}));
        return;
    }
    out.files.push_back(parse_requirements_file(*text, display));
    // Copy what the includes need: read_one() grows out.files.
    std::vector<std::pair<std::string, size_t>> includes;
    for (const auto& line : out.files.back().lines)
        if (line.kind == ReqLineKind::Include || line.kind == ReqLineKind::Constraint) includes.emplace_back(line.target, line.line);
    for (const auto& [target, line] : includes) {
        if (target.find("://") != std::string::npos) {
            out.problems.push_back(make_error(ExitCode::BadInput, "reqfile.url_include",
                                              {{"source", display}, {"line", std::to_string(line)}, {"url", target}}));
            continue;
        }
        // Relative to the including file, as pip resolves them.
        stdfs::path rel(target);
        stdfs::path next = rel.is_absolute() ? rel : (file.parent_path() / rel).lexically_normal();
        std::string next_display =
            rel.is_absolute() ? target : (stdfs::path(display).parent_path() / rel).lexically_normal().generic_string();
        read_one(next, next_display, depth + 1, seen, out);
    }
}

}  // namespace

RequirementsTree read_requirements_tree(const stdfs::path& file, const std::string& display) {
    RequirementsTree out;
    std::set<stdfs::path> seen;
    read_one(file, display, 0, seen, out);
    return out;
}

}  // namespace envfix::standards
