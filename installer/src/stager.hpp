#pragma once
// Writing a transaction's new files into its staging folders, in parallel: archive entries are
// read from the wheel file, inflated into bounded buffers (memory does not grow with the entry
// sizes or the thread count), hashed on the way, checked against the wheel's RECORD and written;
// largest files first, so one big library does not finish last.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/wheel.hpp"
#include "envfix/installer/wheel_plan.hpp"

namespace envfix::installer {

struct StageItem {
    const WheelFile* wheel = nullptr;    // the archive (Extracted, Script, archive hash)
    const PlannedFile* file = nullptr;   // nullptr: hash the whole archive (direct_url.json)
    PathText stage;                      // where to write
    // Not empty: the same file, verified when it was cached (unpacked_store.hpp); hard-linked
    // (copied across filesystems) instead of inflated, the RECORD row taken as its digest. When
    // it is missing or its size is wrong, the entry is inflated as usual.
    PathText linked_from;
    // linked_from is the environment's installed copy (keep_links.hpp), not a cache entry: hashed
    // after linking, and inflated instead when its bytes or exec bit differ from the wheel's.
    bool verify_link = false;
    // With verify_link: the identity under which the snapshot of the present vouched for
    // linked_from's bytes being the wheel's (KnownInstalled). The staged link, the same inode with
    // the same size and mtime, is trusted then without being read.
    struct Identity {
        uint64_t device = 0, inode = 0, size = 0;
        int64_t mtime_ns = 0;
    };
    std::optional<Identity> vouched;
    // Not 0: linked_from's data was on the disk at this time (ns; its unpacked entry's mark):
    // StagedDigest::on_disk when it is hard-linked unchanged since (mtime not later).
    int64_t on_disk_since_ns = 0;
    // Not 0 (a file of the unpacked cache): linked only when not modified after this time (ns; its
    // entry's marker): the cache's inodes are shared with every environment that installed the
    // wheel, and an edit in place in one must not reach the next.
    int64_t made_before_ns = 0;
};

struct StagedDigest {
    std::string algorithm;  // "sha256" ...; the archive hash: "sha256" with a hex digest
    std::string digest;     // RECORD encoding (urlsafe base64), hex for the archive hash
    uint64_t size = 0;
    bool linked = false;    // linked_from was used (nothing inflated)
    bool same_inode = false;  // linked_from hard-linked, not copied: the staged file is its inode
    bool on_disk = false;     // and its data on the disk already (StageItem::on_disk_since_ns)
    bool vouched = false;     // verify_link: trusted by StageItem::vouched, not read
};

struct StageOptions {
    unsigned threads = 0;               // 0: twice the cores, 4 to 32
    std::string interpreter;            // for "#!python" scripts
    std::string line_end = "\n";        // after the rewritten shebang (os.linesep of the target)
    Reporter* reporter = nullptr;       // progress
    // Entries up to this size are inflated whole with libdeflate, larger ones streamed (ISA-L, zlib)
    // (0: 1 MiB; tests lower it to reach the streamed path with small wheels).
    size_t whole_up_to = 0;
    // Whole-entry buffers of 2 MiB the run may hold (0: 8). Unpacking while downloading runs
    // several at once, with 2 each.
    size_t pool_buffers = 0;
    // Streamed entries from this size are hashed and written on a thread of their own behind the
    // inflating (write_behind.hpp; 0: 16 MiB; tests lower it).
    uint64_t write_behind_from = 0;
    // Set: the run goes on beside work it must not slow (a wheel's large files still inflating
    // while its other files are staged). Its workers start at the lowest priority, taking only the
    // cores the others leave; once `beside` returns (called on a thread of the caller's
    // priority) as many again join them at the caller's, since nice 19 cannot be undone.
    std::function<void()> beside;
    // Set: receives when the run's last file was written (-vv; with `beside`, the run itself
    // ends only once that work has).
    std::chrono::steady_clock::time_point* last_written = nullptr;
};

// One digest per item, in the items' order. Errors: "wheel.hash_mismatch" (BadWheel) naming the
// wheel and the entry, the zip errors, file errors (DiskFull, PermissionDenied), Interrupted.
// Files already written stay in the staging folder (the transaction removes it).
Expected<std::vector<StagedDigest>> stage_items(const std::vector<StageItem>& items, const StageOptions& options);

}  // namespace envfix::installer
