#pragma once
// The cache of unpacked wheels shared by every environment: fs::cache_dir()/unpacked/.
// Layout (version 1, the "v1" folder):
//   unpacked/v1/<wheel sha256>/ENVFIX-UNPACKED   the marker: format version, the sha256, file count
//   unpacked/v1/<wheel sha256>/f/<zip entry>     each file the wheel installs as it is, named by its
//                                               entry's index in the archive (fixed by the hash)
//   unpacked/v1/keys/<path digest>               a local wheel's sha256, valid while its size,
//                                               mtime and inode are the recorded ones
//   unpacked/v1/tmp/                             entries being made (renamed into place whole)
// An entry is made from files already checked against the wheel's RECORD, as hard links of the
// staged files, and renamed into place whole with its marker inside: a reader never sees half an
// entry; a folder without a valid marker is never used. Installing a wheel whose entry exists
// hard-links its files into staging (copies across filesystems) instead of inflating them.
// docs/snapshots.md#the-unpacked-wheel-cache.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/installer/wheel_cache.hpp"

namespace envfix::installer {

std::filesystem::path unpacked_cache_root();  // fs::cache_dir()/unpacked

struct UnpackedEntry {
    std::filesystem::path dir;
    std::string sha256;
    size_t files = 0;
    uint64_t bytes = 0;
};

// Every entry with a valid marker, sorted by sha256.
std::vector<UnpackedEntry> list_unpacked(const std::filesystem::path& root);

// Removes the whole versioned tree (entries, keys, entries being made). Files hard-linked into
// environments stay there: only the cache's names go.
Expected<CleanResult> clean_unpacked_cache(const std::filesystem::path& root);

}  // namespace envfix::installer
