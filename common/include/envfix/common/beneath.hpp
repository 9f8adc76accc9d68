#pragma once
// Paths inside a folder, reached without following links. What envfix reads back from an
// environment (a journal, a snapshot) names paths in it, and an environment may come from
// someone else (a downloaded portable app): a link planted in a folder on the way must not lead a
// move, a write or a removal outside it (docs/security.md).
#include <filesystem>
#include <string_view>
#include <unordered_map>

#include "envfix/common/error.hpp"

namespace envfix::fs {

// Whether every folder on the way from `root` to root/`rel` is a real folder, not a link (or, on
// Windows, another reparse point). `rel`: relative, '/'-separated, no "." or ".." part. The leaf
// itself is not looked at: a move or removal acts on a link, not on what it points to; a missing
// folder on the way is no error (nothing can be reached through it). Errors: UnsafeState
// "fs.link_on_the_way" naming the path and the part that is a link.
Expected<void> check_no_links(const std::filesystem::path& root, std::string_view rel);

// Renames root/`from` to root/`to`, failing when `to` exists, the folders on the way to each
// opened beneath `root` without following a link: a link planted between the check and the move
// cannot redirect it (Linux: openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel
// has it, else one part at a time with O_NOFOLLOW; elsewhere check_no_links, then the rename).
// Windows waits out a file held by another program for about 3 s (antivirus, the indexer).
// Errors: UnsafeState "fs.link_on_the_way" for a link on the way; Locked "fs.in_use" naming
// root/`from` when another program still holds it (Windows); else "fs.write_failed" with the exit
// code of the system's error, naming root/`to`.
Expected<void> move_beneath(const std::filesystem::path& root, std::string_view from, std::string_view to);

// Whether `p`, its links followed, lies at or under `root`, its links followed too. A path that
// is not there yet counts by its nearest folder that is.
bool resolves_beneath(const std::filesystem::path& root, const std::filesystem::path& p);

// Whether files named by their native paths lie inside a root with their links followed, each
// folder looked at once: a real folder inside a folder that is inside is inside (one lstat), a
// link is resolved. For the many files a RECORD lists, where a planted link could lead outside.
class InsideRoot {
public:
    explicit InsideRoot(const std::filesystem::path& root);
    // Whether the folder holding `file` (lexically normal, absolute) is inside the root.
    bool holds(const std::filesystem::path::string_type& file);

private:
    bool folder_inside(const std::filesystem::path::string_type& dir);
    std::filesystem::path::string_type root_;
    std::filesystem::path real_root_;
    std::unordered_map<std::filesystem::path::string_type, bool> known_;
};

// Whether a '/'-separated relative path has no empty, "." or ".." part, no backslash, colon or
// NUL and does not start with '/': one that stays beneath the folder it is joined to.
bool plain_relative(std::string_view rel);

}  // namespace envfix::fs
