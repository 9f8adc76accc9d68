// Ready trees (ready_tree.hpp).
#include "ready_tree.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <set>
#include <unordered_map>

#include "envfix/common/file_lock.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/parallel_for.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "path_under.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"
#include "unpacked_store.hpp"

namespace envfix::installer::ready {

namespace stdfs = std::filesystem;

using unpacked::remove_tree;

namespace {

constexpr std::string_view kWantHead = "envfix-ready-want 1\n";
constexpr std::string_view kStateHead = "envfix-ready-tree 2\n";
constexpr const char* kWantSuffix = ".want";

template <class T>
bool parse_number(std::string_view s, T& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// A path under the area: '/'-separated parts, none empty, "." or "..", no tab, newline or NUL,
// no drive or backslash (Windows reads it as a separator), no part ending in a dot or a space
// (Windows drops those).
bool safe_rel(std::string_view rel) {
    if (rel.empty() || rel.front() == '/' || !plainly_normal(rel)) return false;
    if (rel.find_first_of(std::string_view("\t\n\r\\:\0", 6)) != std::string_view::npos) return false;
    for (size_t end = rel.find('/');; end = rel.find('/', end + 1)) {
        const size_t at = end == std::string_view::npos ? rel.size() : end;
        if (rel[at - 1] == '.' || rel[at - 1] == ' ') return false;
        if (end == std::string_view::npos) return true;
    }
}

// Folders under `dir` unchanged for `older_than` removed (a process killed while making or
// emptying a tree).
void sweep(const stdfs::path& dir, std::chrono::seconds older_than) {
    const auto now = stdfs::file_time_type::clock::now();
    std::error_code ec;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code tec;
        auto t = stdfs::last_write_time(it->path(), tec);
        if (!tec && now - t >= older_than) remove_tree(it->path());
    }
}

}  // namespace

std::string encode_want(const Want& want) {
    // Every install of a large wheel encodes its want (torch's: 12 000 rows): numbers by
    // to_chars into the one buffer.
    size_t n = kWantHead.size() + 100;
    for (const auto& f : want.files) n += f.rel.size() + 42;
    std::string out(n, '\0');
    char* p = out.data();
    auto put = [&](std::string_view v) { p = std::copy(v.begin(), v.end(), p); };
    auto num = [&](uint64_t v) { p = std::to_chars(p, out.data() + out.size(), v).ptr; };
    put(kWantHead);
    put("sha256 ");
    put(want.sha256);
    put("\nfiles ");
    num(want.entry_files);
    *p++ = '\n';
    for (const auto& f : want.files) {
        num(f.entry);
        *p++ = '\t';
        num(f.size);
        *p++ = '\t';
        put(f.rel);
        *p++ = '\n';
    }
    out.resize(static_cast<size_t>(p - out.data()));
    return out;
}

std::optional<Want> decode_want(std::string_view text) {
    if (!text.starts_with(kWantHead) || text.empty() || text.back() != '\n') return std::nullopt;
    text.remove_prefix(kWantHead.size());
    Want w;
    auto line = [&](std::string_view& out) {
        auto nl = text.find('\n');
        if (nl == std::string_view::npos) return false;
        out = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        return true;
    };
    std::string_view l;
    if (!line(l) || !l.starts_with("sha256 ") || !is_sha256_hex(l.substr(7))) return std::nullopt;
    w.sha256 = std::string(l.substr(7));
    if (!line(l) || !l.starts_with("files ") || !parse_number(l.substr(6), w.entry_files)) return std::nullopt;
    while (!text.empty()) {
        if (!line(l)) return std::nullopt;
        auto t1 = l.find('\t');
        auto t2 = t1 == std::string_view::npos ? t1 : l.find('\t', t1 + 1);
        if (t2 == std::string_view::npos) return std::nullopt;
        TreeFile f;
        if (!parse_number(l.substr(0, t1), f.entry) || !parse_number(l.substr(t1 + 1, t2 - t1 - 1), f.size)) return std::nullopt;
        f.rel = std::string(l.substr(t2 + 1));
        if (!safe_rel(f.rel)) return std::nullopt;
        w.files.push_back(std::move(f));
    }
    return w;
}

std::string tree_name(const std::string& sha256, std::string_view encoded) {
    // FNV-1a, 64 bits: it tells apart the layouts of one wheel (the name starts with its sha256),
    // not adversaries (a tree is trusted as its entry is). sha256 of torch's want cost 2-3 ms of
    // every warm install here.
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : encoded) h = (h ^ c) * 0x100000001b3ull;
    char hex[17];
    for (int i = 15; i >= 0; --i, h >>= 4) hex[i] = "0123456789abcdef"[h & 15];
    hex[16] = '\0';
    return sha256 + "-" + hex;
}

stdfs::path ready_dir(const stdfs::path& unpacked_root) { return unpacked::layout_dir(unpacked_root) / "ready"; }

bool ask(const stdfs::path& unpacked_root, const std::string& name, std::string_view encoded) {
    const auto dir = ready_dir(unpacked_root);
    const auto want = dir / (name + kWantSuffix);
    if (storeops::stat_path(want)) return true;
    if (storeops::stat_path(dir / name)) return false;
    std::error_code ec;
    stdfs::create_directories(dir, ec);
    return !ec && fs::write_file_atomic(want, encoded, fs::Sync::Cache).has_value();
}

std::string state_text(const std::string& entry_identity, int64_t on_disk_since_ns) {
    return std::string(kStateHead) + "entry " + entry_identity + "\non-disk " + std::to_string(on_disk_since_ns) + "\n";
}

stdfs::path new_holder(const stdfs::path& unpacked_root) { return ready_dir(unpacked_root) / "claimed" / unpacked::unique_name(); }

bool holds_only_its_files(const stdfs::path& tree, const Want& want, int64_t made_before_ns) {
    std::unordered_map<std::string, uint64_t> sizes;
    sizes.reserve(want.files.size());
    for (const auto& f : want.files) sizes.emplace(f.rel, f.size);
    // The folders listed level by level, each level's on several threads; then every file looked
    // at on several threads.
    std::vector<std::string> files, level{""};
    std::atomic<bool> odd{false};
    while (!level.empty() && !odd) {
        std::vector<std::vector<std::string>> below(level.size()), found(level.size());
        parallel_for(level.size(), [&](size_t i) {
            const auto& rel = level[i];
            auto listed = storeops::list_folder((rel.empty() ? tree : join_generic(tree, rel)).native());
            if (!listed) return odd.store(true);
            for (const auto& e : *listed) {
                std::string child = (rel.empty() ? "" : rel + "/") + generic_of(e.name);
                if (e.type == stdfs::file_type::directory) below[i].push_back(std::move(child));
                else if (e.type == stdfs::file_type::regular && sizes.count(child)) found[i].push_back(std::move(child));
                else odd.store(true);  // a link, another kind of file, a file no want names
            }
        });
        level.clear();
        for (size_t i = 0; i < below.size(); ++i) {
            for (auto& d : below[i]) level.push_back(std::move(d));
            for (auto& f : found[i]) files.push_back(std::move(f));
        }
    }
    if (odd) return false;
    constexpr size_t kChunk = 256;  // files of one folder together: each chunk opens its folders once
    parallel_for((files.size() + kChunk - 1) / kChunk, [&](size_t c) {
        storeops::FolderStats stats;
        for (size_t i = c * kChunk; i < std::min(files.size(), (c + 1) * kChunk) && !odd; ++i) {
            auto st = stats.stat(tree, files[i]);
            if (!st || !st->regular || st->size != sizes.at(files[i]) || st->mtime_ns > made_before_ns) odd.store(true);
        }
    }, 1);
    return !odd;
}

std::optional<Claimed> claim(const stdfs::path& unpacked_root, const std::string& name, const std::string& state, const stdfs::path& holder) {
    const auto dir = ready_dir(unpacked_root);
    std::error_code ec;
    if (!storeops::stat_path(dir / name)) return std::nullopt;
    // The install's own new folder (its time now, whatever the tree's; made once, by whichever
    // claim comes first), then the rename into it is the claim: of two installs, one finds the
    // tree gone.
    stdfs::create_directories(holder, ec);
    if (ec) return std::nullopt;
    Claimed c{holder / name, {}};
    stdfs::rename(dir / name, c.dir, ec);
    if (ec) return std::nullopt;
    c.tree = c.dir / "t";
    if (fs::read_file(c.dir / "state").value_or("") != state) {
        discard(c);
        return std::nullopt;
    }
    return c;
}

Expected<size_t> merge(const stdfs::path& from, const stdfs::path& into) {
    size_t renamed = 0;
    std::error_code ec;
    auto failed = [](const stdfs::path& p, const std::error_code& e) {
        return fail(fs::exit_code_for_errno(e.value()), "fs.write_failed", {{"path", p.string()}, {"reason", e.message()}});
    };
    std::vector<stdfs::directory_entry> children;
    for (stdfs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) children.push_back(*it);
    if (ec) return failed(from, ec);
    for (const auto& c : children) {
        const auto to = into / c.path().filename();
        auto there = storeops::stat_path(to);
        if (!there) {
            stdfs::rename(c.path(), to, ec);
            if (ec) return failed(to, ec);
            ++renamed;
            continue;
        }
        std::error_code tec;
        if (!there->directory || !c.is_directory(tec) || c.is_symlink(tec))
            return fail(ExitCode::Internal, "fs.write_failed", {{"path", to.string()}, {"reason", "already staged"}});
        ENVFIX_TRY(auto n, merge(c.path(), to));
        renamed += n;
    }
    return renamed;
}

namespace {
// Into ready/done/ by one rename (`ready` is the ready folder), else removed here.
void move_to_done(const stdfs::path& p, const stdfs::path& ready) {
    std::error_code ec;
    stdfs::rename(p, ready / "done" / unpacked::unique_name(), ec);
    if (ec) {
        stdfs::create_directories(ready / "done", ec);
        stdfs::rename(p, ready / "done" / unpacked::unique_name(), ec);
    }
    if (ec) remove_tree(p);
}
}  // namespace

// ready/claimed/<holder>/<name>
void discard(const Claimed& claimed) { move_to_done(claimed.dir, claimed.dir.parent_path().parent_path().parent_path()); }

// ready/claimed/<holder>
void release(const stdfs::path& holder) {
    if (storeops::stat_path(holder)) move_to_done(holder, holder.parent_path().parent_path());
}

void drop_trees(const stdfs::path& unpacked_root, const std::string& sha256) {
    const auto dir = ready_dir(unpacked_root);
    const std::string prefix = sha256 + "-";
    std::vector<stdfs::path> gone;
    std::error_code ec;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().starts_with(prefix)) gone.push_back(it->path());
    for (const auto& p : gone) {
        // A tree out of sight at once (renamed as an install claims it), then removed.
        if (p.extension() != kWantSuffix) {
            // Out of sight at once, as a claim moves it, then removed.
            const auto aside = dir / "claimed" / unpacked::unique_name();
            std::error_code rec;
            stdfs::create_directories(aside.parent_path(), rec);
            stdfs::rename(p, aside, rec);
            remove_tree(rec ? p : aside);
        } else {
            remove_tree(p);
        }
    }
}

}  // namespace envfix::installer::ready

namespace envfix::installer {

ReadyTreesMade make_ready_trees(const std::filesystem::path& unpacked_root) {
    namespace stdfs = std::filesystem;
    using namespace ready;
    const auto started = std::chrono::steady_clock::now();
    ReadyTreesMade out;
    const auto dir = ready_dir(unpacked_root);
    std::error_code ec;
    stdfs::create_directories(dir, ec);
    auto lock = fs::FileLock::acquire(dir / ".lock", {});
    if (!lock) {
        out.busy = true;
        return out;
    }
    sweep(dir / "claimed", std::chrono::hours(1));
    sweep(dir / "tmp", std::chrono::hours(1));
    sweep(dir / "done", std::chrono::seconds(0));  // no install uses what is there
    std::vector<stdfs::path> wants;
    for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == kWantSuffix) wants.push_back(it->path());
    std::sort(wants.begin(), wants.end());
    for (const auto& want_file : wants) {
        const std::string name = want_file.stem().string();
        auto forget = [&] { remove_tree(want_file); };
        if (storeops::stat_path(dir / name)) {
            forget();
            continue;
        }
        auto text = fs::read_file(want_file);
        auto want = text ? decode_want(*text) : std::nullopt;
        if (!want || tree_name(want->sha256, *text) != name) {
            forget();
            ++out.skipped;
            continue;
        }
        auto entry = unpacked::find_entry(unpacked_root, want->sha256, want->entry_files);
        auto since = entry ? unpacked::entry_on_disk_since(*entry) : std::nullopt;
        if (!entry || !since) {
            // Gone: the next install asks again. Not yet on the disk: left for a later maker.
            if (!entry) forget();
            ++out.skipped;
            continue;
        }
        const auto tmp = dir / "tmp" / (name.substr(0, 16) + "-" + unpacked::unique_name());
        const auto tree = tmp / "t";
        stdfs::create_directories(tree, ec);
        if (ec) {
            ++out.skipped;
            continue;
        }
        // Folders first, each after its parent (a parent sorts before its children).
        std::set<std::string> folders;
        for (const auto& f : want->files)
            for (size_t at = f.rel.find('/'); at != std::string::npos; at = f.rel.find('/', at + 1)) folders.insert(f.rel.substr(0, at));
        bool ok = true;
        for (const auto& f : folders) {
            stdfs::create_directory(join_generic(tree, f), ec);
            if (ec) {
                ok = false;
                break;
            }
        }
        // Each file the entry's, the size its RECORD gives, unchanged since the entry was marked
        // on the disk; links from one filesystem to itself (the cache), on several threads.
        std::atomic<bool> good{ok};
        if (ok)
            tx::parallel_for(want->files.size(), [&](size_t k) {
                if (!good.load(std::memory_order_relaxed)) return;
                const auto& f = want->files[k];
                const auto from = unpacked::entry_file(*entry, f.entry);
                auto st = storeops::stat_path(from);
                if (!st || !st->regular || st->size != f.size || st->mtime_ns > *since || !storeops::hard_link(from, join_generic(tree, f.rel)))
                    good = false;
            }, 256);
        const auto entry_id = fs::identity(*entry);
        if (!good || !entry_id || !fs::write_file_atomic(tmp / "state", state_text(entry_id->to_string(), *since), fs::Sync::Cache)) {
            // A file changed (an edit in place through an environment's link): asked for again
            // by the next install, and made once its entry is whole again.
            remove_tree(tmp);
            forget();
            ++out.skipped;
            continue;
        }
        stdfs::rename(tmp, dir / name, ec);
        if (ec) {
            remove_tree(tmp);  // another maker was quicker
            continue;
        }
        forget();
        ++out.trees;
        out.files += want->files.size();
        out.folders += folders.size();
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return out;
}

}  // namespace envfix::installer
