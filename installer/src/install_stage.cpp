// The new files staged (install_stage.hpp).
#include "install_stage.hpp"

#include <algorithm>
#include <system_error>

#include "envfix/common/interrupt.hpp"
#include "envfix/common/nearly_sorted.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "file_ops.hpp"
#include "keep_links.hpp"
#include "path_under.hpp"
#include "record_hash.hpp"
#include "tx_internal.hpp"
#include "unpacked_store.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

Expected<void> write_generated(const stdfs::path& stage, const std::string& content) {
    ENVFIX_TRY(auto f, fileops::OutFile::create(stage));
    ENVFIX_TRY_VOID(f.write(content));
    return f.finish(fileops::FileMode::Regular, true);
}

// Keeps the wheels' verified files in the unpacked-wheel cache, for the next environment that
// installs them: only a wheel all of whose extracted files were staged from it (none lost to
// another wheel writing the same path) or left in place; best effort, as the cache is only an
// optimisation. Returns the entries made of this install's staged files alone, all hard links:
// the commit's flush makes them durable, and they are marked then.
std::vector<std::pair<stdfs::path, fs::FileIdentity>> fill_unpacked_cache(const stdfs::path& root, const std::vector<Input>& inputs,
                                                                          const std::vector<StageItem>& items,
                                                                          const std::vector<std::vector<size_t>>& item_of,
                                                                          const std::vector<std::vector<char>>& in_place,
                                                                          Reporter& reporter) {
    std::vector<std::pair<stdfs::path, fs::FileIdentity>> made;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& in = inputs[i];
        if (in.skip || !in.sha256 || in.unpacked) continue;
        std::vector<std::pair<size_t, const PathText*>> files;
        bool whole = true, staged_only = true;
        for (size_t k = 0; k < in.plan.files.size() && whole; ++k) {
            const auto& f = in.plan.files[k];
            if (f.kind != PlannedFile::Kind::Extracted) continue;
            if (!in_place.empty() && in_place[i][k]) {
                files.emplace_back(f.entry, &f.dest);
                staged_only = false;
                continue;
            }
            whole = item_of[i][k] != kNoItem;
            if (whole) files.emplace_back(f.entry, &items[item_of[i][k]].stage);
        }
        if (!whole) continue;
        auto r = unpacked::add_entry(root, *in.sha256, files);
        if (!r)
            reporter.debug(r.error().message);
        else if (*r && staged_only)
            made.emplace_back(unpacked::layout_dir(root) / *in.sha256, **r);
    }
    return made;
}

// The unpacked entries not yet marked on the disk whose every file this install hard-linked
// (staged file and entry file one inode): its commit's flush makes them all durable, and they are
// marked then (unpacked::mark_on_disk), with the entry's folder as it was looked up.
std::vector<std::pair<stdfs::path, fs::FileIdentity>> entries_flushed_whole(const std::vector<Input>& inputs,
                                                                            const std::vector<std::vector<size_t>>& item_of,
                                                                            const std::vector<StagedDigest>& digests) {
    std::vector<std::pair<stdfs::path, fs::FileIdentity>> out;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& in = inputs[i];
        if (in.skip || !in.unpacked || !in.unpacked_seen || in.unpacked_on_disk) continue;
        bool all = true;
        for (size_t k = 0; k < in.plan.files.size() && all; ++k)
            all = in.plan.files[k].kind != PlannedFile::Kind::Extracted || (item_of[i][k] != kNoItem && digests[item_of[i][k]].same_inode);
        if (all) out.emplace_back(*in.unpacked, *in.unpacked_seen);
    }
    return out;
}

// Once the RECORDs are staged nothing reads the plans' file lists or the wheels' directories and
// RECORDs again: given back before the snapshot and the commit, where the install's memory peaks
// (torch's stack: 17 000 planned files, about 1 KB each with their paths), on a thread of their
// own, as giving back that many small blocks takes ~20 ms.
struct StagingState {
    std::vector<PlannedFile> files;
    wheel::ZipDirectory zip;
    std::vector<standards::RecordEntry> record;
    std::vector<int> record_row;
    std::vector<size_t> wheel_files;
    decltype(WheelFile::map) map;
    decltype(WheelFile::lazy) lazy;
};

std::deque<StagingState> take_staging_state(std::vector<Input>& inputs) {
    std::deque<StagingState> out;  // not a vector: a mapped file's move may throw
    for (auto& in : inputs)
        out.push_back({std::exchange(in.plan.files, {}), std::exchange(in.wheel.zip, {}), std::exchange(in.wheel.record, {}),
                       std::exchange(in.wheel.record_row, {}), std::exchange(in.wheel.files, {}), std::exchange(in.wheel.map, std::nullopt),
                       std::exchange(in.wheel.lazy, nullptr)});
    return out;
}

}  // namespace

Staging::Staging(InstallPlan& plan, InstallContext& ctx, InstallResult& result, DirectoryKeeper& keeper)
    : plan_(plan), ctx_(ctx), result_(result), keeper_(keeper), started_(Clock::now()), holder_(ready::new_holder(ctx.unpacked_root)) {}

Expected<std::vector<JournalOp>> Staging::planned_moves() {
    return planned_.valid() ? planned_.get() : tx_->plan(plan_.remove_files, added_);
}

bool Staging::trees_wanted() { return asking_.valid() && asking_.get(); }

// A file its own wheel writes but does not stage (left in place, or in a ready tree): found
// without a lookup in the writer (a warm install's 16 000 tree files looked up twice were 5 ms).
bool Staging::own_unstaged(std::pair<size_t, size_t> who) const {
    const bool in_tree = !trees_.empty() && !trees_[who.first].in_tree.empty() && trees_[who.first].in_tree[who.second];
    return plan_.in_place.has(who) || in_tree;
}

// The (input, file) that writes the path of `who`: itself, or the later wheel that wrote the same path.
std::pair<size_t, size_t> Staging::writer_of(std::pair<size_t, size_t> who) const {
    if (item_of_[who.first][who.second] != kNoItem || own_unstaged(who)) return who;
    PathText scratch;
    return plan_.writer.at(normal_text(plan_.inputs[who.first].plan.files[who.second].dest, scratch));
}

Expected<void> Staging::begin(std::optional<Transaction> journal) {
    take_trees();
    if (!journal) {
        ENVFIX_TRY(auto t, Transaction::begin(state_dir(ctx_.env.root), ctx_.areas, plan_.summary()));
        journal.emplace(std::move(t));
    }
    tx_.emplace(std::move(*journal));
    tx_->set_summary(plan_.summary());
    ENVFIX_TRY_VOID(tx_->begun());  // the journal on the disk before anything is staged
    result_.transaction = tx_->id();
    collect_items();
    std::vector<const PathText*> staged_dests = dests_;
    merge_trees();
    ENVFIX_TRY_VOID(tx_->make_stage_dirs(staged_dests));
    // What the merges left: out of the way by one rename (ready::release).
    if (result_.ready_trees_used) ready::release(std::exchange(holder_.dir, {}));
    if (!tree_files_.empty()) {
        try {
            tree_check_ = std::async(std::launch::async, [this] { return check_ready_trees(trees_, tree_files_); });
        } catch (const std::system_error&) {  // no thread to be had: checked after the staging
        }
    }
    if (result_.ready_trees_used)
        ctx_.reporter.debug(msg("install.debug.ready_trees", {{"trees", std::to_string(result_.ready_trees_used)},
                                                              {"files", std::to_string(dests_.size() - tree_dests_from_)}}));
    ctx_.lap("folders made");
    return {};
}

// Large wheels already unpacked take their ready trees; the next trees are asked for beside the
// staging, known before the install returns.
void Staging::take_trees() {
    if (!ctx_.request.force_reinstall)
        take_ready_trees(plan_, ctx_.areas, ctx_.unpacked_root, ctx_.request.ready_trees_from, holder_.dir, trees_);
    std::vector<std::pair<std::string, std::string>> asks;
    for (auto& use : trees_)
        if (!use.ask.first.empty()) asks.push_back(std::move(use.ask));
    if (!asks.empty()) {
        try {
            asking_ =
                std::async(std::launch::async, [asks = std::move(asks), root = ctx_.unpacked_root] { return ask_ready_trees(asks, root); });
        } catch (const std::system_error&) {  // no thread to be had: asked for here
            result_.ready_trees_wanted = ask_ready_trees(asks, ctx_.unpacked_root);
        }
    }
    if (ctx_.request.ready_trees_from) ctx_.lap("ready trees taken");
}

// The items to stage, the writer's first, in its order; then the generated files, then the
// RECORDs and direct_url.json files written after staging (dests only).
void Staging::collect_items() {
    items_.reserve(plan_.writer.size() + plan_.extra_files.size() + plan_.inputs.size());
    for (const auto& [dest, who] : plan_.writer) {
        if (own_unstaged(who)) continue;
        const auto& in = plan_.inputs[who.first];
        items_.push_back({&in.wheel, &in.plan.files[who.second], tx_->stage_path(*dest)});
        dests_.push_back(dest);
    }
    for (const auto& f : plan_.extra_files) {
        items_.push_back({nullptr, &f, tx_->stage_path(f.dest)});
        dests_.push_back(&f.dest);
    }
    for (const auto& in : plan_.inputs) {
        if (in.skip) continue;
        dests_.push_back(&written_after_.emplace_back((in.plan.dist_info / "RECORD").native()));
        if (in.plan.direct_url) dests_.push_back(&written_after_.emplace_back((in.plan.dist_info / "direct_url.json").native()));
    }
}

// The ready trees' files first, each top folder renamed in whole where staging has none of that
// name yet, merged below one another tree brought (a namespace package); the other files'
// folders are made after, and a tree may have brought them already.
void Staging::merge_trees() {
    tree_dests_from_ = dests_.size();
    for (size_t i = 0; i < trees_.size(); ++i) {
        auto& use = trees_[i];
        if (!use.claimed) continue;
        use.into = tx_->stage_path(plan_.inputs[i].plan.lib_dir / "x").parent_path();
        std::error_code ec;
        stdfs::create_directories(use.into, ec);
        // A rename refused (two mounts of one filesystem, a folder held open on Windows, the
        // cache cleaned meanwhile): what did not move is found missing below and linked from the
        // entry or inflated, as without a tree.
        if (auto merged = ready::merge(use.claimed->tree, use.into); !merged) ctx_.reporter.debug(merged.error().message);
        use.claimed.reset();
        dests_.insert(dests_.end(), use.dests.begin(), use.dests.end());
        for (size_t j = 0; j < use.dests.size(); ++j) tree_files_.emplace_back(i, j);
        tree_bytes_ += use.bytes;
        ++result_.ready_trees_used;
    }
}

Expected<void> Staging::stage() {
    // Everything above ran beside the Prepare stage's unpacking into the cache; it ends here,
    // before the cache is read.
    if (ctx_.request.prepared) {
        ENVFIX_TRY_VOID(ctx_.request.prepared->unpacked());
        ctx_.lap("wheels unpacked");
    }
    // The moves planned on another thread while the files are staged (the plan reads the
    // environment, which the lock keeps as it is, not the staging folders; 9–17 ms for torch's
    // stack). After the unpacking, whose state is the cold install's memory peak.
    added_.reserve(dests_.size());
    for (const auto* d : dests_) added_.push_back(*d);
    try {
        planned_ = std::async(std::launch::async, [this] { return tx_->plan(plan_.remove_files, added_); });
    } catch (const std::system_error&) {  // no thread to be had: planned in turn
    }
    look_up_cache();
    link_items();
    ctx_.lap("unpacked-cache lookups");
    start_early_records();
    ENVFIX_TRY_VOID(stage_files());
    ctx_.lap("files staged");
    auto filled = fill_unpacked_cache(ctx_.unpacked_root, plan_.inputs, items_, item_of_, plan_.in_place.of, ctx_.reporter);
    ctx_.lap("unpacked cache filled");
    count_written();
    mark_after_commit_ = entries_flushed_whole(plan_.inputs, item_of_, digests_);
    // Entries made above of staged files: flushed with them (a local wheel's first install, whose
    // next install can then take a ready tree).
    for (auto& f : filled) mark_after_commit_.push_back(std::move(f));
    // The RECORDs written early, beside the staging, are in; the rest are written now.
    if (early_records_.valid()) early_records_.get();
    write_records(
        [&](size_t item) -> std::optional<ItemDigest> {
            const auto& d = digests_[item];
            return ItemDigest{d.algorithm, d.digest, d.size};
        },
        [&](size_t i) { return !record_early_[i]; });
    for (auto& e : record_errors_)
        if (e) return unexpected(std::move(*e));
    dests_ = {};  // the plans they point into go next
    keeper_.finish();  // it reads the wheels given back below
    give_back_plan_memory();
    ctx_.lap("RECORD files written");
    if (interrupt_requested()) return fail(ExitCode::Interrupted, "install.interrupted");
    return {};
}

// Wheels already unpacked in the cache: their files are linked instead of inflated. Looked up on
// several threads, each wheel's own (a few files read per wheel: 5 ms of a warm install, one
// wheel after another).
void Staging::look_up_cache() {
    const auto& root = ctx_.unpacked_root;
    tx::parallel_for(
        plan_.inputs.size(),
        [&](size_t i) {
            auto& in = plan_.inputs[i];
            if (in.skip) return;
            in.sha256 = unpacked::known_sha256(root, in.wheel);
            // --force-reinstall writes from the wheel itself, and its entry is made again: the entry's
            // files share inodes with earlier installs, which may have been edited in place.
            if (in.sha256 && ctx_.request.force_reinstall)
                unpacked::drop_entry(root, *in.sha256);
            else if (in.sha256) {
                in.unpacked = unpacked::find_entry(root, *in.sha256, extracted_files(in.plan));
                if (in.unpacked) {
                    in.unpacked_seen = fs::identity(*in.unpacked);
                    in.unpacked_on_disk = unpacked::entry_on_disk_since(*in.unpacked);
                    in.unpacked_made = unpacked::entry_made_at(*in.unpacked);
                }
            }
        },
        1);
}

// Where each item's bytes come from: the unpacked-wheel cache (every file of its wheel), else, in
// a switch, the replaced distribution's file with the same bytes (keep_links.hpp; the old file
// still moves into the backup as it is), else the archive. Then the archives to hash whole.
void Staging::link_items() {
    const auto& inputs = plan_.inputs;
    item_of_.resize(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) item_of_[i].assign(inputs[i].plan.files.size(), kNoItem);
    size_t item = 0;  // the first items are the writer's, in its order
    for (const auto& [dest, who] : plan_.writer) {
        if (own_unstaged(who)) continue;  // kNoItem: the RECORD row is the wheel's
        item_of_[who.first][who.second] = item;
        auto& it = items_[item++];
        const auto& in = inputs[who.first];
        if (it.file->kind != PlannedFile::Kind::Extracted) continue;
        const auto entry = it.file->entry;
        if (in.unpacked) {
            it.linked_from = unpacked::entry_file(*in.unpacked, entry);
            it.on_disk_since_ns = in.unpacked_on_disk.value_or(0);
            it.made_before_ns = in.unpacked_made.value_or(0);
        } else if (auto row = plan_.replaced_rows.find(*dest);
                   row != plan_.replaced_rows.end() &&
                   same_content(row->second, in.wheel.record[static_cast<size_t>(in.wheel.record_row[entry])],
                                in.wheel.zip.entries[entry].size)) {
            it.linked_from = row->first;
            it.verify_link = true;
        }
    }
    file_items_ = items_.size();
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].skip || !inputs[i].plan.direct_url || inputs[i].sha256) continue;
        archive_item_[i] = items_.size();
        items_.push_back({&inputs[i].wheel, nullptr, {}});
    }
}

// A staged file's digest known before staging (a wheel's file is checked against its RECORD row,
// a generated one is its content's sha256), except a #!python script's, rewritten for the
// interpreter.
std::optional<Staging::ItemDigest> Staging::predicted_digest(size_t item) const {
    const auto& it = items_[item];
    if (!it.file || it.file->kind == PlannedFile::Kind::Script) return std::nullopt;
    if (it.file->kind == PlannedFile::Kind::Generated) {
        ItemDigest d{"sha256", {}, it.file->content.size(), std::nullopt};
        d.made = record_sha256(it.file->content);
        return d;
    }
    const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[it.file->entry])];
    return ItemDigest{row.hash_algorithm, row.hash_digest, it.wheel->zip.entries[it.file->entry].size, std::nullopt};
}

// The RECORDs of the wheels whose digests are all known before staging, written on another
// thread while the files are staged (19–25 ms of a warm install after its staging).
void Staging::start_early_records() {
    const auto& inputs = plan_.inputs;
    record_errors_.resize(inputs.size());
    record_early_.assign(inputs.size(), 0);
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& in = inputs[i];
        if (in.skip || (in.plan.direct_url && !in.sha256)) continue;
        bool known = true;
        for (size_t k = 0; k < in.plan.files.size() && known; ++k) {
            const auto from = writer_of({i, k});
            const size_t by = item_of_[from.first][from.second];
            known = by == kNoItem || (items_[by].file && items_[by].file->kind != PlannedFile::Kind::Script);
        }
        record_early_[i] = known;
    }
    try {
        early_records_ = std::async(std::launch::async, [this] {
            write_records([this](size_t item) { return predicted_digest(item); }, [this](size_t i) { return record_early_[i] != 0; });
        });
    } catch (const std::system_error&) {  // no thread to be had: written after the staging
        std::fill(record_early_.begin(), record_early_.end(), 0);
    }
}

// Every item staged; a ready tree's file found wrong is staged again from its entry or wheel;
// the archives hashed whole give their wheels' sha256.
Expected<void> Staging::stage_files() {
    StageOptions so;
    so.threads = ctx_.request.threads;
    so.interpreter = ctx_.target.interpreter;
    so.line_end = ctx_.env.layout_os == probe::LayoutOs::Windows ? "\r\n" : "\n";
    so.reporter = &ctx_.reporter;
    ENVFIX_TRY(digests_, stage_items(items_, so));
    on_disk_.assign(dests_.size(), 0);  // dests_: the items' files first, in their order
    if (!tree_files_.empty()) {
        auto checked = tree_check_.valid() ? tree_check_.get() : check_ready_trees(trees_, tree_files_);
        std::vector<StageItem> again;
        for (size_t t = 0; t < tree_files_.size(); ++t) {
            if (!checked.bad[t]) continue;
            const auto [i, j] = tree_files_[t];
            const auto& use = trees_[i];
            auto at = join_generic(use.into, use.want.files[j].rel);
            std::error_code ec;
            stdfs::remove(at, ec);
            stdfs::create_directories(at.parent_path(), ec);
            StageItem item{&plan_.inputs[i].wheel, &plan_.inputs[i].plan.files[use.files[j]], at.native()};
            // From the entry where its file is right (its size is checked there), else inflated.
            item.linked_from = unpacked::entry_file(*use.entry, use.want.files[j].entry).native();
            again.push_back(std::move(item));
        }
        if (!again.empty()) ENVFIX_TRY_VOID(stage_items(again, so));
        // A tree's files are its entry's, on the disk where unchanged since its mark.
        for (size_t t = 0; t < tree_files_.size(); ++t) on_disk_[tree_dests_from_ + t] = checked.on_disk[t];
    }
    for (const auto& [i, item] : archive_item_) {
        auto& in = plan_.inputs[i];
        in.sha256 = digests_[item].digest;
        unpacked::remember_sha256(ctx_.unpacked_root, in.wheel, digests_[item].digest);
        if (!trees_.empty() && ask_ready_tree(trees_[i], in.sha256, ctx_.unpacked_root)) result_.ready_trees_wanted = true;
    }
    return {};
}

// What was written and what was kept; a file hard-linked unchanged from an entry on the disk
// needs no write-back in the commit.
void Staging::count_written() {
    for (size_t k = 0; k < file_items_; ++k) {
        if (items_[k].verify_link && digests_[k].linked)
            ++result_.files_kept;
        else
            result_.bytes_written += digests_[k].size;
        on_disk_[k] = digests_[k].on_disk;
    }
    result_.bytes_written += tree_bytes_;
    result_.files_written = added_.size() - result_.files_kept;
    result_.files_kept += plan_.in_place.count;
}

// One RECORD per wheel, on several threads (torch's alone has 12 000 rows to sort and format);
// the first failing wheel in order is the one reported.
void Staging::write_records(const DigestOf& digest_of, const std::function<bool(size_t)>& wanted) {
    tx::parallel_for(
        plan_.inputs.size(),
        [&](size_t i) {
            if (plan_.inputs[i].skip || !wanted(i)) return;
            if (auto r = write_record(i, digest_of); !r) record_errors_[i] = std::move(r).error();
        },
        1);
}

Expected<void> Staging::write_record(size_t i, const DigestOf& digest_of) {
    const auto& in = plan_.inputs[i];
    // Views of the plans' and digests' strings (torch's 12 000 rows, not copied).
    std::vector<standards::RecordRowView> rows;
    rows.reserve(in.plan.files.size() + 2);
    std::deque<std::string> held;  // digests made here (a generated file's), while the rows point into them
    for (size_t k = 0; k < in.plan.files.size(); ++k) {
        const auto& f = in.plan.files[k];
        const auto from = writer_of({i, k});
        const size_t written_by = item_of_[from.first][from.second];
        if (written_by == kNoItem) {  // left in place or in a ready tree: the bytes its wheel's RECORD names
            const auto& src = plan_.inputs[from.first];
            const auto entry = src.plan.files[from.second].entry;
            const auto& r = src.wheel.record[static_cast<size_t>(src.wheel.record_row[entry])];
            rows.push_back({f.record_path, r.hash_algorithm, r.hash_digest, src.wheel.zip.entries[entry].size});
            continue;
        }
        auto d = digest_of(written_by);
        if (!d) return fail(ExitCode::Internal, "install.record_digest_unknown", {{"path", stdfs::path(f.dest).string()}});
        if (d->made) d->digest = held.emplace_back(std::move(*d->made));
        rows.push_back({f.record_path, d->algorithm, d->digest, d->size});
    }
    std::string direct_url_path, direct_url_hash;  // held while the rows point into them
    if (in.plan.direct_url) {
        auto dest = in.plan.dist_info / "direct_url.json";
        std::string json = direct_url_json(*in.plan.direct_url, *in.sha256);
        ENVFIX_TRY_VOID(write_generated(tx_->stage_path(dest), json));
        direct_url_path = record_path_for(dest, in.plan.lib_dir);
        direct_url_hash = record_sha256(json);
        rows.push_back({direct_url_path, "sha256", direct_url_hash, json.size()});
    }
    auto record = in.plan.dist_info / "RECORD";
    const std::string record_row = record_path_for(record, in.plan.lib_dir);
    rows.push_back({record_row, "", "", std::nullopt});
    sort_nearly_sorted(rows, [](const auto& a, const auto& b) { return a.path < b.path; });
    return write_generated(tx_->stage_path(record), standards::format_record(rows));
}

// The plans' file lists, the wheels' directories and RECORDs, the items and digests: nothing
// reads them again. Given back on a thread of their own (see StagingState).
void Staging::give_back_plan_memory() {
    try {
        freeing_ = std::jthread([items = std::move(items_), digests = std::move(digests_), writer = std::move(plan_.writer),
                                 state = take_staging_state(plan_.inputs), trees = std::move(trees_)]() mutable {
            items = std::vector<StageItem>();  // first: it points into the plans
            digests = std::vector<StagedDigest>();
            writer.clear();
            trees.clear();  // their wants: torch's alone is 12 000 paths
            state.clear();
        });
    } catch (const std::system_error&) {  // no thread left: freed here, as the lambda goes
    }
}

}  // namespace envfix::installer
