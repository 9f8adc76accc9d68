#pragma once
// Results of read_binary_archs cached by file identity (device, inode, size, mtime), so a
// second reading of torch's libraries costs a stat per file. One JSON file,
// <cache_dir>/binary-archs-v1.json, with a "version" field; written atomically. A missing,
// damaged or other-version file reads as an empty cache.
#include <filesystem>
#include <memory>
#include <optional>

#include "envfix/common/error.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/probe/binary_archs.hpp"

namespace envfix::probe {

class ArchCache {
public:
    static constexpr int kVersion = 1;
    static std::filesystem::path default_path();  // fs::cache_dir() / "binary-archs-v1.json"
    static ArchCache load(const std::filesystem::path& file);
    static ArchCache in_memory();  // never saved

    ArchCache(ArchCache&&) noexcept;
    ArchCache& operator=(ArchCache&&) noexcept;
    ~ArchCache();

    // The cached result for `file` when it was read with exactly this identity.
    std::optional<BinaryArchs> find(const std::filesystem::path& file, const fs::FileIdentity& id) const;
    void put(const std::filesystem::path& file, const fs::FileIdentity& id, const BinaryArchs& archs);
    size_t size() const;
    bool dirty() const;
    // Writes the cache when it changed, dropping entries whose files are gone. Safe to call
    // from several processes: the last writer wins, every reader sees a whole file.
    Expected<void> save();

private:
    ArchCache();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace envfix::probe
