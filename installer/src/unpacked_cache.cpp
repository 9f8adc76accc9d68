// The cache of unpacked wheels (unpacked_cache.hpp, unpacked_store.hpp).
#include <algorithm>
#include <atomic>
#include <charconv>
#include <optional>
#include <random>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "file_ops.hpp"
#include "path_under.hpp"
#include "ready_tree.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"
#include "unpacked_store.hpp"
#include "wheel_directory.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;
using unpacked::remove_tree;

namespace {

// v2: an entry's files spread over kShards folders (v1 had them in one folder, f/).
constexpr const char* kLayout = "v2";
constexpr const char* kOldLayouts[] = {"v1"};
// Creating a file takes its folder's lock: in one folder, the 32 threads staging torch's 11 800
// files waited on each other (on the H200, a cold install's torch took 1.7 s for them after its
// large files, against 0.3 s in a switch, and the install spent more time in the kernel than
// inflating). Entry i goes to folder i % kShards, so the threads mostly take different locks.
constexpr size_t kShards = 16;
constexpr const char* kMarker = "ENVFIX-UNPACKED";
constexpr const char* kMarkerHead = "envfix-unpacked 1";
constexpr const char* kKeyHead = "envfix-wheel-key 1";
constexpr const char* kOnDisk = "ENVFIX-ON-DISK";
constexpr const char* kOnDiskText = "envfix-on-disk 1\n";

std::string marker_text(const std::string& sha256, size_t files) {
    return std::string(kMarkerHead) + "\nsha256 " + sha256 + "\nfiles " + std::to_string(files) + "\n";
}

// The marker's file count, when it is a version-1 marker for this hash.
std::optional<size_t> read_marker(const stdfs::path& entry, const std::string& sha256) {
    auto text = fs::read_file(entry / kMarker);
    if (!text) return std::nullopt;
    auto lines = str::split(*text, '\n');
    if (lines.size() < 3 || lines[0] != kMarkerHead || lines[1] != "sha256 " + sha256 || !lines[2].starts_with("files "))
        return std::nullopt;
    size_t n = 0;
    auto num = std::string_view(lines[2]).substr(6);
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec != std::errc() || p != num.data() + num.size()) return std::nullopt;
    return n;
}

stdfs::path key_file(const stdfs::path& root, const stdfs::path& wheel) {
    std::error_code ec;
    auto abs = stdfs::absolute(wheel, ec).lexically_normal();
    // The native bytes: Windows paths are UTF-16 and need not fit the ANSI code page.
    const auto& n = abs.native();
    auto bytes = std::string_view(reinterpret_cast<const char*>(n.data()), n.size() * sizeof(n[0]));
    return root / kLayout / "keys" / sha256_hex(bytes).substr(0, 32);
}

std::string stat_line(const storeops::FileStat& s) {
    return std::to_string(s.device) + " " + std::to_string(s.inode) + " " + std::to_string(s.size) + " " + std::to_string(s.mtime_ns);
}

// The newest write time of `first` and of those of `also` that exist; none where `first` does not.
std::optional<stdfs::file_time_type> newest_write(const stdfs::path& first, const std::vector<stdfs::path>& also) {
    std::error_code ec;
    auto t = stdfs::last_write_time(first, ec);
    if (ec) return std::nullopt;
    for (const auto& p : also)
        if (auto x = stdfs::last_write_time(p, ec); !ec && x > t) t = x;
    return t;
}

// When an older layout's tree last changed where an envfix of that layout writes while it works:
// the tree (entries sealed or dropped), keys/, tmp/ and each entry being made there (v1: its f/).
std::optional<stdfs::file_time_type> last_change(const stdfs::path& tree) {
    std::vector<stdfs::path> also{tree / "keys", tree / "tmp"};
    std::error_code ec;
    for (stdfs::directory_iterator it(tree / "tmp", ec), end; !ec && it != end; it.increment(ec)) {
        also.push_back(it->path());
        also.push_back(it->path() / "f");
    }
    return newest_write(tree, also);
}

}  // namespace

stdfs::path unpacked_cache_root() { return fs::cache_dir() / "unpacked"; }

std::vector<UnpackedEntry> list_unpacked(const stdfs::path& root) {
    std::vector<UnpackedEntry> out;
    std::error_code ec;
    for (stdfs::directory_iterator it(root / kLayout, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        if (!is_sha256_hex(name) || !read_marker(it->path(), name)) continue;
        UnpackedEntry e{it->path(), name, 0, 0};
        std::error_code fec;
        for (stdfs::recursive_directory_iterator f(it->path() / "f", fec), fend; !fec && f != fend; f.increment(fec)) {
            auto st = storeops::stat_path(f->path());
            if (!st || !st->regular) continue;
            e.files++;
            e.bytes += st->size;
        }
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.sha256 < b.sha256; });
    return out;
}

Expected<CleanResult> clean_unpacked_cache(const stdfs::path& root) {
    CleanResult r;
    // This layout's tree and those an older envfix left.
    std::vector<stdfs::path> trees{root / kLayout};
    for (const char* old : kOldLayouts) trees.push_back(root / old);
    for (const auto& tree : trees) {
        std::error_code ec;
        for (stdfs::recursive_directory_iterator it(tree, ec), end; !ec && it != end; it.increment(ec)) {
            auto st = storeops::stat_path(it->path());
            if (!st || !st->regular) continue;
            r.files++;
            // A file still linked into an environment frees nothing.
            if (st->links <= 1) r.bytes += st->size;
        }
        ec.clear();
        stdfs::remove_all(tree, ec);
        if (ec) return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", tree.string()}, {"reason", ec.message()}});
    }
    return r;
}

namespace unpacked {

void remove_tree(const stdfs::path& p) {
    std::error_code ec;
    stdfs::remove_all(p, ec);
}

std::string unique_name() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    uint64_t v = rng();
    return to_hex(reinterpret_cast<const uint8_t*>(&v), sizeof v);
}

stdfs::path layout_dir(const stdfs::path& root) { return root / kLayout; }

std::optional<std::string> known_sha256(const stdfs::path& root, const WheelFile& wheel) { return known_sha256(root, wheel.path); }

std::optional<std::string> known_sha256(const stdfs::path& root, const stdfs::path& wheel_file) {
    // wheels/v1/sha256/<xx>/<sha256>/<file>: accepted there only after its hash was checked.
    std::error_code ec;
    auto abs = stdfs::absolute(wheel_file, ec).lexically_normal();
    auto dir = abs.parent_path();
    auto sha = dir.filename().string();
    auto cache = stdfs::absolute(wheel_cache_root(), ec).lexically_normal() / "v1" / "sha256";
    if (is_sha256_hex(sha) && dir.parent_path().filename().string() == sha.substr(0, 2) && dir.parent_path().parent_path() == cache)
        return sha;
    auto st = storeops::stat_path(wheel_file);
    auto text = fs::read_file(key_file(root, wheel_file));
    if (!st || !text) return std::nullopt;
    auto lines = str::split(*text, '\n');
    if (lines.size() < 3 || lines[0] != kKeyHead || lines[1] != stat_line(*st) || !is_sha256_hex(lines[2])) return std::nullopt;
    return std::string(lines[2]);
}

namespace {
stdfs::path directory_file(const stdfs::path& root, const std::string& sha256) { return root / kLayout / "dirs" / sha256; }
}  // namespace

std::optional<WheelFile> load_directory(const stdfs::path& root, const std::string& sha256, const stdfs::path& wheel_file) {
    if (!is_sha256_hex(sha256)) return std::nullopt;
    // Mapped, not read into memory made for it: torch's is 2.7 MB, decoded once into the wheel's
    // own lists (a copy into fresh pages was a fault and a copy per 4 KiB page).
    auto mapped = fs::MappedFile::open(directory_file(root, sha256));
    if (!mapped) return std::nullopt;
    return decode_wheel_directory(mapped->bytes(), sha256, wheel_file);
}

void keep_directory(const stdfs::path& root, const std::string& sha256, const WheelFile& wheel) {
    if (!is_sha256_hex(sha256) || wheel.metadata_text.empty()) return;
    auto path = directory_file(root, sha256);
    std::error_code ec;
    stdfs::create_directories(path.parent_path(), ec);
    (void)fs::write_file_atomic(path, encode_wheel_directory(wheel, wheel.metadata_text, sha256), fs::Sync::Cache);
}

void remember_sha256(const stdfs::path& root, const WheelFile& wheel, const std::string& sha256) {
    auto st = storeops::stat_path(wheel.path);
    if (!st || !is_sha256_hex(sha256)) return;
    auto key = key_file(root, wheel.path);
    std::error_code ec;
    stdfs::create_directories(key.parent_path(), ec);
    (void)fs::write_file_atomic(key, std::string(kKeyHead) + "\n" + stat_line(*st) + "\n" + sha256 + "\n", fs::Sync::Cache);
}

std::optional<stdfs::path> find_entry(const stdfs::path& root, const std::string& sha256, size_t files) {
    if (!is_sha256_hex(sha256)) return std::nullopt;
    auto entry = root / kLayout / sha256;
    auto n = read_marker(entry, sha256);
    if (!n || *n != files) return std::nullopt;
    return entry;
}

std::optional<int64_t> entry_on_disk_since(const stdfs::path& entry) {
    const auto flag = entry / kOnDisk;
    auto id = fs::identity(flag);
    if (!id || fs::read_file(flag).value_or("") != kOnDiskText) return std::nullopt;
    return id->mtime_ns;
}

std::optional<int64_t> entry_made_at(const stdfs::path& entry) {
    auto id = fs::identity(entry / kMarker);
    if (!id) return std::nullopt;
    return id->mtime_ns;
}

void repair_entry_file(const stdfs::path& entry_file, const stdfs::path::string_type& fresh, int64_t made_ns) {
    const auto entry = entry_file.parent_path().parent_path().parent_path();
    std::error_code ec;
    stdfs::remove(entry / kOnDisk, ec);
    const auto tmp = fs::temp_path_beside(entry_file);
    bool cross = false;
    if (!storeops::hard_link_text(fresh, tmp.native(), &cross) && (!cross || !storeops::copy_file(stdfs::path(fresh), tmp, 0644))) return;
    // Its made time again, so the entry's check takes it as unmodified since (an edit in place
    // later moves the mtime past it again).
    if (!storeops::set_mtime(tmp, made_ns)) return (void)stdfs::remove(tmp, ec);
    stdfs::rename(tmp, entry_file, ec);
    if (ec) stdfs::remove(tmp, ec);
}

void mark_on_disk(const stdfs::path& entry, const fs::FileIdentity& seen) {
    if (fs::identity(entry) != seen) return;
    // Not flushed: a flag a crash lost only means the next install writes the files back again.
    (void)fs::write_file_atomic(entry / kOnDisk, kOnDiskText, fs::Sync::Cache);
}

bool has_entry(const stdfs::path& root, const std::string& sha256) {
    return is_sha256_hex(sha256) && read_marker(root / kLayout / sha256, sha256).has_value();
}

stdfs::path entry_file(const stdfs::path& entry, size_t zip_entry) {
    return join_generic(entry, "f/" + std::to_string(zip_entry % kShards) + "/" + std::to_string(zip_entry));
}

size_t sweep_tmp(const stdfs::path& root, std::chrono::seconds older_than) {
    size_t removed = 0;
    const auto now = stdfs::file_time_type::clock::now();
    std::error_code ec;
    for (stdfs::directory_iterator it(root / kLayout / "tmp", ec), end; !ec && it != end; it.increment(ec)) {
        // The newest of the folder, its f/ and f/'s folders: an entry being made gets new files there.
        std::vector<stdfs::path> also{it->path() / "f"};
        for (size_t k = 0; k < kShards; ++k) also.push_back(it->path() / "f" / std::to_string(k));
        auto t = newest_write(it->path(), also);
        if (!t || now - *t < older_than) continue;
        std::error_code rec;
        if (stdfs::remove_all(it->path(), rec) > 0 && !rec) ++removed;
    }
    // An older layout's tree (torch's alone is 4.8 GB), once no envfix of that layout has changed
    // it for as long: moved aside at once, so such an envfix sees no entry rather than half of one.
    for (const char* old_layout : kOldLayouts) {
        std::error_code oec;
        auto tree = root / old_layout;
        auto t = last_change(tree);
        if (!t || now - *t < older_than) continue;
        auto aside = root / kLayout / "tmp" / ("old-" + std::string(old_layout) + "-" + unique_name());
        stdfs::create_directories(aside.parent_path(), oec);
        stdfs::rename(tree, aside, oec);
        if (oec) continue;
        remove_tree(aside);
        ++removed;
    }
    return removed;
}

Expected<stdfs::path> begin_entry(const stdfs::path& root, const std::string& sha256) {
    if (!is_sha256_hex(sha256)) return fail(ExitCode::Internal, "fs.write_failed", {{"path", sha256}, {"reason", "not a sha256"}});
    auto tmp = root / kLayout / "tmp" / (sha256.substr(0, 16) + "-" + unique_name());
    std::error_code ec;
    stdfs::create_directories(tmp.parent_path(), ec);
    fileops::spread_new_folders(tmp.parent_path());  // each entry and its files in a group of their own
    stdfs::create_directories(tmp / "f", ec);
    for (size_t k = 0; k < kShards && !ec; ++k) stdfs::create_directory(tmp / "f" / std::to_string(k), ec);
    if (ec) return fail(fs::exit_code_for_errno(ec.value()), "fs.write_failed", {{"path", tmp.string()}, {"reason", ec.message()}});
    return tmp;
}

void drop_entry(const stdfs::path& root, const std::string& sha256) {
    ready::drop_trees(root, sha256);  // links to the same inodes
    std::error_code ec;
    auto dest = root / kLayout / sha256;
    if (!stdfs::exists(dest, ec)) return;
    auto aside = root / kLayout / "tmp" / ("old-" + unique_name());
    stdfs::create_directories(aside.parent_path(), ec);
    stdfs::rename(dest, aside, ec);  // out of sight at once; a concurrent install sees no entry
    if (!ec) remove_tree(aside);
}

Expected<std::optional<fs::FileIdentity>> add_entry(const stdfs::path& root, const std::string& sha256,
                                                     const std::vector<std::pair<size_t, const stdfs::path::string_type*>>& files) {
    ENVFIX_TRY(auto tmp, begin_entry(root, sha256));
    auto cleanup = [&] { remove_tree(tmp); };
    // Links are metadata writes that wait on the filesystem's journal: several threads for a
    // large wheel (torch's 13 000 files), one for small ones.
    std::atomic<bool> failed{false}, copied{false};
    tx::parallel_for(files.size(), [&](size_t k) {
        if (failed.load(std::memory_order_relaxed)) return;
        const auto& [entry, staged_at] = files[k];
        const stdfs::path staged = *staged_at;
        auto to = entry_file(tmp, entry);
        bool cross = false;
        if (storeops::hard_link(staged, to, &cross)) return;
        copied = true;
        auto st = storeops::stat_path(staged);
        if (!cross || !st || !storeops::copy_file(staged, to, st->mode)) failed = true;
    }, 512);
    if (failed) {
        cleanup();
        return fail(ExitCode::Internal, "fs.write_failed", {{"path", tmp.string()}, {"reason", "cannot link or copy the staged files"}});
    }
    ENVFIX_TRY(auto mine, seal_entry(root, tmp, sha256, files.size()));
    if (!mine || copied) return std::optional<fs::FileIdentity>();
    return fs::identity(root / kLayout / sha256);
}

Expected<bool> seal_entry(const stdfs::path& root, const stdfs::path& tmp, const std::string& sha256, size_t files) {
    auto cleanup = [&] { remove_tree(tmp); };
    std::error_code ec;
    // Inside the entry's own temporary folder, which the rename below publishes. Not flushed
    // (fs::Sync::Cache): a cache entry a crash lost is made again, its files' sizes are checked
    // where they are linked, and an install's flush before its commit makes them durable. An
    // fsync here would keep each runner waiting 0.2-1.8 s in a cold install on the GPU machine.
    if (auto w = fs::write_file_atomic(tmp / kMarker, marker_text(sha256, files), fs::Sync::Cache); !w) {
        cleanup();
        return unexpected(w.error());
    }
    auto dest = root / kLayout / sha256;
    // A folder there without a valid marker (damaged, or left by an older build) is replaced;
    // a valid one (another envfix was quicker) is kept.
    if (stdfs::exists(dest, ec) && !read_marker(dest, sha256)) {
        auto aside = root / kLayout / "tmp" / ("old-" + unique_name());
        stdfs::rename(dest, aside, ec);
        remove_tree(aside);
    }
    ec.clear();
    stdfs::rename(tmp, dest, ec);
    if (ec) cleanup();  // another process renamed its entry first: same files
    return !ec;
}

}  // namespace unpacked

}  // namespace envfix::installer
