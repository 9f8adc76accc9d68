// Build step: checks the matrix (profiles/matrix/, profiles/gpus/) with envfix's own loader and
// writes a C++ source holding it encoded, so the binary carries the data (and needs no YAML
// parsing to start). A schema error stops the build with the same file:line message envfix
// would print.
//
//   compile_profiles <profiles dir> <output .cpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "envfix/common/fs.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "snapshot_source.hpp"

using namespace envfix;

// This program makes the snapshot, so it has none: the loader is linked in but never used.
namespace envfix::matrix::detail {
std::string_view embedded_snapshot() { return {}; }
}  // namespace envfix::matrix::detail

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: compile_profiles <profiles dir> <output.cpp>\n");
        return 2;
    }
    std::filesystem::path dir = argv[1];
    std::vector<matrix::ProfileText> files;
    for (auto name : matrix::kProfileFiles) {
        auto text = fs::read_file(dir / std::string(name));
        if (!text) return profiles_tool::fail(text.error());
        // Messages and source references name the file as the repository does.
        files.push_back({std::string(name), "profiles/" + std::string(name), std::move(*text)});
    }
    auto parsed = matrix::parse_profiles(files);
    if (!parsed) return profiles_tool::fail(parsed.error());
    return profiles_tool::write_source(argv[2], profiles_tool::snapshot_source("compile_profiles.cpp", "envfix::matrix::detail",
                                                                               "embedded_snapshot", matrix::encode_snapshot(*parsed)));
}
