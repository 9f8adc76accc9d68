#pragma once
// Loading the matrix: from the snapshot built into the binary (the default: profiles/*.yaml
// checked and compiled at build time, decoded in microseconds), or from YAML files on disk
// (--profiles DIR, ENVFIX_PROFILES_DIR) with the same schema check. Schema errors are
// ExitCode::ProfileInvalid with file:line; a missing or unreadable file is ExitCode::BadInput.
#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/matrix/matrix.hpp"

namespace envfix::matrix {

// The files a profiles folder holds, relative to it.
inline constexpr std::array<std::string_view, 5> kProfileFiles = {"matrix/releases.yaml", "matrix/cuda.yaml", "gpus/architectures.yaml",
                                                                  "gpus/devices.yaml", "gpus/models.yaml"};

struct ProfileText {
    std::string name;  // one of kProfileFiles
    std::string display;  // how errors name it: "profiles/matrix/releases.yaml" or a full path
    std::string text;
};

// Pure: parses and checks the given texts (every kProfileFiles entry must be present).
Expected<Matrix> parse_profiles(const std::vector<ProfileText>& files);
// Reads DIR/<each of kProfileFiles> and parses them.
Expected<Matrix> load_profiles_dir(const std::filesystem::path& dir);
// The copy built into the binary.
Expected<Matrix> load_embedded_profiles();
// What envfix uses: `dir` (--profiles) if given, else ENVFIX_PROFILES_DIR, else the built-in copy.
Expected<Matrix> load_profiles(const std::optional<std::filesystem::path>& dir = std::nullopt);

// The snapshot format the build embeds (versioned; decode rejects other versions).
std::string encode_snapshot(const Matrix& m);
Expected<Matrix> decode_snapshot(std::string_view bytes);

}  // namespace envfix::matrix
