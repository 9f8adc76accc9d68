#pragma once
// Which packages beyond the known ones may hold GPU code in one site-packages folder (those whose
// Requires-Dist names torch: their RECORDs' libraries, or the folders of ones without a RECORD),
// cached by the state of the folder's list of distributions, so a warm doctor does not read the
// METADATA of every distribution and the RECORDs of transformers and the like again (1.3 MB of
// them in the GPU machine's venv). One JSON file, <cache_dir>/torch-dependents-v1.json, with a
// "version" field; written atomically. A missing, damaged or other-version file reads as empty.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/probe/binary_archs.hpp"

namespace envfix::probe {

struct DependentLibraries {
    std::vector<std::string> walk;   // folders walked whole, relative to the site-packages folder
    std::vector<GpuLibrary> listed;  // libraries their RECORDs list (absolute paths)
};

class DependentsCache {
public:
    static constexpr int kVersion = 1;
    static std::filesystem::path default_path();  // fs::cache_dir() / "torch-dependents-v1.json"
    static DependentsCache load(const std::filesystem::path& file);
    static DependentsCache in_memory();  // never saved

    DependentsCache(DependentsCache&&) noexcept;
    DependentsCache& operator=(DependentsCache&&) noexcept;
    ~DependentsCache();

    // What was found in `site_packages` when its state (resolver's dist_folder_state) was `state`.
    std::optional<DependentLibraries> find(const std::filesystem::path& site_packages, std::string_view state) const;
    void put(const std::filesystem::path& site_packages, std::string state, DependentLibraries found);
    size_t size() const;
    // Writes the file when something changed, dropping folders that are gone; entries another
    // process saved meanwhile are kept (probe/cache_file.hpp).
    Expected<void> save();

private:
    DependentsCache();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace envfix::probe
