#pragma once
// The ready trees an install takes (ready_tree.hpp): a large wheel already unpacked comes into
// staging as a few renamed folders, its files neither made nor linked one by one.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "install_plan.hpp"
#include "ready_tree.hpp"

namespace envfix::installer {

// A wheel's ready tree: the planned files it holds, their writer keys, its layout (the want, its
// sha256 filled in once known), and the tree when this install took one (in the install's
// ClaimHolder, released whatever happens).
struct ReadyUse {
    std::optional<ready::Claimed> claimed;
    std::vector<size_t> files;  // planned files of the input
    std::vector<const PathText*> dests;  // their writer keys
    std::vector<char> in_tree;  // per planned file, when claimed
    ready::Want want;  // its sha256 set once asked for
    uint64_t bytes = 0;
    bool eligible = false;
    std::pair<std::string, std::string> ask;  // the next tree's name and want, to be written
    std::optional<std::filesystem::path> entry;  // its unpacked entry, when claimed
    std::optional<int64_t> since;  // that entry's mark (unpacked::entry_on_disk_since)
    std::filesystem::path into;  // the staging folder it went into
};

// The install's folder under ready/claimed/ (ready::new_holder): the trees it took, moved to
// done/ by one rename when they are merged, or when the install ends without merging them.
struct ClaimHolder {
    std::filesystem::path dir;
    explicit ClaimHolder(std::filesystem::path d) : dir(std::move(d)) {}
    ClaimHolder(const ClaimHolder&) = delete;
    ClaimHolder& operator=(const ClaimHolder&) = delete;
    ~ClaimHolder() {
        if (!dir.empty()) ready::release(dir);
    }
};

// Per input, the planned files a ready tree of its wheel holds; a wheel of at least `from` of
// them takes its tree when there is one, and names the next in its `ask`.
void take_ready_trees(const InstallPlan& plan, const std::vector<std::filesystem::path>& areas, const std::filesystem::path& unpacked_root,
                      size_t from, const std::filesystem::path& holder, std::vector<ReadyUse>& uses);
// The wants take_ready_trees named, written (a want of torch's is 1 MB): whether a tree is asked for.
bool ask_ready_trees(const std::vector<std::pair<std::string, std::string>>& asks, const std::filesystem::path& unpacked_root);
// Asks for the tree of a local wheel installed the first time, once staging has hashed it.
// Returns whether a tree is asked for.
bool ask_ready_tree(ReadyUse& use, const std::optional<std::string>& sha, const std::filesystem::path& unpacked_root);

// Each tree file looked at beside the staging, as a link from the entry is: one whose size is not
// its RECORD's (an edit in place through an environment's link, which changes the entry's inode)
// is staged again from its wheel; one changed since its entry was marked on the disk is written
// back in the commit.
struct TreeCheck {
    std::vector<char> bad, on_disk;  // per tree file
};
// tree_files: (input, index in its tree's want)
TreeCheck check_ready_trees(const std::vector<ReadyUse>& trees, const std::vector<std::pair<size_t, size_t>>& tree_files);

}  // namespace envfix::installer
