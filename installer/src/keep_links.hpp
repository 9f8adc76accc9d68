#pragma once
// A switch (a wheel replacing an installed distribution of the same name, e.g. torch +cu126 ->
// +cu128) rewrites thousands of files whose bytes do not change (.py, .pyi, headers). Those are
// linked from the installed copy into staging instead of inflated; the stager hashes each one
// before trusting it (a user may have edited it) and inflates the entry when it differs.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "envfix/resolver/installed.hpp"

namespace envfix::installer {

// What the replaced distributions' RECORDs say of each file that is being removed, by absolute
// lexically normal path. Only paths in `removing` (plan_removal's files: inside the environment,
// not protected) are considered, so an untrusted RECORD cannot point staging anywhere else.
using InstalledRows = std::map<std::filesystem::path, resolver::RecordEntry>;
InstalledRows installed_rows(const std::vector<const resolver::InstalledDist*>& replaced,
                             const std::set<std::filesystem::path>& removing);

// Whether the installed file's RECORD row promises the bytes the wheel's row does: same hash
// algorithm and digest, and the size (when the installed row has one) equal to the entry's. Pure.
bool same_content(const resolver::RecordEntry& installed, const resolver::RecordEntry& wheel_row, uint64_t entry_size);

}  // namespace envfix::installer
