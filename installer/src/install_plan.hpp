#pragma once
// The Plan stage of an install (install.cpp): plain values, made under the lock before anything
// is staged. Per wheel, its files and where each goes; per installed distribution, whether it
// goes; every new file's one writer; the files a switch leaves where they are; the files removed.
#include <deque>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "envfix/common/fs.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/installer/uninstall.hpp"
#include "envfix/installer/wheel.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/wheel_name.hpp"
#include "install_context.hpp"
#include "keep_links.hpp"

namespace envfix::installer {

class DirectoryKeeper;

// One wheel of the request: its file, opened, checked and planned.
struct Input {
    WheelRequest request;
    WheelFile wheel;
    WheelPlan plan;
    std::vector<const standards::InstalledDist*> replaces;
    bool skip = false;  // this exact version is installed
    std::optional<std::string> sha256;  // the archive's, when known without reading it
    std::optional<std::filesystem::path> unpacked;  // its entry in the unpacked-wheel cache
    std::optional<fs::FileIdentity> unpacked_seen;  // that entry's folder when it was looked up
    std::optional<int64_t> unpacked_on_disk;  // since when its files are on the disk
    std::optional<int64_t> unpacked_made;  // when its entry was made (its marker's mtime)
    bool from_directory = false;  // opened from its kept directory, not its archive (wheel_directory.hpp)
};

// Ordered by the native strings: comparing std::filesystem::path component by component took
// 50-75 ms of a warm install.
struct DestLess {
    bool operator()(const PathText* a, const PathText* b) const { return *a < *b; }
};

// The new files by destination (lexically normal), each once, with the (input, planned file) that
// writes it: each wheel's in the order of its destinations, the wheels in order; found by a hash
// of the path's text. Keyed by the plans' own paths, not copies (17 000 for torch's stack).
class Writer {
public:
    using value_type = std::pair<const PathText*, std::pair<size_t, size_t>>;
    using const_iterator = std::vector<value_type>::const_iterator;
    explicit Writer(size_t most);
    const_iterator begin() const { return entries_.begin(); }
    const_iterator end() const { return entries_.end(); }
    size_t size() const { return entries_.size(); }
    void clear();
    // Adds `key` written by `who`, or, where an earlier wheel writes it, returns that entry, which
    // the caller gives to `who` (a later wheel wins a path two wheels write).
    value_type* add(const PathText* key, std::pair<size_t, size_t> who);
    const_iterator find(const PathText& p) const;
    const std::pair<size_t, size_t>& at(const PathText& p) const;  // throws std::out_of_range

private:
    size_t slot_of(const PathText& text) const;
    std::vector<value_type> entries_;
    std::vector<uint32_t> slots_;  // open addressing; 0 empty, else the entry's index + 1
};

// The files a switch leaves where they are (keep_links.hpp, unchanged_in_place).
struct InPlace {
    std::vector<std::vector<char>> of;  // per input, per planned file (empty: none)
    size_t count = 0;
    PathSet paths;  // lexically normal
    bool has(std::pair<size_t, size_t> who) const { return !of.empty() && of[who.first][who.second]; }
};

constexpr size_t kNoItem = static_cast<size_t>(-1);

struct InstallPlan {
    std::vector<Input> inputs;
    std::vector<standards::WheelName> wanted;  // each wheel's name and version, as its file's name gives them
    std::vector<PlannedFile> extra_files;  // generated: an embedded Python's ._pth importing site
    standards::InstalledSet installed;
    std::vector<const standards::InstalledDist*> removing, staying;
    std::unordered_map<PathText, std::string> owners;  // installed file -> the distribution that stays and owns it
    std::set<std::filesystem::path> env_files;  // the environment's own (environment_files.hpp)
    std::vector<PathText> remove_files;
    InstalledRows replaced_rows;  // what the removed files' RECORD rows promise (keep_links.hpp)
    std::deque<PathText> normal_dests;  // the writer's keys of the dests that were not plainly normal
    Writer writer{0};
    InPlace in_place;

    bool brings_in() const;  // a wheel whose exact version is not installed
    bool changes_nothing() const;  // nothing to install, remove or generate
    std::string summary() const;  // "install torch 2.11.0, …; remove xformers 0.0.30"
};

InstallPlan plan_for(const InstallRequest& request);

// 1. The wheels' names (from their files' names where the Prepare stage hands them over later,
// else opened and planned at once); two wheels of one distribution are refused.
Expected<void> name_wheels(InstallPlan& plan, InstallContext& ctx, DirectoryKeeper& keeper);
// Every wheel opened, checked against the interpreter and planned, on several threads; the
// first failing wheel in the given order is the one reported.
Expected<void> open_wheels(InstallPlan& plan, const InstallContext& ctx, DirectoryKeeper& keeper);
// The Prepare stage's wheels taken and opened, each the distribution and version named.
Expected<void> take_prepared_wheels(InstallPlan& plan, InstallContext& ctx, DirectoryKeeper& keeper);
// 2. An embedded Python that does not import site would not see what is installed: its ._pth
// is rewritten, with consent.
Expected<void> plan_site_import(InstallPlan& plan, const InstallContext& ctx, InstallResult& result);
// 4. What is installed, and which wheels are installed already (skipped).
Expected<void> read_what_is_installed(InstallPlan& plan, const InstallContext& ctx);
// The files of what goes (the wheels' older versions, the request's removals), never those of
// what stays or the environment's own.
Expected<void> plan_removals(InstallPlan& plan, const InstallContext& ctx, InstallResult& result);
void list_unchanged(const InstallPlan& plan, const InstallContext& ctx, InstallResult& result);
// 5. The new distributions' requirements against what will be installed afterwards.
Expected<void> check_dependencies(const InstallPlan& plan, const InstallContext& ctx, InstallResult& result);
// 6. Every new file once: a later wheel wins a path two wheels write, with a warning when their
// contents differ; the paths no wheel may write refused.
Expected<void> plan_writers(InstallPlan& plan, const InstallContext& ctx);
void list_installed(const InstallPlan& plan, InstallResult& result);
// A switch: the files whose bytes the new wheel repeats stay where they are (keep_links.hpp).
void plan_left_in_place(InstallPlan& plan, const Snapshot& present, const std::filesystem::path& root);
// 7. Room for the new files (renames need none for the old ones).
Expected<void> check_free_space(const InstallResult& result, const InstallContext& ctx);

}  // namespace envfix::installer
