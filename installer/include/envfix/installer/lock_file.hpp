#pragma once
// The lock file `envfix lock` writes and `envfix apply` / `envfix fetch` read: the exact set of
// wheels (URL, sha256, size) that makes an environment's framework stack, so every workstation
// installs the same bytes. JSON with a format version (docs/provisioning.md#the-lock-file).
// Pure: lock_from_plan(), serialize_lock(), parse_lock() and lock_changes() touch no disk.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/plan/plan.hpp"
#include "envfix/standards/installed.hpp"

namespace envfix::installer {

inline constexpr int kLockFormatVersion = 1;

struct LockedWheel {
    std::string name;            // as its metadata writes it
    std::string canonical_name;  // PEP 503
    std::string version;
    std::string filename;
    std::string url;             // without credentials
    std::string sha256;          // lower-case hex, always present in a lock
    std::optional<uint64_t> size;
    bool framework = false;      // from the framework variant's index
};

struct LockFile {
    int format_version = kLockFormatVersion;
    std::string torch, variant, channel;  // the plan's choice
    std::string framework_index;
    std::string python;                   // "3.11.2": the interpreter it was resolved for
    std::string platform;                 // "linux-x86_64"
    std::string best_tag;
    std::vector<LockedWheel> wheels;      // sorted by canonical name
};

// The plan's wheels as a lock. A wheel without sha256 (nightly pages) must have it filled in by
// the caller first (it downloads the file); Errors: BadInput "apply.lock_no_hash" naming it;
// the plan's failure when it has one.
Expected<LockFile> lock_from_plan(const plan::Plan& plan);

std::string serialize_lock(const LockFile& lock);
// Errors: BadInput naming `source` and what is wrong (not JSON, another kind of file, a newer
// format version, a field missing or of the wrong type, a hash that is not sha256 hex).
Expected<LockFile> parse_lock(std::string_view json, std::string_view source);

// What installing a lock into an environment changes: the locked wheels not installed at that
// exact version, and the installed framework packages (torch, torchvision, torchaudio, xformers,
// triton, pytorch-triton) and CUDA runtime wheels of another CUDA major that the lock lacks.
struct LockChange {
    LockedWheel wheel;
    std::string before;  // the installed version it replaces, "" when new
};
struct LockRemoval {
    std::string name, version;
};
struct LockChanges {
    std::vector<LockChange> install;
    std::vector<LockRemoval> remove;
    size_t unchanged = 0;  // locked wheels installed at their exact version
    bool empty() const { return install.empty() && remove.empty(); }
};
LockChanges lock_changes(const LockFile& lock, const standards::InstalledSet& installed);

}  // namespace envfix::installer
