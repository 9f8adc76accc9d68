// Build step: checks the app profiles (profiles/apps/*.yaml) with envfix's own loader and writes
// a C++ source holding them encoded, as compile_profiles.cpp does for the matrix.
//
//   compile_app_profiles <profiles dir> <output .cpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "envfix/apps/app_profiles.hpp"
#include "snapshot_source.hpp"

using namespace envfix;

// This program makes the snapshot, so it has none: the loaders are linked in but never used.
namespace envfix::matrix::detail {
std::string_view embedded_snapshot() { return {}; }
}  // namespace envfix::matrix::detail
namespace envfix::apps::detail {
std::string_view embedded_apps_snapshot() { return {}; }
}  // namespace envfix::apps::detail

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: compile_app_profiles <profiles dir> <output.cpp>\n");
        return 2;
    }
    auto texts = apps::read_app_profile_texts(argv[1]);
    if (!texts) return profiles_tool::fail(texts.error());
    for (auto& t : *texts) t.display = "profiles/apps/" + t.name;  // as the repository names them
    auto parsed = apps::parse_app_profiles(*texts);
    if (!parsed) return profiles_tool::fail(parsed.error());
    return profiles_tool::write_source(
        argv[2], profiles_tool::snapshot_source("compile_app_profiles.cpp", "envfix::apps::detail", "embedded_apps_snapshot",
                                                apps::encode_app_snapshot(*parsed)));
}
