#pragma once
// Pieces the snapshot files share (private to installer/).
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/probe/environment.hpp"
#include "path_under.hpp"

namespace envfix::installer::snap {

// Percent-encodes '%', ' ' and control bytes, so a path fits one field of a line.
std::string encode_path(std::string_view p);
void append_encoded_path(std::string& out, std::string_view p);  // the same, onto `out`
void append_number(std::string& out, uint64_t v, int base);      // decimal or octal digits
std::optional<std::string> decode_path(std::string_view p);
// Whether the state folder, the store and its fan-out folders are real folders where they exist,
// not links (an environment made elsewhere could point them outside): checked before the store
// is written, read for a rollback or collected. Errors: UnsafeState "env.state_link".
Expected<void> check_store(const std::filesystem::path& env_root);

// <store>/<first two hex>/<sha256>
inline std::filesystem::path object_path(const std::filesystem::path& store, const std::string& sha256) {
    return store / sha256.substr(0, 2) / sha256;
}
// The same as native text (a rollback asks for thousands).
inline std::filesystem::path::string_type object_text(const std::filesystem::path& store, const std::string& sha256) {
    return join_generic_text(store, sha256.substr(0, 2) + "/" + sha256);
}

// What capture() saw of each file (parallel to Snapshot::files): its identity, and whether it
// was the one remembered last time (then its bytes are in the store: gc_snapshots() forgets
// every remembered identity when it removes stored files).
struct Seen {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t mtime_ns = 0;
    bool stored = false;
};

// The environment as it is now, read only: nothing stored or written (keep_captured() does that
// once the caller is sure to go ahead). `seen`: what it saw of each file.
Expected<Snapshot> capture(const probe::Environment& env, Reporter& reporter, SnapshotStats* stats, std::vector<Seen>& seen);
// A snapshot captured just now, under the same lock: its files' bytes put in the store (hard links
// where the filesystem has them). The slow part of keeping it, which a caller may run ahead on a
// thread of its own while nothing changes the environment (install() does, beside the unpacking
// and the staging). `added`: the objects it put there, which unstore() takes back where the
// snapshot is not kept after all. Adds to stats->stored and ->copied.
Expected<void> store_captured(const probe::Environment& env, const Snapshot& s, const std::vector<Seen>& seen, SnapshotStats* stats,
                              std::vector<std::filesystem::path>* added = nullptr);
// The objects store_captured() added removed again, and the folders that leaves empty up to the
// environment's state folder: the environment as it was before. `forget_identities`: a
// keep_captured() failed after it may have remembered them, so the remembered identities go too.
void unstore(const probe::Environment& env, const std::vector<std::filesystem::path>& added, bool forget_identities = false);
// A snapshot's file is its head (id, time, reason, distributions: known when it is kept) and its
// files' lines (known once it is captured), snapshot_to_text() both.
std::string snapshot_head_text(const Snapshot& s);
std::string snapshot_files_text(const Snapshot& s);

// What keeping a captured snapshot writes that does not depend on when or why it is kept: the
// remembered identities' file and the snapshot's files' lines. 17 000 files' take 50-90 ms to
// make, so StoredAhead makes them beside the unpacking.
struct KeptTexts {
    std::string identities;
    std::string files;
};
KeptTexts kept_texts(const Snapshot& s, const std::vector<Seen>& seen);

// Keeps a snapshot captured just now under the same lock: store_captured() unless `stored`, its
// files' identities remembered, then written with the next id, the time, `reason` and `name`
// (its file flushed unless `sync` is Cache: install() flushes it with its transaction's commit).
// Adds its time to stats->seconds.
Expected<void> keep_captured(const probe::Environment& env, Snapshot& s, const std::vector<Seen>& seen, std::string reason,
                             std::string name, SnapshotStats* stats, bool stored = false, fs::Sync sync = fs::Sync::Durable,
                             const KeptTexts* texts = nullptr);
// Where the snapshot `id` of the environment at `env_root` is written.
std::filesystem::path snapshot_file(const std::filesystem::path& env_root, const std::string& id);

// A captured snapshot stored on a thread of its own while its caller goes on (install() stages
// meanwhile), then kept; what it stored is taken back unless it was kept (with the remembered
// identities where a keep failed half way), and it is waited for in any case before it goes,
// which must come before the snapshot and the `seen` it reads go.
class StoredAhead {
public:
    explicit StoredAhead(const probe::Environment& env) : env_(env) {}
    ~StoredAhead();
    StoredAhead(const StoredAhead&) = delete;
    StoredAhead& operator=(const StoredAhead&) = delete;
    // Begins store_captured(); where no thread can be started, keep() stores in turn.
    void start(const Snapshot& s, const std::vector<Seen>& seen);
    // keep_captured() once what was stored ahead is there (its counts added to `stats`).
    Expected<void> keep(Snapshot& s, const std::vector<Seen>& seen, std::string reason, SnapshotStats& stats,
                        fs::Sync sync = fs::Sync::Durable);

private:
    const probe::Environment& env_;
    std::future<Expected<void>> storing_;
    SnapshotStats stats_;
    std::vector<std::filesystem::path> added_;
    KeptTexts texts_;  // made on the storing thread once it stored
    bool started_ = false, keeping_ = false, kept_ = false;  // nothing to take back unless started or keeping
};

}  // namespace envfix::installer::snap
