#pragma once
// The Commit stage's first half (install.cpp): the new files staged beside the environment in the
// transaction's folder, each checked against its RECORD row on the way, the wheels' RECORDs
// written, the moves planned; nothing of the environment changed yet. install_commit.cpp then
// moves them in.
//
// Where a wheel's files come from, best first: its ready tree (renamed in whole), the files a
// switch leaves where they are (not staged at all), the unpacked-wheel cache (hard links), the
// replaced distribution's files with the same bytes (links, hashed), the archive (inflated).
#include <deque>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "directory_keeper.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/installer/transaction.hpp"
#include "install_context.hpp"
#include "install_plan.hpp"
#include "install_ready.hpp"
#include "stager.hpp"

namespace envfix::installer {

class Staging {
public:
    Staging(InstallPlan& plan, InstallContext& ctx, InstallResult& result, DirectoryKeeper& keeper);
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;

    // The ready trees taken, the journal on the disk (`journal`: one begun beside the planning),
    // the new files' staging folders made.
    Expected<void> begin(std::optional<Transaction> journal);
    // Waits for the Prepare stage's unpacking, then stages every new file and writes the RECORDs.
    Expected<void> stage();

    Transaction& transaction() { return *tx_; }
    Clock::time_point started() const { return started_; }
    // The moves, planned beside the staging.
    Expected<std::vector<JournalOp>> planned_moves();
    const std::vector<PathText>& added() const { return added_; }  // the new files, as the moves name them
    const std::vector<char>& on_disk() const { return on_disk_; }  // per added file: its data on the disk already
    // The unpacked entries the commit's flush makes durable: marked on the disk once it has.
    const std::vector<std::pair<std::filesystem::path, fs::FileIdentity>>& durable_after_commit() const { return mark_after_commit_; }
    // Whether a ready tree was asked for (make_ready_trees() has work).
    bool trees_wanted();

private:
    // A staged file's digest for its RECORD row: views into the staged digests or the wheel's
    // RECORD, or one made for it (`made`, a generated file's).
    struct ItemDigest {
        std::string_view algorithm, digest;
        uint64_t size = 0;
        std::optional<std::string> made;
    };
    using DigestOf = std::function<std::optional<ItemDigest>(size_t item)>;

    void take_trees();
    void collect_items();
    void merge_trees();
    void look_up_cache();
    void link_items();
    void start_early_records();
    Expected<void> stage_files();
    void count_written();
    void write_records(const DigestOf& digest_of, const std::function<bool(size_t)>& wanted);
    Expected<void> write_record(size_t input, const DigestOf& digest_of);
    std::optional<ItemDigest> predicted_digest(size_t item) const;
    std::pair<size_t, size_t> writer_of(std::pair<size_t, size_t> who) const;
    bool own_unstaged(std::pair<size_t, size_t> who) const;
    void give_back_plan_memory();

    InstallPlan& plan_;
    InstallContext& ctx_;
    InstallResult& result_;
    DirectoryKeeper& keeper_;
    Clock::time_point started_;
    ClaimHolder holder_;
    std::vector<ReadyUse> trees_;
    std::future<bool> asking_;
    std::optional<Transaction> tx_;
    std::vector<StageItem> items_;
    size_t file_items_ = 0;  // items_ from here hash whole archives (direct_url.json)
    std::map<size_t, size_t> archive_item_;  // input -> its archive's item
    // The new files by address: the plans' own paths, then the few written after staging, then
    // the ready trees' files (from tree_dests_from_).
    std::vector<const PathText*> dests_;
    std::deque<PathText> written_after_;
    std::vector<std::pair<size_t, size_t>> tree_files_;  // (input, index in its tree), in the order of dests_
    size_t tree_dests_from_ = 0;
    uint64_t tree_bytes_ = 0;
    std::future<TreeCheck> tree_check_;
    std::vector<PathText> added_;
    std::future<Expected<std::vector<JournalOp>>> planned_;
    std::vector<std::vector<size_t>> item_of_;  // per input, per planned file: its item (kNoItem: not staged by it)
    std::vector<std::optional<Error>> record_errors_;
    std::vector<char> record_early_;
    std::future<void> early_records_;
    std::vector<StagedDigest> digests_;
    std::vector<char> on_disk_;
    std::vector<std::pair<std::filesystem::path, fs::FileIdentity>> mark_after_commit_;
    std::jthread freeing_;  // declared last: joined first
};

}  // namespace envfix::installer
