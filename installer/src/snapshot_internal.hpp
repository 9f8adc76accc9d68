#pragma once
// Pieces the snapshot files share (private to installer/).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::installer::snap {

// Percent-encodes '%', ' ' and control bytes, so a path fits one field of a line.
std::string encode_path(std::string_view p);
std::optional<std::string> decode_path(std::string_view p);
// Relative, "/"-separated, without "." / ".." / empty segments, drive letters or backslashes.
bool safe_rel_path(std::string_view p);

// <store>/<first two hex>/<sha256>
inline std::filesystem::path object_path(const std::filesystem::path& store, const std::string& sha256) {
    return store / sha256.substr(0, 2) / sha256;
}

// What capture() saw of each file (parallel to Snapshot::files): its identity, and whether it
// was the one remembered last time (then its bytes are in the store: gc_snapshots() forgets
// every remembered identity when it removes stored files).
struct Seen {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t mtime_ns = 0;
    bool stored = false;
};

// The environment as it is now; with `store`, its files' bytes are put in the store and the
// identities remembered. Caller holds the lock when storing.
Expected<Snapshot> capture(const probe::Environment& env, bool store, Reporter& reporter, SnapshotStats* stats,
                           std::vector<Seen>* seen = nullptr);
// Puts the files of `s` (captured just now; `seen`: what capture() saw) in the store and
// remembers their identities.
Expected<void> store_captured(const probe::Environment& env, const Snapshot& s, SnapshotStats* stats,
                              const std::vector<Seen>* seen = nullptr);
// Gives `s` the next id and the time, and writes it.
Expected<void> write_snapshot(const std::filesystem::path& root, Snapshot& s);

}  // namespace envfix::installer::snap
