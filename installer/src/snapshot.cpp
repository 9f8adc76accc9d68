// Taking, listing and finding snapshots (snapshot.hpp).
#include "envfix/installer/snapshot.hpp"
#include "envfix/installer/uninstall.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <unordered_set>
#include <unordered_map>

#include "envfix/common/beneath.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/wheel_plan.hpp"
#include "envfix/standards/installed.hpp"
#include "path_under.hpp"
#include "record_hash.hpp"
#include "snapshot_internal.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

struct Identity {
    uint64_t device = 0, inode = 0, size = 0;
    int64_t mtime_ns = 0;
    std::string sha256;
};
using Identities = std::unordered_map<std::string, Identity>;  // relative path -> identity

constexpr int kIdentitiesVersion = 1;
// Read back from an environment that may come from elsewhere: bounded before they are read. A
// snapshot of the torch stack is 2 MiB, its header a few hundred bytes.
constexpr uint64_t kMaxSnapshotBytes = uint64_t{512} << 20;
constexpr size_t kMaxHeadBytes = size_t{1} << 20;

stdfs::path identities_file(const stdfs::path& root) { return snapshot_store_dir(root) / "identities"; }

// A damaged or foreign file only costs hashing again: it is read leniently.
Identities load_identities(const stdfs::path& root) {
    Identities out;
    auto text = fs::read_file(identities_file(root), kMaxSnapshotBytes);
    if (!text) return out;
    std::string_view t = *text;
    size_t eol = t.find('\n');
    if (eol == std::string_view::npos || t.substr(0, eol) != "{\"version\":" + std::to_string(kIdentitiesVersion) + "}") return out;
    for (size_t pos = eol + 1; pos < t.size();) {
        size_t end = t.find('\n', pos);
        if (end == std::string_view::npos) break;
        auto line = t.substr(pos, end - pos);
        pos = end + 1;
        Identity id;
        std::string_view fields[6];
        size_t start = 0;
        bool ok = true;
        for (int k = 0; k < 6; ++k) {
            size_t sp = k == 5 ? line.size() : line.find(' ', start);
            if (sp == std::string_view::npos) {
                ok = false;
                break;
            }
            fields[k] = line.substr(start, sp - start);
            start = sp + 1;
        }
        if (!ok) continue;
        auto num = [](std::string_view f, auto& v) { return std::from_chars(f.data(), f.data() + f.size(), v).ec == std::errc(); };
        if (!num(fields[0], id.device) || !num(fields[1], id.inode) || !num(fields[2], id.size) || !num(fields[3], id.mtime_ns) ||
            !is_sha256_hex(fields[4]))
            continue;
        id.sha256 = std::string(fields[4]);
        auto path = snap::decode_path(fields[5]);
        if (path) out[*path] = std::move(id);
    }
    return out;
}

// One line per file: device inode size mtime_ns sha256 path.
void append_identity(std::string& out, const std::string& path, const Identity& id) {
    for (uint64_t v : {id.device, id.inode, id.size}) {
        snap::append_number(out, v, 10);
        out += ' ';
    }
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, id.mtime_ns).ptr);
    out += ' ';
    out += id.sha256;
    out += ' ';
    snap::append_encoded_path(out, path);
    out += '\n';
}

std::string identities_head() { return "{\"version\":" + std::to_string(kIdentitiesVersion) + "}\n"; }

Expected<void> write_identities(const stdfs::path& root, const std::string& text) {
    std::error_code ec;
    stdfs::create_directories(identities_file(root).parent_path(), ec);
    // A cache (read leniently: a file a crash lost or cut short only costs hashing again), so not
    // fsynced: in an install that fsync committed ext4's journal while torch's libraries were
    // being written back, and waited for them.
    return fs::write_file_atomic(identities_file(root), text, fs::Sync::Cache);
}

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
#ifdef _WIN32
    gmtime_s(&tm, &t);
#else
    gmtime_r(&t, &tm);
#endif
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// One file to record: where it is, and what its RECORD says.
struct Candidate {
    std::string rel;
    stdfs::path::string_type abs;
    std::string record_digest;  // the RECORD's sha256, base64 as written: decoded only where trusted
    std::optional<uint64_t> record_size;
    int64_t record_mtime = 0;  // the RECORD file's mtime, for files of envfix installs
    bool trust_record = false;
};

struct Outcome {
    bool present = false;
    bool known = false;  // the identity remembered last time: its bytes are in the store
    SnapshotFile file;
    Identity identity;
    bool hashed = false;
    std::optional<Error> error;
};

// Stores `abs` (known to hold `sha`) as an object unless the store has it.
Expected<std::pair<bool, bool>> store_object(const stdfs::path& store, const stdfs::path& abs, const std::string& sha, uint32_t mode) {
    auto obj = snap::object_path(store, sha);
    if (storeops::stat_path(obj)) return std::pair{false, false};
    std::error_code ec;
    stdfs::create_directories(obj.parent_path(), ec);
    bool cross = false;
    auto linked = storeops::hard_link(abs, obj, &cross);
    if (linked) return std::pair{true, false};
    if (storeops::stat_path(obj)) return std::pair{false, false};  // another thread stored the same bytes
    if (!cross) return unexpected(linked.error());
    auto tmp = fs::temp_path_beside(obj);
    ENVFIX_TRY_VOID(storeops::copy_file(abs, tmp, mode));
    stdfs::rename(tmp, obj, ec);
    if (ec) {
        stdfs::remove(tmp, ec);
        if (storeops::stat_path(obj)) return std::pair{false, false};
        return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", obj.string()}, {"reason", ec.message()}});
    }
    return std::pair{true, true};
}

// The snapshot files in `dir` (<id>.snap) by the number their id starts with (0: none), in order.
std::vector<std::pair<size_t, std::string>> numbered_snapshots(const stdfs::path& dir) {
    std::vector<std::pair<size_t, std::string>> found;
    std::error_code ec;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        if (!name.ends_with(".snap")) continue;
        name.resize(name.size() - 5);
        size_t n = 0;
        std::from_chars(name.data(), name.data() + name.size(), n);
        found.emplace_back(n, std::move(name));
    }
    std::sort(found.begin(), found.end());
    return found;
}

size_t next_id(const stdfs::path& dir) {
    const auto found = numbered_snapshots(dir);
    return (found.empty() ? 0 : found.back().first) + 1;
}

}  // namespace

stdfs::path snapshots_dir(const stdfs::path& env_root) { return state_dir(env_root) / "snapshots"; }
stdfs::path snapshot_store_dir(const stdfs::path& env_root) { return state_dir(env_root) / "store" / "v1"; }

namespace snap {

// The environment as it is now; with `store`, its files' bytes kept in the store too.
Expected<Snapshot> capture(const probe::Environment& env, Reporter& reporter, SnapshotStats* stats, std::vector<Seen>& out_seen) {
    auto started = Clock::now();
    const stdfs::path root = env.root.lexically_normal();
    // The identities remembered last time (a torch stack's 17 000 lines) read while the RECORDs are.
    std::future<Identities> remembered;
    try {
        remembered = std::async(std::launch::async, [&root] { return load_identities(root); });
    } catch (const std::system_error&) {  // no thread to be had: read below
    }
    std::vector<stdfs::path> scan = env.site_packages;
    if (auto scheme = install_scheme(env)) {
        scan.push_back(scheme->purelib);
        scan.push_back(scheme->platlib);
    }
    std::sort(scan.begin(), scan.end());
    scan.erase(std::unique(scan.begin(), scan.end()), scan.end());
    ENVFIX_TRY(auto installed, standards::read_installed(scan, {.headers_only = true, .egg_info = false}));

    Snapshot s;
    s.root = root.string();
    // Each distribution's RECORD read and its rows made into candidates on several threads
    // (torch's 12 000 rows, one distribution after another, were most of a rollback's reading of
    // the present); then the first distribution to list a file has it, in their order.
    std::vector<std::optional<Expected<std::vector<Candidate>>>> per_dist(installed.dists.size());
    tx::parallel_for(installed.dists.size(), [&](size_t i) {
        const auto& d = installed.dists[i];
        if (!d.has_record) return;
        auto rows = standards::read_record(d);
        if (!rows) {
            per_dist[i] = unexpected(std::move(rows).error());
            return;
        }
        int64_t record_mtime = 0;
        const bool envfix_made = d.installer == "envfix";
        if (envfix_made)
            if (auto st = storeops::stat_path(d.dist_info / "RECORD")) record_mtime = st->mtime_ns;
        std::vector<Candidate> mine;
        mine.reserve(rows->size());
        for (auto& row : *rows) {
            auto abs = record_row_text(d.site_packages, row.path);
            auto key = relative_generic_text(abs, root);  // 17 000 rows: string work, not path walks
            if (key.empty() || key.starts_with(".envfix/")) continue;
            mine.push_back({std::move(key), std::move(abs), row.hash_algorithm == "sha256" ? std::move(row.hash_digest) : std::string(),
                            row.size, record_mtime, envfix_made});
        }
        per_dist[i] = std::move(mine);
    }, 1);
    std::vector<Candidate> cands;
    std::unordered_set<std::string> listed, shared;  // shared: listed by two distributions
    // A RECORD row reached through a link that leads outside (planted in an environment made
    // elsewhere) is no file of the environment: never read, hashed or linked into the store.
    fs::InsideRoot inside(root);
    for (size_t i = 0; i < installed.dists.size(); ++i) {
        const auto& d = installed.dists[i];
        s.dists.push_back({d.name, d.version, d.dist_info.lexically_normal().lexically_relative(root).generic_string()});
        if (!d.has_record) {
            reporter.warn(msg("snapshot.no_record", {{"name", d.name}, {"version", d.version}, {"path", d.dist_info.string()}}));
            continue;
        }
        if (!*per_dist[i]) return unexpected(std::move(*per_dist[i]).error());
        for (auto& c : **per_dist[i]) {
            if (!inside.holds(c.abs)) continue;
            if (!listed.insert(c.rel).second) {
                shared.insert(std::move(c.rel));
                continue;
            }
            cands.push_back(std::move(c));
        }
    }
    per_dist = {};
    std::sort(s.dists.begin(), s.dists.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    // A file two distributions list may hold either one's bytes, whatever its mtime says (a link
    // from the unpacked cache keeps the mtime of its unpacking): hashed, not taken from a RECORD.
    if (!shared.empty())
        for (auto& c : cands)
            if (shared.count(c.rel)) c.trust_record = false;

    auto ids = remembered.valid() ? remembered.get() : load_identities(root);
    std::vector<Outcome> outs(cands.size());
    tx::parallel_for(cands.size(), [&](size_t i) {
        const auto& c = cands[i];
        auto& o = outs[i];
        auto st = storeops::stat_text(c.abs);
        if (!st || !st->regular) return;  // listed but gone, or not a file: not part of the state
        o.present = true;
        o.file.path = c.rel;
        o.file.size = st->size;
        o.file.mode = st->mode & 0777;
        o.identity = {st->device, st->inode, st->size, st->mtime_ns, ""};
        auto it = ids.find(c.rel);
        if (it != ids.end() && it->second.device == st->device && it->second.inode == st->inode && it->second.size == st->size &&
            it->second.mtime_ns == st->mtime_ns) {
            o.file.sha256 = it->second.sha256;
            o.known = true;
        } else if (auto sha = c.trust_record && c.record_size == st->size && st->mtime_ns <= c.record_mtime ? record_hex(c.record_digest)
                                                                                                           : std::nullopt) {
            o.file.sha256 = std::move(*sha);
        } else {
            auto h = sha256_file_hex(stdfs::path(c.abs));
            if (!h) {
                o.error = h.error();
                return;
            }
            o.file.sha256 = *h;
            o.hashed = true;
        }
        o.identity.sha256 = o.file.sha256;
    });
    SnapshotStats st;
    std::vector<Outcome*> present;
    for (auto& o : outs) {
        if (o.error) return unexpected(*o.error);
        if (!o.present) continue;
        st.hashed += o.hashed;
        present.push_back(&o);
    }
    std::sort(present.begin(), present.end(), [](const Outcome* a, const Outcome* b) { return a->file.path < b->file.path; });
    out_seen.clear();
    for (auto* o : present) {
        out_seen.push_back({o->identity.device, o->identity.inode, o->identity.size, o->identity.mtime_ns, o->known});
        s.files.push_back(std::move(o->file));
    }
    st.files = s.files.size();
    st.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    if (stats) *stats = st;
    return s;
}

namespace {

Expected<void> write_snapshot(const stdfs::path& root, Snapshot& s, fs::Sync sync, const std::string& files_text) {
    auto dir = snapshots_dir(root);
    std::error_code ec;
    stdfs::create_directories(dir, ec);
    s.id = std::to_string(next_id(dir));
    s.created = utc_now();
    return fs::write_file_atomic(dir / (s.id + ".snap"), snap::snapshot_head_text(s) + files_text, sync);
}

}  // namespace

Expected<void> check_store(const stdfs::path& env_root) {
    ENVFIX_TRY_VOID(check_state_dir(env_root));
    const auto store = snapshot_store_dir(env_root);
    std::error_code ec;
    for (stdfs::directory_iterator it(store, ec), end; !ec && it != end; it.increment(ec)) {
        const auto type = it->symlink_status(ec).type();
        if (type == stdfs::file_type::symlink || (it->path().filename().native().size() == 2 && type != stdfs::file_type::directory))
            return fail(ExitCode::UnsafeState, "env.state_link", {{"path", it->path().string()}});
    }
    return {};
}

Expected<void> store_captured(const probe::Environment& env, const Snapshot& s, const std::vector<Seen>& seen, SnapshotStats* stats,
                              std::vector<stdfs::path>* added) {
    const stdfs::path root = env.root.lexically_normal();
    const stdfs::path store_dir = snapshot_store_dir(root);
    ENVFIX_TRY_VOID(check_store(root));
    struct Stored {
        bool stored = false, copied = false;
        std::optional<Error> error;
    };
    std::vector<Stored> outs(s.files.size());
    tx::parallel_for(s.files.size(), [&](size_t i) {
        const auto& f = s.files[i];
        if (seen[i].stored) return;  // a file it knew is stored already
        auto r = store_object(store_dir, root / stdfs::path(f.path), f.sha256, f.mode);
        if (!r) {
            outs[i].error = r.error();
            return;
        }
        outs[i].stored = r->first;
        outs[i].copied = r->second;
    });
    std::optional<Error> first;
    for (size_t i = 0; i < outs.size(); ++i) {
        if (outs[i].error && !first) first = outs[i].error;
        if (added && outs[i].stored) added->push_back(object_path(store_dir, s.files[i].sha256));
        if (stats) {
            stats->stored += outs[i].stored;
            stats->copied += outs[i].copied;
        }
    }
    if (first) return unexpected(std::move(*first));
    return {};
}

void unstore(const probe::Environment& env, const std::vector<stdfs::path>& added, bool forget_identities) {
    std::error_code ec;
    // Identities that may name what goes: forgotten, so the next snapshot looks at every file.
    if (forget_identities && !added.empty()) stdfs::remove(identities_file(env.root.lexically_normal()), ec);
    std::set<stdfs::path> parents;
    for (const auto& p : added) {
        stdfs::remove(p, ec);
        parents.insert(p.parent_path());
    }
    // Folders left empty, up to the state folder: each is removed only when empty.
    const stdfs::path root = env.root.lexically_normal();
    for (const auto& d : parents) stdfs::remove(d, ec);
    const stdfs::path store = snapshot_store_dir(root);
    stdfs::remove(store, ec);
    stdfs::remove(store.parent_path(), ec);
    stdfs::remove(state_dir(root), ec);
}

KeptTexts kept_texts(const Snapshot& s, const std::vector<Seen>& seen) {
    KeptTexts t;
    // Their identities remembered (those capture() saw: the same lock is held, so no file is
    // asked again), so that the next snapshot knows them stored.
    t.identities = identities_head();
    t.identities.reserve(s.files.size() * 140);
    for (size_t i = 0; i < s.files.size(); ++i) {
        const auto& k = seen[i];
        append_identity(t.identities, s.files[i].path, {k.device, k.inode, k.size, k.mtime_ns, s.files[i].sha256});
    }
    t.files = snapshot_files_text(s);
    return t;
}

Expected<void> keep_captured(const probe::Environment& env, Snapshot& s, const std::vector<Seen>& seen, std::string reason,
                             std::string name, SnapshotStats* stats, bool stored, fs::Sync sync, const KeptTexts* texts) {
    auto started = Clock::now();
    if (!stored) ENVFIX_TRY_VOID(store_captured(env, s, seen, stats));
    KeptTexts made;
    if (!texts) {
        made = kept_texts(s, seen);
        texts = &made;
    }
    ENVFIX_TRY_VOID(write_identities(env.root.lexically_normal(), texts->identities));
    s.reason = std::move(reason);
    s.name = std::move(name);
    ENVFIX_TRY_VOID(write_snapshot(env.root.lexically_normal(), s, sync, texts->files));
    if (stats) stats->seconds += std::chrono::duration<double>(Clock::now() - started).count();
    return {};
}

StoredAhead::~StoredAhead() {
    if (storing_.valid()) storing_.wait();
    if (!kept_ && (started_ || keeping_)) unstore(env_, added_, keeping_);
}

void StoredAhead::start(const Snapshot& s, const std::vector<Seen>& seen) {
    started_ = true;
    try {
        storing_ = std::async(std::launch::async, [this, &s, &seen] {
            const auto began = Clock::now();
            auto r = store_captured(env_, s, seen, &stats_, &added_);
            if (r) texts_ = kept_texts(s, seen);
            stats_.seconds = std::chrono::duration<double>(Clock::now() - began).count();
            return r;
        });
    } catch (const std::system_error&) {  // no thread left: stored when it is kept, in turn
    }
}

Expected<void> StoredAhead::keep(Snapshot& s, const std::vector<Seen>& seen, std::string reason, SnapshotStats& stats, fs::Sync sync) {
    const bool stored = storing_.valid();
    if (stored) {
        ENVFIX_TRY_VOID(storing_.get());
        stats.stored += stats_.stored;
        stats.copied += stats_.copied;
        stats.seconds += stats_.seconds;
    }
    keeping_ = true;
    ENVFIX_TRY_VOID(keep_captured(env_, s, seen, std::move(reason), "", &stats, stored, sync, stored ? &texts_ : nullptr));
    kept_ = true;
    return {};
}

}  // namespace snap

Expected<Snapshot> take_snapshot(const probe::Environment& env, std::string reason, std::string name, Reporter& reporter,
                                 SnapshotStats* stats) {
    std::vector<snap::Seen> seen;
    ENVFIX_TRY(auto s, snap::capture(env, reporter, stats, seen));
    ENVFIX_TRY_VOID(snap::keep_captured(env, s, seen, std::move(reason), std::move(name), stats));
    return s;
}

stdfs::path snap::snapshot_file(const stdfs::path& env_root, const std::string& id) {
    return snapshots_dir(env_root.lexically_normal()) / (id + ".snap");
}

void forget_snapshot(const stdfs::path& env_root, const std::string& id) {
    std::error_code ec;
    stdfs::remove(snap::snapshot_file(env_root, id), ec);
}

std::vector<std::string> snapshot_ids(const stdfs::path& env_root) {
    std::vector<std::string> out;
    for (auto& [n, id] : numbered_snapshots(snapshots_dir(env_root.lexically_normal()))) out.push_back(std::move(id));
    return out;
}

Expected<Snapshot> read_snapshot(const stdfs::path& env_root, const std::string& id) {
    const auto file = snap::snapshot_file(env_root, id);
    ENVFIX_TRY(auto text, fs::read_file(file, kMaxSnapshotBytes));
    return parse_snapshot(text, file.string());
}

std::vector<SnapshotHead> list_snapshot_heads(const stdfs::path& env_root, Reporter& reporter) {
    std::vector<SnapshotHead> out;
    for (const auto& id : snapshot_ids(env_root)) {
        const auto file = snap::snapshot_file(env_root, id);
        std::ifstream in(file, std::ios::binary);
        std::string line;
        Expected<SnapshotHead> h =
            fail(ExitCode::BadInput, "snapshot.invalid", {{"path", file.string()}, {"reason", render(msg("reason.no_header"))}});
        bool ended = false;  // the line ended: whole
        for (char c; !ended && line.size() <= kMaxHeadBytes && in.get(c);) {
            if (c == '\n') ended = true;
            else line += c;
        }
        if (!in.is_open())
            h = fail(ExitCode::BadInput, "fs.read_failed", {{"path", file.string()}, {"reason", render(msg("reason.cannot_open"))}});
        else if (ended) h = parse_snapshot_head(line, file.string());
        if (!h) {
            reporter.warn(h.error().message);
            continue;
        }
        h->file_id = id;
        out.push_back(std::move(*h));
    }
    return out;
}

std::vector<Snapshot> list_snapshots(const stdfs::path& env_root, Reporter& reporter) {
    std::vector<Snapshot> out;
    for (const auto& id : snapshot_ids(env_root)) {
        auto s = read_snapshot(env_root, id);
        if (!s) reporter.warn(s.error().message);
        else out.push_back(std::move(*s));
    }
    return out;
}

Expected<Snapshot> find_snapshot(const stdfs::path& env_root, std::string_view id_or_name, Reporter& reporter) {
    // An id (digits) names its file: read alone (rollback to one of many snapshots reads one).
    const bool digits = !id_or_name.empty() && std::all_of(id_or_name.begin(), id_or_name.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits && stdfs::exists(snap::snapshot_file(env_root, std::string(id_or_name))))
        if (auto s = read_snapshot(env_root, std::string(id_or_name)); s && s->id == id_or_name) return s;
    // Else by the headers alone (an id, then a name), newest first; the one found read whole
    // (damage further in is its error: BadInput "snapshot.invalid").
    auto heads = list_snapshot_heads(env_root, reporter);
    const SnapshotHead* found = nullptr;
    for (auto it = heads.rbegin(); it != heads.rend() && !found; ++it)
        if (it->id == id_or_name) found = &*it;
    for (auto it = heads.rbegin(); it != heads.rend() && !found; ++it)
        if (!it->name.empty() && it->name == id_or_name) found = &*it;
    if (found) return read_snapshot(env_root, found->file_id);
    return fail(ExitCode::NoSnapshot, "snapshot.not_found", {{"id", std::string(id_or_name)}, {"path", env_root.string()}});
}

}  // namespace envfix::installer
