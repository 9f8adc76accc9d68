#pragma once
// Ready trees: a wheel of the unpacked-wheel cache with its files already hard-linked into the
// folders they take under site-packages, made after an install by envfix in the background, so
// the next install of that wheel renames a few folders into its staging instead of making ~1 000
// folders and linking 17 000 files (torch's stack; docs/performance.md, "Ready trees"). One tree
// serves one install; the install asks for the next one. Under <unpacked>/v2/ready/:
//   <name>.want  an install's request: the wheel's sha256, its entry's file count, and per file
//                (entry, size, path under the area)
//   <name>/      a tree: its state file and t/ (the files)
//   claimed/     a folder per install that takes trees: each tree it took renamed into it (one
//                install per tree), emptied into staging, then the folder moved to done/
//   done/        what installs left of the trees they took (empty folders), removed by the maker
//   tmp/         trees being made
// <name> is <sha256>-<16 hex digits of the want's 64-bit FNV-1a hash>: only an install whose plan
// puts the same files at the same paths finds it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::installer::ready {

struct TreeFile {
    size_t entry = 0;   // the zip entry: the entry's file f/<entry % 16>/<entry>
    uint64_t size = 0;  // checked where the maker links it
    std::string rel;    // '/'-separated, under the area (no "." or ".." part, no tab or newline)
};

struct Want {
    std::string sha256;      // the wheel's
    size_t entry_files = 0;  // its unpacked entry's marker count (unpacked::find_entry)
    std::vector<TreeFile> files;
};

// Version 1 text; decode returns nullopt for anything else, or a path that is not plainly
// relative and normal.
std::string encode_want(const Want& want);
std::optional<Want> decode_want(std::string_view text);
// "<sha256>-<16 hex digits of the encoding's FNV-1a hash>".
std::string tree_name(const std::string& sha256, std::string_view encoded);

std::filesystem::path ready_dir(const std::filesystem::path& unpacked_root);

// Records the want for the maker unless its tree or want is there already. Best effort (the
// trees are only an optimisation). True when a want is waiting for the maker.
bool ask(const std::filesystem::path& unpacked_root, const std::string& name, std::string_view encoded);

// A tree's state file: the version, and the entry it was linked from as it was then (its
// folder's identity and on-disk mark), so a tree outliving its entry (dropped by --force-reinstall
// or cache clean while the maker worked, then made again) is never taken.
std::string state_text(const std::string& entry_identity, int64_t on_disk_since_ns);

// The folder under claimed/ an install moves the trees it takes into: claimed/<unique>, made by
// the first claim (its time then keeps the maker's sweep of claimed/ off it while it is in use).
std::filesystem::path new_holder(const std::filesystem::path& unpacked_root);

// Takes the tree for this install: renamed into `holder` (another install cannot take it too).
// nullopt when there is none, or its state is not `state` (it is then discarded).
struct Claimed {
    std::filesystem::path dir;   // holder/<name>
    std::filesystem::path tree;  // dir/t
};
std::optional<Claimed> claim(const std::filesystem::path& unpacked_root, const std::string& name, const std::string& state,
                             const std::filesystem::path& holder);

// Whether a claimed tree holds only the want's files: each a regular file of its size, not
// modified after `made_before_ns` (its entry's on-disk mark), no link, no other file (one
// missing is linked from the entry). The cache is shared by every environment: a file added to a
// tree, or one edited in place, must not reach the next environment unrecorded. A tree that does
// not is discarded, and the install links file by file.
bool holds_only_its_files(const std::filesystem::path& tree, const Want& want, int64_t made_before_ns);

// Moves the tree's contents into `into` (a staging folder): each entry renamed whole where
// `into` has nothing of that name, a folder that exists there on both sides merged below it, a
// file that exists there an error. Returns the renames made.
Expected<size_t> merge(const std::filesystem::path& from, const std::filesystem::path& into);

// What is left of a claimed tree (empty folders; a whole tree the install did not use), or of a
// holder and every tree in it: moved to done/ by one rename, for the maker to remove (rmdir and
// unlink cost ~0.1 ms each on ext4 here: removing 13 trees' leftovers was 5-7 ms of a warm
// install). Removed here where the rename fails.
void discard(const Claimed& claimed);
void release(const std::filesystem::path& holder);

// Every tree and want of this wheel (--force-reinstall: the entry's inodes may have been edited).
void drop_trees(const std::filesystem::path& unpacked_root, const std::string& sha256);

// The maker is make_ready_trees() (envfix/installer/unpacked_cache.hpp), defined with these.

}  // namespace envfix::installer::ready
