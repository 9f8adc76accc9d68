#pragma once
// Loading the app profiles: from the snapshot built into the binary (the default: profiles/apps/
// *.yaml, checked and compiled at build time with the matrix), or from YAML files on disk
// (--profiles DIR, ENVFIX_PROFILES_DIR: DIR/apps/*.yaml) with the same schema check. Schema
// errors are ExitCode::ProfileInvalid with file:line; a missing or unreadable folder or file is
// ExitCode::BadInput.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/apps/app_profile.hpp"
#include "envfix/common/error.hpp"
#include "envfix/matrix/matrix_loader.hpp"

namespace envfix::apps {

// Pure: parses and checks app profile texts (ProfileText::name is the file name, "comfyui.yaml").
// Names and aliases must be unique across files.
Expected<AppCatalog> parse_app_profiles(const std::vector<matrix::ProfileText>& files);
// The *.yaml files of DIR/apps, in name order (display names "DIR/apps/x.yaml").
Expected<std::vector<matrix::ProfileText>> read_app_profile_texts(const std::filesystem::path& profiles_dir);
// Reads and parses DIR/apps/*.yaml.
Expected<AppCatalog> load_app_profiles_dir(const std::filesystem::path& profiles_dir);
// The copy built into the binary.
Expected<AppCatalog> load_embedded_app_profiles();
// What envfix uses: `dir` (--profiles) if given, else ENVFIX_PROFILES_DIR, else the built-in copy.
Expected<AppCatalog> load_app_profiles(const std::optional<std::filesystem::path>& dir = std::nullopt);

// The snapshot format the build embeds (versioned; decode rejects other versions).
std::string encode_app_snapshot(const AppCatalog& c);
Expected<AppCatalog> decode_app_snapshot(std::string_view bytes);

}  // namespace envfix::apps
