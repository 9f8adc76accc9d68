#pragma once
// A switch (a wheel replacing an installed distribution of the same name, e.g. torch +cu126 ->
// +cu128) would rewrite thousands of files whose bytes do not change (.py, .pyi, headers). Where
// envfix installed the old version they stay where they are (unchanged_in_place); otherwise they
// are linked from the installed copy into staging instead of inflated, and the stager hashes each
// one before trusting it (a user may have edited it) and inflates the entry when it differs.
#include <cstdint>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "envfix/installer/snapshot.hpp"
#include "envfix/standards/installed.hpp"

namespace envfix::installer {

// What the replaced distributions' RECORDs say of each file that is being removed, by absolute
// lexically normal path (native string). Only plan_removal's files (inside the environment, not
// protected), so an untrusted RECORD cannot point staging anywhere else.
using InstalledRows = std::unordered_map<std::filesystem::path::string_type, standards::RecordEntry>;

// A new file the install would write: where, the wheel's RECORD row, the entry's size.
struct WantedFile {
    const std::filesystem::path::string_type* dest = nullptr;  // lexically normal (native)
    const standards::RecordEntry* row = nullptr;
    uint64_t size = 0;
    bool executable = false;  // the mode the stager would give it (PlannedFile::executable)
};

// Which of `wanted` are in place already with the wheel's bytes, so a switch leaves them where
// they are (not staged, not moved: torch +cu126 -> +cu128 changes about 100 of its 12 000 files):
// a replaced distribution lists the file, and the snapshot of the present (`known`, by path
// relative to `root`) holds the wheel's sha256 for it, its size, its exec bit, and owner write
// permission (the keep links' mode rule). That snapshot read every file whose identity or envfix
// RECORD it could not trust (snapshot.cpp), so this holds for any installer's files.
using KnownFiles = std::unordered_map<std::string, const SnapshotFile*>;
std::vector<bool> unchanged_in_place(const InstalledRows& installed, const std::vector<WantedFile>& wanted,
                                     const std::filesystem::path& root, const KnownFiles& known);

// Whether `p` is bytecode (__pycache__/name.*.pyc, or a name.pyc beside it) of one of `sources`
// (absolute .py paths): bytecode of a file left in place stays with it.
bool bytecode_of(const std::filesystem::path& p, const std::unordered_set<std::filesystem::path::string_type>& sources);

// Whether the installed file's RECORD row promises the bytes the wheel's row does: same hash
// algorithm and digest, and the size (when the installed row has one) equal to the entry's. Pure.
bool same_content(const standards::RecordEntry& installed, const standards::RecordEntry& wheel_row, uint64_t entry_size);

}  // namespace envfix::installer
