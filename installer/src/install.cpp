// install(): wheels in, old distributions out, one transaction (install.hpp).
#include "envfix/installer/install.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "envfix/common/fs.hpp"
#include "envfix/common/nearly_sorted.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/env_lock.hpp"
#include "envfix/installer/fault.hpp"
#include "envfix/installer/scripts.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/installer/uninstall.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "envfix/resolver/names.hpp"
#include "envfix/resolver/tags.hpp"
#include "envfix/resolver/url.hpp"
#include "environment_files.hpp"
#include "file_ops.hpp"
#include "install_checks.hpp"
#include "keep_links.hpp"
#include "path_under.hpp"
#include "ready_tree.hpp"
#include "record_hash.hpp"
#include "snapshot_internal.hpp"
#include "stager.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"
#include "unpacked_store.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Input {
    WheelRequest request;
    WheelFile wheel;
    WheelPlan plan;
    std::vector<const resolver::InstalledDist*> replaces;
    bool skip = false;  // this exact version is installed
    std::optional<std::string> sha256;         // the archive's, when known without reading it
    std::optional<stdfs::path> unpacked;       // its entry in the unpacked-wheel cache
    std::optional<fs::FileIdentity> unpacked_seen;  // that entry's folder when it was looked up
    std::optional<int64_t> unpacked_on_disk;         // since when its files are on the disk
    std::optional<int64_t> unpacked_made;            // when its entry was made (its marker's mtime)
    bool from_directory = false;  // opened from its kept directory, not its archive (wheel_directory.hpp)
};

// Once the RECORDs are staged nothing reads the plans' file lists or the wheels' directories and
// RECORDs again: given back before the snapshot and the commit, where the install's memory peaks
// (torch's stack: 17 000 planned files, about 1 KB each with their paths), on a thread of their
// own, as giving back that many small blocks takes ~20 ms.
struct StagingState {
    std::vector<PlannedFile> files;
    ZipDirectory zip;
    std::vector<resolver::RecordEntry> record;
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

// Keeps the wheels' verified files in the unpacked-wheel cache, for the next environment that
// installs them. Only a wheel all of whose extracted files were staged from it (none lost to
// another wheel writing the same path); best effort, as the cache is only an optimisation.
// Not a file's item: another wheel wrote its path.
// dest -> (input, file) of the wheel that writes each path; keyed by the plan's own path, not a
// copy (17 000 paths for torch's stack, about 700 bytes each as std::filesystem::path), or by its
// lexically normal form where it is not plainly normal (so every key is lexically normal: what
// reads them normalises nothing again). Ordered by the native strings: comparing
// std::filesystem::path component by component took 50-75 ms of a warm install.
struct DestLess {
    bool operator()(const PathText* a, const PathText* b) const { return *a < *b; }
};
// The new files by destination (lexically normal), each once: each wheel's in the order of its
// destinations (its ready tree's want follows it), the wheels in order; found by a hash of the
// path's text. A std::map of torch's stack's 17 000 was 4 ms of a warm install here, its nodes
// made one by one and every insert ~14 comparisons of long shared prefixes.
class Writer {
public:
    using value_type = std::pair<const PathText*, std::pair<size_t, size_t>>;
    using const_iterator = std::vector<value_type>::const_iterator;
    explicit Writer(size_t most) {
        size_t n = 16;
        while (n < 2 * most) n *= 2;
        slots_.assign(n, 0);
        entries_.reserve(most);
    }
    const_iterator begin() const { return entries_.begin(); }
    const_iterator end() const { return entries_.end(); }
    size_t size() const { return entries_.size(); }
    void clear() {
        entries_ = {};
        slots_ = {};
    }
    // Adds `key` written by `who`, or, where an earlier wheel writes it, returns that entry, which
    // the caller gives to `who` (a later wheel wins a path two wheels write).
    value_type* add(const PathText* key, std::pair<size_t, size_t> who) {
        uint32_t& slot = slots_[slot_of(*key)];
        if (slot) return &entries_[slot - 1];
        entries_.emplace_back(key, who);
        slot = static_cast<uint32_t>(entries_.size());
        return nullptr;
    }
    const_iterator find(const PathText& p) const {
        if (slots_.empty()) return end();  // cleared
        const uint32_t slot = slots_[slot_of(p)];
        return slot ? entries_.begin() + (slot - 1) : entries_.end();
    }
    const std::pair<size_t, size_t>& at(const PathText& p) const {
        auto it = find(p);
        if (it == end()) throw std::out_of_range("no writer for " + stdfs::path(p).string());
        return it->second;
    }

private:
    // Open addressing, linear probing (at most half the slots used); 0 is an empty slot, else the
    // entry's index + 1. The slot holding `text`, or the empty one where it would go.
    size_t slot_of(const PathText& text) const {
        const size_t mask = slots_.size() - 1;
        for (size_t h = std::hash<PathText>()(text) & mask;; h = (h + 1) & mask)
            if (!slots_[h] || *entries_[slots_[h] - 1].first == text) return h;
    }
    std::vector<value_type> entries_;
    std::vector<uint32_t> slots_;
};

// The files a switch leaves where they are (keep_links.hpp, unchanged_in_place).
struct InPlace {
    std::vector<std::vector<char>> of;  // per input, per planned file (empty: none)
    size_t count = 0;
    PathSet paths;                      // lexically normal
    bool has(std::pair<size_t, size_t> who) const { return !of.empty() && of[who.first][who.second]; }
};

InPlace files_left_in_place(const Snapshot& present, const InstalledRows& replaced_rows, const std::vector<Input>& inputs,
                            const Writer& writer, const stdfs::path& root) {
    KnownFiles known;
    for (const auto& f : present.files) known.emplace(f.path, &f);
    std::vector<WantedFile> wanted;
    std::vector<std::pair<size_t, size_t>> wanted_by;  // the (input, file) of each
    for (const auto& [dest, who] : writer) {  // its keys lexically normal already
        const auto& in = inputs[who.first];
        const auto& f = in.plan.files[who.second];
        if (f.kind != PlannedFile::Kind::Extracted || in.wheel.record_row[f.entry] < 0) continue;
        wanted.push_back({dest, &in.wheel.record[static_cast<size_t>(in.wheel.record_row[f.entry])], in.wheel.zip.entries[f.entry].size,
                          f.executable});
        wanted_by.push_back(who);
    }
    auto same = unchanged_in_place(replaced_rows, wanted, root, known);
    InPlace out;
    for (size_t w = 0; w < wanted.size(); ++w) {
        if (!same[w]) continue;
        const auto who = wanted_by[w];
        ++out.count;
        out.paths.insert(*wanted[w].dest);
        if (out.of.empty()) {
            out.of.resize(inputs.size());
            for (size_t i = 0; i < inputs.size(); ++i) out.of[i].assign(inputs[i].plan.files.size(), 0);
        }
        out.of[who.first][who.second] = 1;
    }
    return out;
}

constexpr size_t kNoItem = static_cast<size_t>(-1);

// A wheel's ready tree (ready_tree.hpp): the planned files it holds, their writer keys, its
// layout (the want, its sha256 filled in once known), and the tree when this install took one
// (in the install's ClaimHolder, released whatever happens).
struct ReadyUse {
    std::optional<ready::Claimed> claimed;
    std::vector<size_t> files;                 // planned files of the input
    std::vector<const PathText*> dests;        // their writer keys
    std::vector<char> in_tree;                 // per planned file, when claimed
    ready::Want want;                          // its sha256 set once asked for
    uint64_t bytes = 0;
    bool eligible = false;
    std::pair<std::string, std::string> ask;   // the next tree's name and want, to be written
    std::optional<stdfs::path> entry;          // its unpacked entry, when claimed
    std::optional<int64_t> since;              // that entry's mark (unpacked::entry_on_disk_since)
    stdfs::path into;                          // the staging folder it went into
};

// The install's folder under ready/claimed/ (ready::new_holder): the trees it took, moved to
// done/ by one rename when they are merged, or when the install ends without merging them.
struct ClaimHolder {
    stdfs::path dir;
    explicit ClaimHolder(stdfs::path d) : dir(std::move(d)) {}
    ClaimHolder(const ClaimHolder&) = delete;
    ClaimHolder& operator=(const ClaimHolder&) = delete;
    ~ClaimHolder() {
        if (!dir.empty()) ready::release(dir);
    }
};

// The wheel's want, for its sha256 (known before staging for a wheel from the wheel cache, after
// it for a local file installed the first time): its tree's name, and its text.
std::pair<std::string, std::string> name_want(ReadyUse& use, const std::string& sha) {
    use.want.sha256 = sha;
    auto encoded = ready::encode_want(use.want);
    return {ready::tree_name(sha, encoded), std::move(encoded)};
}

// Asks for the tree of a local wheel installed the first time, once staging has hashed it.
// Returns whether a tree is asked for.
bool ask_ready_tree(ReadyUse& use, const std::optional<std::string>& sha, const stdfs::path& unpacked_root) {
    if (!use.eligible || !use.want.sha256.empty() || !sha) return false;
    const auto [name, encoded] = name_want(use, *sha);
    return ready::ask(unpacked_root, name, encoded);
}

// Per input, the planned files a ready tree of its wheel holds: extracted, written by it (not
// by a later wheel, not left in place by a switch) under its lib_dir, where no other area lies
// below lib_dir and the cache is on the same filesystem (the tree is renamed in). A wheel of at
// least `from` of them takes its tree when there is one and its entry is there, and names the
// next in its `ask` (written by ask_ready_trees, beside the staging). The wheels on several
// threads: torch's want alone is 12 000 rows to encode and hash.
void take_ready_trees(const std::vector<Input>& inputs, const Writer& writer, const InPlace& in_place, const std::vector<stdfs::path>& areas,
                      const stdfs::path& unpacked_root, size_t from, const stdfs::path& holder, std::vector<ReadyUse>& uses) {
    uses.resize(inputs.size());
    if (from == 0) return;
    std::error_code ec;
    stdfs::create_directories(unpacked::layout_dir(unpacked_root), ec);  // the first install into this cache makes it
    const auto cache = fs::identity(unpacked::layout_dir(unpacked_root));
    if (!cache) return;
    // A switch's wheel whose unchanged files stay in place gets none: its layout is only this
    // switch's, and its entry is not all linked, so not marked on the disk.
    std::vector<char> switched(inputs.size(), 0);
    for (const auto& [dest, who] : writer) {
        const auto& in = inputs[who.first];
        if (in_place.has(who)) switched[who.first] = 1;
        if (in.skip || in_place.has(who) || in.plan.files[who.second].kind != PlannedFile::Kind::Extracted) continue;
        uses[who.first].files.push_back(who.second);
        uses[who.first].dests.push_back(dest);
    }
    tx::parallel_for(inputs.size(), [&](size_t i) {
        auto& use = uses[i];
        const auto& in = inputs[i];
        if (switched[i] || use.files.size() < from) {
            use = ReadyUse();
            return;
        }
        const auto lib = in.plan.lib_dir.lexically_normal();
        const auto lib_id = fs::identity(lib);
        if (!lib_id || lib_id->device != cache->device ||
            std::any_of(areas.begin(), areas.end(), [&](const stdfs::path& a) { return path_under(a.lexically_normal(), lib, false); })) {
            use = ReadyUse();
            return;
        }
        // In the order of their destinations, whatever the other wheels (a path won from an
        // earlier wheel comes where that wheel's file was): the want, and so the tree's name, is
        // the wheel's and its layout's alone.
        {
            std::vector<std::pair<const PathText*, size_t>> order;
            order.reserve(use.files.size());
            for (size_t j = 0; j < use.files.size(); ++j) order.emplace_back(use.dests[j], use.files[j]);
            sort_nearly_sorted(order, [](const auto& a, const auto& b) { return DestLess()(a.first, b.first); });
            for (size_t j = 0; j < order.size(); ++j) std::tie(use.dests[j], use.files[j]) = order[j];
        }
        use.want.entry_files = extracted_files(in.plan);
        use.want.files.reserve(use.files.size());
        size_t kept = 0;
        for (size_t j = 0; j < use.files.size(); ++j) {
            const auto& f = in.plan.files[use.files[j]];
            const auto* dest = use.dests[j];
            std::string rel = relative_generic_text(*dest, lib);  // "" where not under lib
            if (rel.empty()) continue;
            const uint64_t size = in.wheel.zip.entries[f.entry].size;
            use.want.files.push_back({f.entry, size, std::move(rel)});
            use.bytes += size;
            use.files[kept] = use.files[j];
            use.dests[kept++] = dest;
        }
        use.files.resize(kept);
        use.dests.resize(kept);
        if (kept < from) {
            use = ReadyUse();
            return;
        }
        use.eligible = true;
        const auto sha = unpacked::known_sha256(unpacked_root, in.wheel);
        if (!sha) return;  // a local file installed the first time: asked for once staging has hashed it
        auto [name, encoded] = name_want(use, *sha);
        // Taken before the next is asked for: the want is only written where no tree is.
        // Only the tree made from the entry as it is now (ready_tree.hpp, state_text).
        if (auto entry = unpacked::find_entry(unpacked_root, *sha, use.want.entry_files)) {
            const auto id = fs::identity(*entry);
            const auto since = unpacked::entry_on_disk_since(*entry);
            if (id && since) {
                use.claimed = ready::claim(unpacked_root, name, ready::state_text(id->to_string(), *since), holder);
                use.entry = entry;
                use.since = since;
            }
        }
        use.ask = {std::move(name), std::move(encoded)};
    }, 1);
    // Each tree checked before it is used, one after another, each on several threads (its files
    // are looked at one by one: torch's 12 000).
    for (size_t i = 0; i < inputs.size(); ++i) {
        auto& use = uses[i];
        if (!use.claimed) continue;
        if (!ready::holds_only_its_files(use.claimed->tree, use.want, *use.since)) {
            ready::discard(*use.claimed);
            use.claimed.reset();
            continue;
        }
        use.in_tree.assign(inputs[i].plan.files.size(), 0);
        for (size_t k : use.files) use.in_tree[k] = 1;
    }
}

// The wants take_ready_trees named, written (a want of torch's is 1 MB): returns whether a tree
// is asked for.
bool ask_ready_trees(const std::vector<std::pair<std::string, std::string>>& asks, const stdfs::path& unpacked_root) {
    bool wanted = false;
    for (const auto& [name, encoded] : asks) wanted = ready::ask(unpacked_root, name, encoded) || wanted;
    return wanted;
}

// item_of: per input, per planned file, the stage item that wrote it (kNoItem when another wheel did).
// in_place: per input, per planned file, whether it stays where it is (a switch): linked from there.
// Returns the entries made of this install's staged files alone (none left in place by a switch),
// all hard links: the commit's flush makes them durable, and they are marked then.
std::vector<std::pair<stdfs::path, fs::FileIdentity>> fill_unpacked_cache(const stdfs::path& root, const std::vector<Input>& inputs,
                                                                          const std::vector<StageItem>& items,
                                                                          const std::vector<std::vector<size_t>>& item_of,
                                                                          const std::vector<std::vector<char>>& in_place, Reporter& reporter) {
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
        if (!r) reporter.debug(r.error().message);
        else if (*r && staged_only) made.emplace_back(unpacked::layout_dir(root) / *in.sha256, **r);
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
            all = in.plan.files[k].kind != PlannedFile::Kind::Extracted ||
                  (item_of[i][k] != kNoItem && digests[item_of[i][k]].same_inode);
        if (all) out.emplace_back(*in.unpacked, *in.unpacked_seen);
    }
    return out;
}

// A staged file's digest for its RECORD row: views into the staged digests or the wheel's RECORD,
// or one made for it (`made`, a generated file's, held by the caller while the row is written).
struct ItemDigest {
    std::string_view algorithm, digest;
    uint64_t size = 0;
    std::optional<std::string> made;
};

// The directories of the wheels opened from their archives (wheel_directory.hpp), kept for the
// next install on a thread of their own while this one goes on (torch's is 2 MB to encode, hash
// and write: on a switch's critical path it was 24 ms here). It only reads the wheels; finish()
// joins it before anything moves out of them, then keeps the directories of local wheels whose
// sha256 only staging found (installed the first time). Best effort, like the cache.
class DirectoryKeeper {
public:
    DirectoryKeeper(const stdfs::path& root, const std::vector<Input>& inputs)
        : root_(root), inputs_(inputs), kept_(inputs.size(), 0) {}
    void start() {
        try {
            thread_ = std::jthread([this] {
                for (size_t i = 0; i < inputs_.size(); ++i)
                    if (!inputs_[i].from_directory)
                        if (auto sha = unpacked::known_sha256(root_, inputs_[i].request.file)) {
                            unpacked::keep_directory(root_, *sha, inputs_[i].wheel);
                            kept_[i] = 1;
                        }
            });
        } catch (const std::system_error&) {  // no thread to be had: finish() keeps what staging hashed
        }
    }
    void finish() {
        if (thread_.joinable()) thread_.join();
        for (size_t i = 0; i < inputs_.size(); ++i)
            if (!inputs_[i].from_directory && !kept_[i] && inputs_[i].sha256)
                unpacked::keep_directory(root_, *inputs_[i].sha256, inputs_[i].wheel);
    }

private:
    const stdfs::path& root_;
    const std::vector<Input>& inputs_;
    std::vector<char> kept_;
    std::jthread thread_;
};

// Notes of work done on another thread, handed to the real reporter afterwards, in order.
class HeldNotes final : public Reporter {
public:
    void note(Severity sev, const Message& m) override {
        std::lock_guard lock(mu_);
        notes_.emplace_back(sev, m);
    }
    bool confirm(const Message&, bool fallback) override { return fallback; }
    int task_begin(const Message&, uint64_t) override { return 0; }
    void task_advance(int, uint64_t) override {}
    void task_end(int, bool) override {}
    void replay(Reporter& to) {
        std::lock_guard lock(mu_);
        for (const auto& [sev, m] : notes_) to.note(sev, m);
        notes_.clear();
    }

private:
    std::mutex mu_;
    std::vector<std::pair<Severity, Message>> notes_;
};

// Paths no wheel may write, refused before anything is staged: the files an install writes
// itself (a .data/purelib/…dist-info/RECORD, another wheel's RECORD), and those that make the
// environment one (the interpreter, pyvenv.cfg, activate …: a wheel's .data/data/bin/python3
// would leave it without its interpreter).
Expected<void> refuse_reserved_paths(const Writer& writer, const std::vector<Input>& inputs, const std::set<stdfs::path>& env_files) {
    auto refuse = [&](const stdfs::path& p, const char* key) -> Expected<void> {
        auto it = writer.find(p.native());  // the writer's keys are lexically normal, as p is
        if (it == writer.end()) return {};
        const auto& by = inputs[it->second.first];
        const auto& f = by.plan.files[it->second.second];
        const std::string entry =
            f.kind == PlannedFile::Kind::Generated ? stdfs::path(f.dest).string() : by.wheel.zip.entries[f.entry].name;
        return fail(ExitCode::BadWheel, key, {{"file", by.wheel.source()}, {"entry", entry}, {"path", p.string()}});
    };
    for (const auto& in : inputs) {
        if (in.skip) continue;
        for (const char* leaf : {"RECORD", "direct_url.json"})
            ENVFIX_TRY_VOID(refuse((in.plan.dist_info / leaf).lexically_normal(), "install.writes_install_record"));
    }
    for (const auto& p : env_files) ENVFIX_TRY_VOID(refuse(p, "install.writes_environment_file"));
    return {};
}

std::string summary_of(const std::vector<Input>& inputs, const std::vector<const resolver::InstalledDist*>& removing) {
    std::vector<std::string> in, out;
    for (const auto& i : inputs)
        if (!i.skip) in.push_back(i.plan.name + " " + i.plan.version);
    for (const auto* d : removing) out.push_back(d->name + " " + d->version);
    std::string s;
    if (!in.empty()) s += "install " + str::join(in, ", ");
    if (!out.empty()) s += std::string(s.empty() ? "" : "; ") + "remove " + str::join(out, ", ");
    return s;
}

Expected<void> write_generated(const stdfs::path& stage, const std::string& content) {
    ENVFIX_TRY(auto f, fileops::OutFile::create(stage));
    ENVFIX_TRY_VOID(f.write(content));
    return f.finish(fileops::FileMode::Regular, true);
}

}  // namespace

std::string enable_import_site(std::string_view text) {
    std::string out(text);
    const bool crlf = out.find("\r\n") != std::string::npos;
    for (size_t pos = 0; pos < out.size();) {
        size_t end = out.find('\n', pos);
        if (end == std::string::npos) end = out.size();
        size_t stop = (end > pos && out[end - 1] == '\r') ? end - 1 : end;
        auto line = str::trim(std::string_view(out).substr(pos, stop - pos));
        if (!line.empty() && line.front() == '#' && str::trim(line.substr(1)) == "import site") {
            out.replace(pos, stop - pos, "import site");
            return out;
        }
        pos = end + 1;
    }
    const char* eol = crlf ? "\r\n" : "\n";
    if (!out.empty() && out.back() != '\n') out += eol;
    return out + "import site" + eol;
}

Expected<std::vector<RecoveryOutcome>> recover(const probe::Environment& env, bool wait_for_lock, Reporter& reporter) {
    ENVFIX_TRY(auto lock, EnvLock::acquire(env.root, wait_for_lock, reporter));
    return recover_transactions(env.root, environment_areas(env), reporter);
}

Expected<InstallResult> install(const probe::Environment& env, const InstallRequest& request, Reporter& reporter) {
    auto started = Clock::now();
    // -vv: how long each step took (docs/performance.md reads these on machines without a profiler).
    // With this thread's CPU time, waits and preemptions in the step: a step slower on the GPU
    // machine than here says whether it waited or was kept from the cores.
    auto lap_at = started;
    auto used_at = platform::thread_usage();
    auto lap = [&](const char* phase) {
        auto now = Clock::now();
        const auto used = platform::thread_usage();
        reporter.debug(msg("install.debug.phase_used",
                           {{"phase", phase},
                            {"ms", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now - lap_at).count())},
                            {"cpu", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(used.cpu - used_at.cpu).count())},
                            {"waits", std::to_string(used.waits - used_at.waits)},
                            {"preempted", std::to_string(used.preempted - used_at.preempted)}}));
        lap_at = now;
        used_at = used;
    };
    InstallResult result;
    if (!env.runnable()) return fail(ExitCode::EnvBroken, "install.env_not_runnable", {{"path", env.root.string()}});
    if (!request.break_system_packages) ENVFIX_TRY_VOID(check_not_externally_managed(env));
    ENVFIX_TRY(auto scheme, install_scheme(env));
    auto target = script_target(env, scheme);

    // 1. The wheels, checked on their own and against the interpreter.
    const auto supported = resolver::supported_tags(env.facts);
    std::vector<Input> inputs(request.wheels.size());
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i].request = request.wheels[i];
    const auto unpacked_root = unpacked_cache_root();
    DirectoryKeeper keeper(unpacked_root, inputs);  // after `inputs`: its thread ends before they go
    // Opened and planned on several threads (torch's directory and RECORD alone take ~0.1 s);
    // the first failing wheel in the given order is the one reported. A wheel whose unpacked entry
    // is there is read from the directory kept with it, not from its archive; never for
    // --force-reinstall, a repair, which checks the archive again.
    auto open_all = [&]() -> Expected<void> {
        std::vector<std::optional<Error>> open_errors(inputs.size());
        tx::parallel_for(inputs.size(), [&](size_t i) {
            Input& in = inputs[i];
            const auto& req = in.request;
            auto r = [&]() -> Expected<void> {
                std::optional<WheelFile> kept;
                if (!request.force_reinstall)
                    if (auto sha = unpacked::known_sha256(unpacked_root, req.file); sha && unpacked::has_entry(unpacked_root, *sha))
                        kept = unpacked::load_directory(unpacked_root, *sha, req.file);
                in.from_directory = kept.has_value();
                if (kept) {
                    in.wheel = std::move(*kept);
                } else {
                    ENVFIX_TRY(in.wheel, open_wheel(req.file));
                }
                ENVFIX_TRY_VOID(check_compatible(in.wheel, env.facts, supported));
                WheelOptions wo;
                wo.requested = req.requested;
                if (req.direct_url) wo.direct_url = resolver::strip_credentials(*req.direct_url);
                ENVFIX_TRY(in.plan, plan_wheel(in.wheel, scheme, target, wo));
                return {};
            }();
            if (!r) open_errors[i] = std::move(r).error();
        }, 1);
        for (auto& e : open_errors)
            if (e) return unexpected(std::move(*e));
        const auto kept = std::count_if(inputs.begin(), inputs.end(), [](const Input& in) { return in.from_directory; });
        reporter.debug(msg("install.debug.directories_used", {{"kept", std::to_string(kept)}, {"count", std::to_string(inputs.size())}}));
        if (static_cast<size_t>(kept) < inputs.size() && !request.dry_run) keeper.start();
        return {};
    };
    // Each wheel's name and version from its file's name (as open_wheel reads them): what goes
    // is planned from them, where the caller hands the wheels over later (wheels_ready).
    std::vector<resolver::WheelName> wanted(inputs.size());
    if (request.wheels_ready) {
        for (size_t i = 0; i < inputs.size(); ++i) {
            ENVFIX_TRY(wanted[i], resolver::parse_wheel_name(inputs[i].request.file.filename().string()));
        }
    } else {
        ENVFIX_TRY_VOID(open_all());
        for (size_t i = 0; i < inputs.size(); ++i) wanted[i] = inputs[i].wheel.name;
        lap("wheels opened and planned");
    }
    std::set<std::string> names;
    for (size_t i = 0; i < inputs.size(); ++i)
        if (!names.insert(wanted[i].canonical_name).second)
            return fail(ExitCode::Usage, "install.duplicate_wheel",
                        {{"name", wanted[i].canonical_name}, {"file", inputs[i].request.file.filename().string()}});

    // 2. An embedded Python that does not import site would not see what is installed.
    std::vector<PlannedFile> extra_files;
    if (env.kind == probe::EnvKind::Embedded && env.pth_file && !inputs.empty()) {
        ENVFIX_TRY(auto pth_text, fs::read_file(*env.pth_file));
        if (!probe::parse_pth(pth_text).import_site) {
            if (!reporter.confirm(msg("install.pth_enable_site", {{"path", env.pth_file->string()}}), false))
                return fail(ExitCode::Usage, "install.pth_site_refused", {{"path", env.pth_file->string()}});
            PlannedFile f;
            f.kind = PlannedFile::Kind::Generated;
            f.dest = env.pth_file->lexically_normal().native();
            f.content = enable_import_site(pth_text);
            extra_files.push_back(std::move(f));
            result.site_enabled = true;
        }
    }

    // 3. The lock, then whatever an earlier envfix left half done.
    std::optional<EnvLock> lock;
    if (!request.dry_run) {
        ENVFIX_TRY(auto l, EnvLock::acquire(env.root, request.wait_for_lock, reporter));
        lock.emplace(std::move(l));
        ENVFIX_TRY(result.recovered, recover_transactions(env.root, environment_areas(env), reporter));
    } else if (has_pending_transactions(state_dir(env.root))) {
        reporter.warn(msg("install.pending_transaction", {{"path", env.root.string()}}));
    }

    // 4. What is installed, what goes, what stays.
    std::vector<stdfs::path> scan = env.site_packages;
    scan.push_back(scheme.purelib);
    scan.push_back(scheme.platlib);
    ENVFIX_TRY(auto installed, resolver::read_installed(scan));
    lap("installed distributions read");
    std::vector<const resolver::InstalledDist*> removing;
    auto remove_dist = [&](const resolver::InstalledDist* d) {
        if (std::find(removing.begin(), removing.end(), d) == removing.end()) removing.push_back(d);
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
        auto& in = inputs[i];
        in.replaces = installed.find_all(wanted[i].canonical_name);
        bool same = !in.replaces.empty() && std::all_of(in.replaces.begin(), in.replaces.end(), [&](const resolver::InstalledDist* d) {
            return d->parsed_version && *d->parsed_version == wanted[i].version;
        });
        if (same && !request.force_reinstall) {
            in.skip = true;
            continue;
        }
        for (const auto* d : in.replaces) remove_dist(d);
    }
    // The snapshot of the present (below) is captured on a thread of its own while the removals
    // and the new files are planned: both only read the locked environment (on the GPU machine a
    // switch's capture takes 0.16 s and its removal plan 0.13 s). Not for a dry
    // run or an install of what is installed. Its notes reach the reporter after it, in order.
    const bool brings_in = !request.dry_run && std::any_of(inputs.begin(), inputs.end(), [](const Input& in) { return !in.skip; });
    const bool changes = !request.dry_run && (!request.remove.empty() || !extra_files.empty() || brings_in);
    // The journal begun now, on a thread of its own: its flushes (the file, its folder; a disk
    // round trip each) go by while what goes is planned, the wheels are opened and the checks run,
    // instead of in a row before the staging, which waits for it (Transaction::begun). Only for
    // an install with wheels to bring in; a failure before the staging removes the journal again.
    const std::vector<stdfs::path> areas = environment_areas(env);
    std::optional<Transaction> early_tx;
    if (brings_in) {
        std::vector<std::string> in;
        for (size_t i = 0; i < inputs.size(); ++i)
            if (!inputs[i].skip) in.push_back(wanted[i].name + " " + wanted[i].version.to_string());
        ENVFIX_TRY(auto t, Transaction::begin_beside(state_dir(env.root), areas, "install " + str::join(in, ", ")));
        early_tx.emplace(std::move(t));
    }
    HeldNotes capture_notes;
    std::vector<snap::Seen> present_seen;
    SnapshotStats snap_stats;
    std::optional<Snapshot> present;
    std::future<Expected<Snapshot>> capturing;  // waited for before the above go
    // Its files' bytes go into the store on a thread of their own, beside the checks, the staging
    // and the wait for the unpacking (and the downloads, where the wheels come later): nothing
    // changes the locked environment before the commit (a switch's first snapshot links 17 000
    // files: 0.4-0.5 s on the GPU machine). Waited for where the snapshot is kept; an install
    // that stops before that takes the objects back (the environment as it was).
    snap::StoredAhead ahead(env);  // declared after them: waited for before they go
    // Before the wheels are handed over where they come late, else after the checks (below).
    auto take_present = [&]() -> Expected<void> {
        if (changes && !request.snapshot_reason.empty()) {
            auto captured = capturing.valid() ? capturing.get() : snap::capture(env, capture_notes, &snap_stats, present_seen);
            capture_notes.replay(reporter);
            if (!captured) return unexpected(std::move(captured).error());
            present = std::move(*captured);
        }
        if (request.present_known) {
            std::shared_ptr<KnownInstalled> known;
            if (present && present_seen.size() == present->files.size()) {
                known = std::make_shared<KnownInstalled>();
                known->root = env.root.lexically_normal();
                known->files.reserve(present->files.size());
                for (size_t i = 0; i < present->files.size(); ++i) {
                    const auto& f = present->files[i];
                    const auto& k = present_seen[i];
                    known->files.try_emplace(f.path, KnownInstalled::File{k.device, k.inode, k.size, k.mtime_ns, f.sha256});
                }
            }
            request.present_known(std::move(known));
        }
        if (present && changes) ahead.start(*present, present_seen);
        return {};
    };
    if (changes && !request.snapshot_reason.empty()) {
        try {
            capturing = std::async(std::launch::async, [&] { return snap::capture(env, capture_notes, &snap_stats, present_seen); });
        } catch (const std::system_error&) {  // no thread left: captured below, in turn
        }
    }
    for (const auto& name : request.remove) {
        auto found = installed.find_all(name);
        if (found.empty()) reporter.warn(msg("install.remove_not_installed", {{"name", name}}));
        for (const auto* d : found) remove_dist(d);
    }
    std::vector<const resolver::InstalledDist*> staying;
    for (const auto& d : installed.dists)
        if (std::find(removing.begin(), removing.end(), &d) == removing.end()) staying.push_back(&d);
    auto owners = recorded_owners(staying);
    PathSet protect;
    const auto env_files = environment_files(env, scheme);
    for (const auto& p : env_files) protect.insert(p.native());
    for (const auto& [p, owner] : owners) protect.insert(p);
    lap("files of the distributions that stay read");
    std::vector<PathText> remove_files;  // strings: held while torch's unpacking runs beside
    InstalledRows replaced_rows;  // what the removed files' RECORD rows promise (keep_links.hpp)
    for (const auto* d : removing) {
        ENVFIX_TRY(auto rp, plan_removal(*d, env.root, protect));
        for (auto& m : rp.skipped) reporter.warn(m);
        result.removed.push_back({d->name, d->version, d->dist_info, "", rp.files.size(), 0});
        for (auto& [k, row] : rp.rows) replaced_rows.try_emplace(rp.files[k], std::move(row));
        for (auto& f : rp.files) remove_files.push_back(std::move(f));
    }
    lap("removals planned");
    // The wheels handed over now (envfix install: its downloads end), with what goes planned and
    // the snapshot of the present captured and being stored meanwhile.
    if (request.wheels_ready) {
        ENVFIX_TRY_VOID(take_present());
        lap("snapshot of the present captured");
        ENVFIX_TRY(auto files, request.wheels_ready());
        if (files.size() != inputs.size()) return fail(ExitCode::Internal, "install.wheels_mismatch", {{"count", std::to_string(files.size())}});
        for (size_t i = 0; i < inputs.size(); ++i) inputs[i].request.file = std::move(files[i]);
        lap("wheels handed over");
        ENVFIX_TRY_VOID(open_all());
        lap("wheels opened and planned");
        for (size_t i = 0; i < inputs.size(); ++i)
            if (inputs[i].wheel.name.canonical_name != wanted[i].canonical_name || !(inputs[i].wheel.name.version == wanted[i].version))
                return fail(ExitCode::Internal, "install.wheels_mismatch", {{"count", std::to_string(inputs.size())}});
    }
    for (auto& in : inputs) {
        if (!in.skip) continue;
        result.unchanged.push_back({in.plan.name, in.plan.version, in.replaces.front()->dist_info, in.wheel.source()});
        reporter.info(msg("install.already_installed", {{"name", in.plan.name}, {"version", in.plan.version}}));
    }

    // 5. Dependencies of the new distributions against what will be installed afterwards.
    std::map<std::string, std::string> final_versions;
    for (const auto* d : staying) final_versions[d->canonical_name] = d->version;
    std::vector<const resolver::CoreMetadata*> new_meta;
    for (const auto& in : inputs) {
        final_versions[in.plan.canonical_name] = in.plan.version;
        if (!in.skip) new_meta.push_back(&in.wheel.metadata);
    }
    std::vector<Message> dep_warnings;
    result.unmet = unmet_requirements(new_meta, final_versions, env.facts, dep_warnings);
    for (auto& m : dep_warnings) reporter.warn(m);
    if (!result.unmet.empty()) {
        std::vector<std::string> lines;
        for (const auto& u : result.unmet)
            lines.push_back(u.dist + " → " + u.requirement + (u.found.empty() ? "" : " (" + u.found + ")"));
        if (request.check_dependencies)
            return fail(ExitCode::RequirementsUnmet, "install.unmet_dependencies",
                        {{"count", std::to_string(result.unmet.size())}, {"list", str::join(lines, "; ")}});
        for (const auto& l : lines) reporter.warn(msg("install.unmet_dependency", {{"what", l}}));
    }

    // 6. Every new file once: a later wheel wins a path two wheels write (the nvidia/__init__.py
    // several CUDA wheels share), with a warning when their contents differ.
    size_t planned_files = 0;
    for (const auto& in : inputs)
        if (!in.skip) planned_files += in.plan.files.size();
    Writer writer(planned_files);
    std::deque<PathText> normal_dests;  // the writer's keys of the dests that were not plainly normal
    {
        std::vector<Writer::value_type> run;
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (inputs[i].skip) continue;
            // The wheel's files in the order of their destinations: sorted in linear time, as
            // they come nearly in order.
            run.clear();
            for (size_t k = 0; k < inputs[i].plan.files.size(); ++k) {
                const auto& f = inputs[i].plan.files[k];
                PathText scratch;
                const PathText* key = f.dest_normal ? &f.dest : &normal_text(f.dest, scratch);
                if (key == &scratch) key = &normal_dests.emplace_back(std::move(scratch));
                run.emplace_back(key, std::pair{i, k});
            }
            sort_nearly_sorted(run, [](const Writer::value_type& a, const Writer::value_type& b) { return DestLess()(a.first, b.first); });
            for (const auto& [key, who] : run) {
                auto* earlier = writer.add(key, who);
                if (!earlier) continue;
                const auto& prev = inputs[earlier->second.first];
                const auto& pf = prev.plan.files[earlier->second.second];
                const auto& f = inputs[i].plan.files[who.second];
                bool same = pf.kind == PlannedFile::Kind::Extracted && f.kind == PlannedFile::Kind::Extracted &&
                            prev.wheel.record[prev.wheel.record_row[pf.entry]].hash_digest ==
                                inputs[i].wheel.record[inputs[i].wheel.record_row[f.entry]].hash_digest;
                if (!same)
                    reporter.warn(msg("install.file_clash", {{"path", stdfs::path(f.dest).string()}, {"first", prev.plan.name}, {"second", inputs[i].plan.name}}));
                earlier->second = who;
            }
        }
    }
    ENVFIX_TRY_VOID(refuse_reserved_paths(writer, inputs, env_files));
    std::map<std::string, std::map<std::string, size_t>> overwritten;  // new dist -> owner -> files
    PathSet removing_set;
    for (const auto& p : remove_files) removing_set.insert(p);
    for (const auto& [dest, who] : writer) {  // its keys lexically normal already
        auto it = owners.find(*dest);
        if (it != owners.end() && !removing_set.count(*dest)) overwritten[inputs[who.first].plan.name][it->second]++;
    }
    for (const auto& [name, by] : overwritten)
        for (const auto& [owner, count] : by)
            reporter.warn(msg("install.overwrites", {{"name", name}, {"owner", owner}, {"count", std::to_string(count)}}));

    for (const auto& in : inputs) {
        if (in.skip) continue;
        uint64_t bytes = 0;
        for (const auto& f : in.plan.files)
            bytes += f.kind == PlannedFile::Kind::Generated ? f.content.size() : in.wheel.zip.entries[f.entry].size;
        result.installed.push_back({in.plan.name, in.plan.version, in.plan.dist_info, in.wheel.source(), in.plan.files.size() + 1, bytes});
    }
    bool nothing = result.installed.empty() && remove_files.empty() && extra_files.empty();
    if (request.dry_run || nothing) {
        for (auto& in : inputs)
            for (auto& w : in.plan.warnings) reporter.warn(w);
        result.seconds_total = seconds_since(started);
        return result;
    }

    // The snapshot of the present: captured now, before staging (its files stored beside what
    // follows, the snapshot written only once every check has passed, below), so a switch reads
    // from it which installed files already hold the new wheel's bytes instead of reading them again.
    if (!request.wheels_ready) {
        ENVFIX_TRY_VOID(take_present());
        lap("snapshot of the present captured");
    }
    // A switch: the files whose bytes the new wheel repeats stay where they are, with their
    // bytecode; they are neither staged nor moved (keep_links.hpp). Not for --force-reinstall,
    // which checks every file by its hash (a repair). Without a snapshot (an API caller's choice)
    // the keep links below still spare the inflating.
    InPlace in_place;
    if (present && !replaced_rows.empty() && !request.force_reinstall) {
        in_place = files_left_in_place(*present, replaced_rows, inputs, writer, env.root.lexically_normal());
        if (in_place.count)
            std::erase_if(remove_files, [&](const PathText& p) {
                return in_place.paths.count(p) || (ends_with_ascii(p, ".pyc") && bytecode_of(p, in_place.paths));
            });
    }

    // 7. Room for the new files (renames need none for the old ones).
    uint64_t needed = 0;
    for (const auto& c : result.installed) needed += c.bytes;
    if (auto free = fileops::free_space(scheme.purelib); free && needed + (needed / 50) > *free)
        return fail(ExitCode::DiskFull, "install.no_space",
                    {{"path", scheme.purelib.string()}, {"needed", str::human_bytes(needed)}, {"free", str::human_bytes(*free)}});

    lap("what goes and what stays, checks");
    // 8. Stage, check, record, take the way back (snapshot), move.
    auto stage_started = Clock::now();
    // Large wheels already unpacked take their ready trees (ready_tree.hpp): their files then come
    // into staging as a few renamed folders, neither made nor linked one by one here.
    ClaimHolder holder{ready::new_holder(unpacked_root)};
    std::vector<ReadyUse> trees;
    if (!request.force_reinstall) take_ready_trees(inputs, writer, in_place, areas, unpacked_root, request.ready_trees_from, holder.dir, trees);
    // The next trees asked for beside the staging; known before the install returns (the command
    // starts their maker after it).
    std::future<bool> asking;
    {
        std::vector<std::pair<std::string, std::string>> asks;
        for (auto& use : trees)
            if (!use.ask.first.empty()) asks.push_back(std::move(use.ask));
        if (!asks.empty()) {
            try {
                asking = std::async(std::launch::async, [asks = std::move(asks), unpacked_root] { return ask_ready_trees(asks, unpacked_root); });
            } catch (const std::system_error&) {  // no thread to be had: asked for here
                result.ready_trees_wanted = ask_ready_trees(asks, unpacked_root);
            }
        }
    }
    if (request.ready_trees_from) lap("ready trees taken");
    auto in_tree = [&](std::pair<size_t, size_t> who) { return !trees.empty() && !trees[who.first].in_tree.empty() && trees[who.first].in_tree[who.second]; };
    // A file its own wheel writes but does not stage (left in place, or in a ready tree): found
    // without a lookup in `writer` (both are only ever set for the writer's own entries; a warm
    // install's 16 000 tree files looked up twice were 5 ms of its main thread).
    auto own_unstaged = [&](std::pair<size_t, size_t> who) { return in_place.has(who) || in_tree(who); };
    if (!early_tx) {
        ENVFIX_TRY(auto t, Transaction::begin(state_dir(env.root), areas, summary_of(inputs, removing)));
        early_tx.emplace(std::move(t));
    }
    Transaction tx = std::move(*early_tx);
    early_tx.reset();
    tx.set_summary(summary_of(inputs, removing));
    ENVFIX_TRY_VOID(tx.begun());  // the journal on the disk before anything is staged
    result.transaction = tx.id();
    std::vector<StageItem> items;
    items.reserve(writer.size() + extra_files.size() + inputs.size());
    // The new files by address: the plans' own paths (each a path's components, 0.6 KB), and the
    // few written after staging.
    std::vector<const PathText*> dests;
    std::deque<PathText> written_after;
    for (const auto& [dest, who] : writer) {
        if (own_unstaged(who)) continue;
        const auto& in = inputs[who.first];
        items.push_back({&in.wheel, &in.plan.files[who.second], tx.stage_path(*dest)});
        dests.push_back(dest);
    }
    for (const auto& f : extra_files) {
        items.push_back({nullptr, &f, tx.stage_path(f.dest)});
        dests.push_back(&f.dest);
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].skip) continue;
        dests.push_back(&written_after.emplace_back((inputs[i].plan.dist_info / "RECORD").native()));
        if (inputs[i].plan.direct_url) dests.push_back(&written_after.emplace_back((inputs[i].plan.dist_info / "direct_url.json").native()));
    }
    // The ready trees' files first, each top folder renamed in whole where staging has none of
    // that name yet (a tree's dist-info folder too: made first for INSTALLER, it took a rename
    // per file), merged below one another tree brought (a namespace package); then the folders
    // of the other files, which a tree may have brought already.
    uint64_t tree_bytes = 0;
    std::vector<std::pair<size_t, size_t>> tree_files;  // (input, index in its tree), in the order of dests
    std::vector<const PathText*> tree_dests;
    for (size_t i = 0; i < trees.size(); ++i) {
        auto& use = trees[i];
        if (!use.claimed) continue;
        use.into = tx.stage_path(inputs[i].plan.lib_dir / "x").parent_path();
        std::error_code ec;
        stdfs::create_directories(use.into, ec);
        // A rename refused (two mounts of one filesystem, a folder held open on Windows, the
        // cache cleaned meanwhile): what did not move is found missing below and linked from the
        // entry or inflated, as without a tree.
        if (auto merged = ready::merge(use.claimed->tree, use.into); !merged) reporter.debug(merged.error().message);
        use.claimed.reset();
        tree_dests.insert(tree_dests.end(), use.dests.begin(), use.dests.end());
        for (size_t j = 0; j < use.dests.size(); ++j) tree_files.emplace_back(i, j);
        tree_bytes += use.bytes;
        ++result.ready_trees_used;
    }
    ENVFIX_TRY_VOID(tx.make_stage_dirs(dests));
    const size_t tree_dests_from = dests.size();
    dests.insert(dests.end(), tree_dests.begin(), tree_dests.end());
    // What the merges left: out of the way by one rename (ready::release).
    if (result.ready_trees_used) ready::release(std::exchange(holder.dir, {}));
    // Each tree file looked at beside the staging, as a link from the entry is: one whose size
    // is not its RECORD's (an edit in place through an environment's link, which changes the
    // entry's inode) is staged again from its wheel; one changed since its entry was marked on
    // the disk is written back in the commit (on the GPU machine ~17 000 lstat calls, a few ms
    // on several threads).
    struct TreeCheck {
        std::vector<char> bad, on_disk;  // per tree file
    };
    std::future<TreeCheck> tree_check;
    auto check_trees = [&] {
        TreeCheck c;
        c.bad.assign(tree_files.size(), 0);
        c.on_disk.assign(tree_files.size(), 0);
        // In pieces of 512 files, in the trees' order (folder by folder): each folder opened once.
        constexpr size_t kPiece = 512;
        tx::parallel_for((tree_files.size() + kPiece - 1) / kPiece, [&](size_t piece) {
            storeops::FolderStats folders;
            for (size_t t = piece * kPiece; t < std::min(tree_files.size(), (piece + 1) * kPiece); ++t) {
                const auto& use = trees[tree_files[t].first];
                const auto& f = use.want.files[tree_files[t].second];
                auto st = folders.stat(use.into, f.rel);
                if (!st || !st->regular || st->size != f.size) c.bad[t] = 1;
                else c.on_disk[t] = use.since && st->mtime_ns <= *use.since;
            }
        }, 1);
        return c;
    };
    if (!tree_files.empty()) {
        try {
            tree_check = std::async(std::launch::async, check_trees);
        } catch (const std::system_error&) {  // no thread to be had: checked after the staging
        }
    }
    if (result.ready_trees_used) reporter.debug(msg("install.debug.ready_trees", {{"trees", std::to_string(result.ready_trees_used)},
                                                                                 {"files", std::to_string(dests.size() - tree_dests_from)}}));
    lap("folders made");
    // Everything above planned while the caller's work on the wheels ran on (envfix install: their
    // unpacking into the cache); it ends here, before the cache is read.
    if (request.before_cache) {
        ENVFIX_TRY_VOID(request.before_cache());
        lap("wheels unpacked");
    }
    // The new files' paths as text, and the moves planned from them on another thread while the
    // files are staged (the plan reads the environment, which the lock keeps as it is, not the
    // staging folders; 9–17 ms for torch's stack). After the unpacking ahead, whose state is the
    // cold install's memory peak: the plan's is not added to it.
    std::vector<PathText> added;
    added.reserve(dests.size());
    for (const auto* d : dests) added.push_back(*d);
    std::future<Expected<std::vector<JournalOp>>> planned;
    try {
        planned = std::async(std::launch::async, [&] { return tx.plan(remove_files, added); });
    } catch (const std::system_error&) {  // no thread to be had: planned below
    }
    // Wheels already unpacked in the cache: their files are linked instead of inflated. Looked up
    // on several threads, each wheel's own (a few files read and looked at per wheel: 5 ms of a
    // warm install on the GPU machine, one wheel after another).
    tx::parallel_for(inputs.size(), [&](size_t i) {
        auto& in = inputs[i];
        if (in.skip) return;
        in.sha256 = unpacked::known_sha256(unpacked_root, in.wheel);
        // --force-reinstall writes from the wheel itself, and its entry is made again below: the
        // entry's files share inodes with earlier installs, which may have been edited in place.
        if (in.sha256 && request.force_reinstall) unpacked::drop_entry(unpacked_root, *in.sha256);
        else if (in.sha256) {
            in.unpacked = unpacked::find_entry(unpacked_root, *in.sha256, extracted_files(in.plan));
            if (in.unpacked) {
                in.unpacked_seen = fs::identity(*in.unpacked);
                in.unpacked_on_disk = unpacked::entry_on_disk_since(*in.unpacked);
                in.unpacked_made = unpacked::entry_made_at(*in.unpacked);
            }
        }
    }, 1);
    std::vector<std::vector<size_t>> item_of(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) item_of[i].assign(inputs[i].plan.files.size(), kNoItem);
    // A switch: what the replaced distributions installed with the same bytes is linked from
    // there, not inflated (keep_links.hpp); the old files still move into the backup as they are.
    // The unpacked-wheel cache comes first: it has every file of its wheel.
    size_t item = 0;  // the first items are the writer's, in its order
    for (const auto& [dest, who] : writer) {
        if (own_unstaged(who)) continue;  // kNoItem: the RECORD row is the wheel's
        item_of[who.first][who.second] = item;
        auto& it = items[item++];
        const auto& in = inputs[who.first];
        if (it.file->kind != PlannedFile::Kind::Extracted) continue;
        const auto entry = it.file->entry;
        if (in.unpacked) {
            it.linked_from = unpacked::entry_file(*in.unpacked, entry);
            it.on_disk_since_ns = in.unpacked_on_disk.value_or(0);
            it.made_before_ns = in.unpacked_made.value_or(0);
        } else if (auto row = replaced_rows.find(*dest);
                   row != replaced_rows.end() &&
                   same_content(row->second, in.wheel.record[static_cast<size_t>(in.wheel.record_row[entry])], in.wheel.zip.entries[entry].size)) {
            it.linked_from = row->first;
            it.verify_link = true;
        }
    }
    const size_t file_items = items.size();
    std::map<size_t, size_t> archive_hash_item;  // input -> item
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (inputs[i].skip || !inputs[i].plan.direct_url || inputs[i].sha256) continue;
        archive_hash_item[i] = items.size();
        items.push_back({&inputs[i].wheel, nullptr, {}});
    }
    lap("unpacked-cache lookups");
    // One RECORD per wheel, on several threads (torch's alone has 12 000 rows to sort and format);
    // the first failing wheel in order is the one reported. `digest_of(item)`: the digest its
    // staged file has; `wanted(i)`: the wheels to write now.
    using DigestOf = std::function<std::optional<ItemDigest>(size_t item)>;
    std::vector<std::optional<Error>> record_errors(inputs.size());  // both batches': the first in order is reported
    auto write_records = [&](const DigestOf& digest_of, const std::function<bool(size_t)>& wanted) {
        tx::parallel_for(inputs.size(), [&](size_t i) {
            const auto& in = inputs[i];
            if (in.skip || !wanted(i)) return;
            auto r = [&]() -> Expected<void> {
                // Views of the plans' and digests' strings (torch's 12 000 rows, not copied).
                std::vector<resolver::RecordRowView> rows;
                rows.reserve(in.plan.files.size() + 2);
                std::deque<std::string> held;  // digests made here (a generated file's), while the rows point into them
                for (size_t k = 0; k < in.plan.files.size(); ++k) {
                    const auto& f = in.plan.files[k];
                    size_t written_by = item_of[i][k];
                    auto from = std::pair{i, k};
                    if (written_by == kNoItem && !own_unstaged(from)) {  // the later wheel that wrote the same path
                        PathText scratch;
                        from = writer.at(normal_text(f.dest, scratch));
                        written_by = item_of[from.first][from.second];
                    }
                    if (written_by == kNoItem) {  // left in place: the bytes its wheel's RECORD names
                        const auto& src = inputs[from.first];
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
                    ENVFIX_TRY_VOID(write_generated(tx.stage_path(dest), json));
                    direct_url_path = record_path_for(dest, in.plan.lib_dir);
                    direct_url_hash = record_sha256(json);
                    rows.push_back({direct_url_path, "sha256", direct_url_hash, json.size()});
                }
                auto record = in.plan.dist_info / "RECORD";
                const std::string record_row = record_path_for(record, in.plan.lib_dir);
                rows.push_back({record_row, "", "", std::nullopt});
                sort_nearly_sorted(rows, [](const auto& a, const auto& b) { return a.path < b.path; });
                return write_generated(tx.stage_path(record), resolver::format_record(rows));
            }();
            if (!r) record_errors[i] = std::move(r).error();
        }, 1);
    };
    // Known before staging (a wheel's file is checked against its RECORD row, a generated one is
    // its content's sha256), except a #!python script's, rewritten for the interpreter: the
    // RECORDs of the wheels without one are written on another thread while the files are staged
    // (on the GPU machine 19–25 ms of a warm install after its staging).
    auto predicted = [&](size_t item) -> std::optional<ItemDigest> {
        const auto& it = items[item];
        if (!it.file || it.file->kind == PlannedFile::Kind::Script) return std::nullopt;
        if (it.file->kind == PlannedFile::Kind::Generated) {
            ItemDigest d{"sha256", {}, it.file->content.size()};
            d.made = record_sha256(it.file->content);
            return d;
        }
        const auto& row = it.wheel->record[static_cast<size_t>(it.wheel->record_row[it.file->entry])];
        return ItemDigest{row.hash_algorithm, row.hash_digest, it.wheel->zip.entries[it.file->entry].size};
    };
    std::vector<char> record_early(inputs.size(), 0);
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& in = inputs[i];
        if (in.skip || (in.plan.direct_url && !in.sha256)) continue;
        bool known = true;
        for (size_t k = 0; k < in.plan.files.size() && known; ++k) {
            size_t by = item_of[i][k];
            if (by == kNoItem && !own_unstaged({i, k})) {
                PathText scratch;
                const auto from = writer.at(normal_text(in.plan.files[k].dest, scratch));
                by = item_of[from.first][from.second];
            }
            known = by == kNoItem || (items[by].file && items[by].file->kind != PlannedFile::Kind::Script);
        }
        record_early[i] = known;
    }
    std::future<void> early_records;
    try {
        early_records = std::async(std::launch::async, [&] { write_records(predicted, [&](size_t i) { return record_early[i] != 0; }); });
    } catch (const std::system_error&) {  // no thread to be had: written after the staging
        std::fill(record_early.begin(), record_early.end(), 0);
    }
    StageOptions so;
    so.threads = request.threads;
    so.interpreter = target.interpreter;
    so.line_end = env.layout_os == probe::LayoutOs::Windows ? "\r\n" : "\n";
    so.reporter = &reporter;
    ENVFIX_TRY(auto digests, stage_items(items, so));
    std::vector<char> tree_on_disk;
    if (!tree_files.empty()) {
        auto checked = tree_check.valid() ? tree_check.get() : check_trees();
        std::vector<StageItem> again;
        for (size_t t = 0; t < tree_files.size(); ++t) {
            if (!checked.bad[t]) continue;
            const auto [i, j] = tree_files[t];
            const auto& use = trees[i];
            auto at = join_generic(use.into, use.want.files[j].rel);
            std::error_code ec;
            stdfs::remove(at, ec);
            stdfs::create_directories(at.parent_path(), ec);
            StageItem item{&inputs[i].wheel, &inputs[i].plan.files[use.files[j]], at.native()};
            // From the entry where its file is right (its size is checked there), else inflated.
            item.linked_from = unpacked::entry_file(*use.entry, use.want.files[j].entry).native();
            again.push_back(std::move(item));
        }
        if (!again.empty()) ENVFIX_TRY_VOID(stage_items(again, so));
        tree_on_disk = std::move(checked.on_disk);
    }
    for (const auto& [i, item] : archive_hash_item) {
        inputs[i].sha256 = digests[item].digest;
        unpacked::remember_sha256(unpacked_root, inputs[i].wheel, digests[item].digest);
        if (!trees.empty() && ask_ready_tree(trees[i], inputs[i].sha256, unpacked_root)) result.ready_trees_wanted = true;
    }
    lap("files staged");
    auto filled = fill_unpacked_cache(unpacked_root, inputs, items, item_of, in_place.of, reporter);
    lap("unpacked cache filled");
    // A file hard-linked unchanged from an entry on the disk needs no write-back in the commit.
    std::vector<char> on_disk(dests.size(), 0);  // dests: the items' files first, in their order
    for (size_t k = 0; k < file_items; ++k) {
        if (items[k].verify_link && digests[k].linked) ++result.files_kept;
        else result.bytes_written += digests[k].size;
        on_disk[k] = digests[k].on_disk;
    }
    // A tree's files are its entry's, on the disk where unchanged since its mark (checked above).
    for (size_t k = tree_dests_from; k < dests.size(); ++k) on_disk[k] = tree_on_disk[k - tree_dests_from];
    result.bytes_written += tree_bytes;
    auto on_disk_after_commit = entries_flushed_whole(inputs, item_of, digests);
    // Entries made above of staged files: flushed with them (a local wheel's first install, whose
    // next install can then take a ready tree).
    for (auto& f : filled) on_disk_after_commit.push_back(std::move(f));
    // The RECORDs written early, beside the staging, are in; the rest are written now.
    if (early_records.valid()) early_records.get();
    write_records([&](size_t item) -> std::optional<ItemDigest> {
        const auto& d = digests[item];
        return ItemDigest{d.algorithm, d.digest, d.size};
    }, [&](size_t i) { return !record_early[i]; });
    for (auto& e : record_errors)
        if (e) return unexpected(std::move(*e));
    dests = {};  // the plans they point into go next
    keeper.finish();  // it reads the wheels moved out below
    std::jthread freeing;
    try {
        freeing = std::jthread([items = std::move(items), digests = std::move(digests), writer = std::move(writer),
                                state = take_staging_state(inputs), trees = std::move(trees)]() mutable {
            items = std::vector<StageItem>();  // first: it points into the plans
            digests = std::vector<StagedDigest>();
            writer.clear();
            trees.clear();  // their wants: torch's alone is 12 000 paths
            state.clear();
        });
    } catch (const std::system_error&) {  // no thread left: freed here, as the lambda goes
    }
    result.files_written = added.size() - result.files_kept;
    result.files_kept += in_place.count;
    lap("RECORD files written");
    if (interrupt_requested()) return fail(ExitCode::Interrupted, "install.interrupted");
    // Written once every check has passed, so a refused install leaves no snapshot (and takes back
    // what it stored ahead); dropped again when the transaction fails (the environment did not
    // change; its stored files are left to `envfix snapshot gc`). Its file is made durable with
    // the moves, in the commit's one journal commit: nothing needs it before they are.
    if (present) {
        ENVFIX_TRY_VOID(ahead.keep(*present, present_seen, request.snapshot_reason, snap_stats, fs::Sync::Cache));
        tx.flush_with_commit({snap::snapshot_file(env.root, present->id)});
        result.snapshot = present->id;
        const auto& st = snap_stats;
        reporter.debug(msg("snapshot.stats", {{"id", present->id}, {"files", std::to_string(st.files)}, {"hashed", std::to_string(st.hashed)},
                                              {"stored", std::to_string(st.stored)}, {"seconds", std::to_string(st.seconds)}}));
        present.reset();
        present_seen = {};
    }
    auto drop_snapshot = [&](Error e) -> Unexpected<Error> {
        if (!result.snapshot.empty()) forget_snapshot(env.root, result.snapshot);
        return unexpected(std::move(e));
    };
    lap("snapshot taken");
    // The staging above ran beside the caller's last work (envfix install: the downloads' flush);
    // nothing has moved yet, so a failure there still leaves the environment as it was.
    if (request.before_moves) {
        if (auto r = request.before_moves(); !r) return drop_snapshot(r.error());
        lap("downloads flushed");
    }
    auto ops = planned.valid() ? planned.get() : tx.plan(remove_files, added);
    if (!ops) return drop_snapshot(ops.error());
    if (auto p = tx.prepare_planned(std::move(*ops), added, on_disk); !p) return drop_snapshot(p.error());
    lap("moves planned");
    result.seconds_stage = seconds_since(stage_started);
    auto commit_started = Clock::now();
    auto committed = request.accept ? tx.apply() : tx.commit();
    if (!committed) return drop_snapshot(committed.error());
    auto stats = *committed;
    if (stats.durable)
        for (const auto& [entry, seen] : on_disk_after_commit) unpacked::mark_on_disk(entry, seen);
    result.seconds_commit = seconds_since(commit_started);
    lap("committed");
    const auto flush_ms = std::to_string(static_cast<long long>(stats.flush_seconds * 1000));
    const auto write_back_ms = std::to_string(static_cast<long long>(stats.write_back_seconds * 1000));
    reporter.debug(stats.by_file ? msg("install.debug.flushed_by_file", {{"files", std::to_string(stats.flushed_files)},
                                                                          {"on_disk", std::to_string(stats.on_disk_files)},
                                                                          {"dirs", std::to_string(stats.flushed_dirs)},
                                                                          {"ms", flush_ms}, {"write_back_ms", write_back_ms}})
                                 : msg("install.debug.flushed_fs", {{"ms", flush_ms}}));
    result.seconds_moving = stats.move_seconds;
    result.moves = stats.moved_in + stats.moved_out;
    for (auto& in : inputs)
        for (auto& w : in.plan.warnings) reporter.warn(w);
    if (request.accept) {
        auto accept_started = Clock::now();
        bool keep = request.accept(result);
        result.seconds_accept = seconds_since(accept_started);
        if (keep) ENVFIX_TRY_VOID(tx.finish());
        else ENVFIX_TRY_VOID(tx.revert());
        result.reverted = !keep;
        // Undone before it became final: the environment is the snapshot's, which history need not list.
        if (!keep && !result.snapshot.empty()) {
            forget_snapshot(env.root, result.snapshot);
            result.snapshot.clear();
        }
    }
    if (asking.valid() && asking.get()) result.ready_trees_wanted = true;
    result.seconds_total = seconds_since(started);
    // The crash tests size their ENVFIX_FAULT_AFTER range with this.
    reporter.debug(msg("install.fault_points", {{"count", std::to_string(fault_points_passed())}}));
    return result;
}

}  // namespace envfix::installer
