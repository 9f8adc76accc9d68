#pragma once
// The distributions built against torch in one site-packages folder, beyond the stack: any of
// them may ship its own kernels (a custom op built for one torch and one architecture list), so
// doctor reads the libraries their RECORDs list (docs/doctor.md, "What doctor reads"). Finding
// them means reading every distribution's METADATA and their RECORDs, so the answer is kept per
// folder (probe/dependents_cache.hpp), keyed by the state of the folder's list of distributions.
//
//   auto found = dependents_of_torch(env.site_packages, &cache);   // Expected<DependentsScan>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/probe/dependents_cache.hpp"

namespace envfix::diagnosis {

// How long a folder's list of distributions must have stood still before what was read from it
// is cached: an installer creates a dist-info folder, then writes METADATA and RECORD into it,
// which leaves the site-packages folder's modification time as it was (git's "racily clean").
inline constexpr std::chrono::seconds kDistFolderSettled{2};

// Pure: the state a cached answer for a folder is valid for: the folder's identity (device,
// inode, size, modification time in ns) and the count and a digest of the names of its
// *.dist-info and *.egg-info entries, in any order.
std::string dist_folder_key(const fs::FileIdentity& folder, std::vector<std::string> entry_names);

struct DistFolderState {
    std::string key;
    bool settled = false;  // unchanged for kDistFolderSettled: what was read may be cached
};
// nullopt: missing, not a folder, or it cannot be listed.
std::optional<DistFolderState> dist_folder_state(const std::filesystem::path& site_packages);

// How they were found (EnvironmentStack::dependents keeps it for -vv).
struct DependentsCounts {
    size_t folders_cached = 0;  // folders answered from the cache
    size_t folders_read = 0;  // folders whose distributions were read
    size_t dists_read = 0;  // METADATA files read for it (0 on a warm run)
};
struct DependentsScan : DependentsCounts {
    std::vector<std::string> walk;  // over all folders, without repeats
    std::vector<std::pair<std::filesystem::path, probe::GpuLibrary>> listed;  // site-packages folder, library
};
// The stack's own packages (is_stack_package) and the known CUDA extension packages are left
// out: they are read anyway. `cache` may be nullptr. Errors: ExitCode::EnvBroken when a folder
// cannot be listed (as read_installed).
Expected<DependentsScan> dependents_of_torch(const std::vector<std::filesystem::path>& site_packages, probe::DependentsCache* cache);

}  // namespace envfix::diagnosis
