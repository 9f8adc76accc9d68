#pragma once
// The shape every probe cache file shares: {"version": N, "entries": {"<absolute path>": ...}},
// written atomically; a missing, damaged or other-version file reads as no entries.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

#include "envfix/common/error.hpp"

namespace envfix::probe {

// The "entries" object of `file` when its version is `version`.
std::optional<nlohmann::json> read_cache_entries(const std::filesystem::path& file, int version);
// Writes {"version", "entries"} atomically, creating the folder. Entries another envfix process
// wrote since this one read the file are kept when their files still exist (two processes
// reading different environments both keep their results; for the same key, this one wins).
Expected<void> write_cache_entries(const std::filesystem::path& file, int version, nlohmann::json entries);
// The key of a file in a cache: its absolute, lexically normal path.
std::string cache_key(const std::filesystem::path& file);

}  // namespace envfix::probe
