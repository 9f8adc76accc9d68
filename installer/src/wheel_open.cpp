// Opening a wheel: directory, .dist-info, WHEEL, METADATA, RECORD, and the per-entry checks
// that need no destination (wheel.hpp).
#include <unordered_map>

#include "envfix/common/strings.hpp"
#include "envfix/installer/wheel.hpp"
#include "envfix/standards/names.hpp"
#include "pages.hpp"

namespace envfix::installer {

namespace {

Unexpected<Error> bad(std::string key, const std::string& file, MessageArgs more = {}) {
    Message m = msg(std::move(key), {{"file", file}});
    for (const auto& kv : more) m.args.push_back(kv);
    return unexpected(Error{ExitCode::BadWheel, std::move(m)});
}

std::string first_component(std::string_view name) { return std::string(name.substr(0, name.find('/'))); }

}  // namespace

// "{name}-{version}.dist-info" belongs to the wheel when its name part canonicalises to the
// wheel's name and its version part equals the wheel's version (pip checks the name only).
bool wheel_folder_matches(std::string_view stem, const standards::WheelName& w) {
    auto dash = stem.find('-');
    if (dash == std::string_view::npos) return false;
    if (standards::canonicalize_name(stem.substr(0, dash)) != w.canonical_name) return false;
    auto v = standards::Version::try_parse(stem.substr(dash + 1));
    return v && *v == w.version;
}

namespace {

// A name no filesystem envfix writes to takes (ext4, NTFS: 255), a path longer than Linux's
// PATH_MAX leaves room for the environment's own folders, and a depth no package needs.
constexpr size_t kMaxEntryName = 255, kMaxEntryPath = 3072, kMaxEntryDepth = 128;

// A file whose name is also a folder of another entry ("a" and "a/b"): its staging would fail.
std::optional<std::string> file_folder_clash(const wheel::ZipDirectory& zip) {
    std::vector<std::string_view> names;
    names.reserve(zip.entries.size());
    for (const auto& e : zip.entries) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    std::string folder;
    for (const auto& e : zip.entries) {
        if (e.is_directory()) continue;
        folder.assign(e.name).push_back('/');
        auto it = std::lower_bound(names.begin(), names.end(), std::string_view(folder));
        if (it != names.end() && it->starts_with(folder)) return e.name;
    }
    return std::nullopt;
}

Expected<std::string> read_member(const WheelFile& w, size_t index) {
    return wheel::read_zip_entry_text(w.bytes(), w.zip.entries[index], w.source());
}

}  // namespace

std::optional<std::string> unsafe_entry_name(std::string_view name) {
    if (name.empty()) return "empty name";
    if (name.front() == '/') return "absolute path";
    if (name.find('\\') != std::string_view::npos) return "backslash in the path";
    if (name.find(':') != std::string_view::npos) return "drive letter or ':' in the path";
    // What no filesystem holds would fail as a write error half way: refused as a bad wheel.
    if (name.size() > kMaxEntryPath) return "a path of more than " + std::to_string(kMaxEntryPath) + " bytes";
    std::string_view rest = name;
    if (rest.back() == '/') rest.remove_suffix(1);  // a folder entry
    size_t depth = 0;
    for (size_t at = 0;;) {  // each component, without a vector of them (torch: 12 000 names)
        const size_t slash = rest.find('/', at);
        const std::string_view part = rest.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at);
        if (part.empty()) return "empty path component";
        if (part.size() > kMaxEntryName) return "a name of more than " + std::to_string(kMaxEntryName) + " bytes";
        if (++depth > kMaxEntryDepth) return "folders nested more than " + std::to_string(kMaxEntryDepth) + " deep";
        if (part == "." || part == "..") return "'" + std::string(part) + "' in the path";
        if (at == 0 && part.starts_with(".envfix")) return "a top-level name reserved for envfix";
        if (slash == std::string_view::npos) return std::nullopt;
        at = slash + 1;
    }
}

std::string_view WheelFile::bytes() const {
    if (map) return map->bytes();
    if (!lazy) return {};
    std::call_once(lazy->once, [&] {
        if (auto m = fs::MappedFile::open(lazy->path)) lazy->map.emplace(std::move(*m));
    });
    return lazy->map ? lazy->map->bytes() : std::string_view();
}

bool record_hash_supported(std::string_view a) { return a == "sha256" || a == "sha384" || a == "sha512"; }

// A change to what this accepts or records bumps kWheelDirectoryVersion (wheel_directory.hpp):
// directories kept by an earlier build are then not read.
Expected<WheelFile> open_wheel(const std::filesystem::path& file) {
    WheelFile w;
    w.path = file;
    const std::string src = file.filename().string();
    ENVFIX_TRY(w.name, standards::parse_wheel_name(src));
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        return fail(ExitCode::BadInput, "fs.read_failed", {{"path", file.string()}, {"reason", render(msg("reason.no_such_file"))}});
    ENVFIX_TRY(auto mapped, fs::MappedFile::open(file));
    w.map.emplace(std::move(mapped));
    ENVFIX_TRY(w.zip, wheel::read_zip_directory(w.bytes(), src));

    // Entry names and kinds, and the one .dist-info folder.
    std::vector<std::string> dist_infos, data_dirs;
    for (const auto& e : w.zip.entries) {
        if (auto why = unsafe_entry_name(e.name)) return bad("wheel.unsafe_path", src, {{"entry", e.name}, {"reason", *why}});
        if (e.is_symlink()) return bad("wheel.symlink", src, {{"entry", e.name}});
        if (e.is_special() || ((e.unix_mode() & 0170000) == 0040000 && !e.is_directory()))
            return bad("wheel.special_file", src, {{"entry", e.name}});
        std::string top = first_component(e.name);
        bool nested = e.name.size() > top.size();
        if (!nested) continue;
        auto add = [](std::vector<std::string>& v, const std::string& s) {
            if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
        };
        if (top.ends_with(".dist-info")) add(dist_infos, top);
        if (top.ends_with(".data")) add(data_dirs, top);
    }
    if (auto clash = file_folder_clash(w.zip))
        return bad("wheel.unsafe_path", src, {{"entry", *clash}, {"reason", render(msg("reason.file_and_folder"))}});
    if (dist_infos.size() != 1)
        return bad("wheel.dist_info_count", src, {{"count", std::to_string(dist_infos.size())}});
    w.dist_info = dist_infos[0];
    std::string stem = w.dist_info.substr(0, w.dist_info.size() - std::string_view(".dist-info").size());
    if (!wheel_folder_matches(stem, w.name)) return bad("wheel.dist_info_name", src, {{"folder", w.dist_info}});
    for (const auto& d : data_dirs) {
        if (!wheel_folder_matches(d.substr(0, d.size() - 5), w.name)) return bad("wheel.data_name", src, {{"folder", d}});
        w.data_dir = d;
    }

    std::unordered_map<std::string_view, size_t> by_name;
    for (size_t i = 0; i < w.zip.entries.size(); ++i) by_name.emplace(w.zip.entries[i].name, i);
    auto member = [&](std::string_view leaf) -> std::optional<size_t> {
        auto it = by_name.find(w.dist_info + "/" + std::string(leaf));
        if (it == by_name.end()) return std::nullopt;
        return it->second;
    };

    // WHEEL: the format version decides whether envfix may read the rest.
    auto wheel_idx = member("WHEEL");
    if (!wheel_idx) return bad("wheel.missing_member", src, {{"member", w.dist_info + "/WHEEL"}});
    ENVFIX_TRY(auto wheel_text, read_member(w, *wheel_idx));
    auto wheel_meta = standards::parse_metadata_file(wheel_text, src + ":" + w.dist_info + "/WHEEL");
    if (!wheel_meta) return bad("wheel.bad_member", src, {{"member", "WHEEL"}, {"reason", render(wheel_meta.error().message, Lang::En)}});
    auto version = wheel_meta->get("Wheel-Version");
    if (!version) return bad("wheel.missing_field", src, {{"member", "WHEEL"}, {"field", "Wheel-Version"}});
    w.wheel_version = std::string(str::trim(*version));
    auto parts = str::split(w.wheel_version, '.');
    auto major = parts.empty() ? std::nullopt : str::to_int(parts[0]);
    auto minor = parts.size() < 2 ? std::optional<long long>(0) : str::to_int(parts[1]);
    if (!major || !minor) return bad("wheel.bad_member", src, {{"member", "WHEEL"}, {"reason", "Wheel-Version " + w.wheel_version}});
    if (*major != 1) return bad("wheel.version_unsupported", src, {{"version", w.wheel_version}});
    if (*minor > 0) w.warnings.push_back(msg("wheel.version_newer", {{"file", src}, {"version", w.wheel_version}}));
    w.root_is_purelib = str::iequals(str::trim(wheel_meta->get("Root-Is-Purelib").value_or("")), "true");

    // METADATA names the same distribution as the file name.
    auto meta_idx = member("METADATA");
    if (!meta_idx) return bad("wheel.missing_member", src, {{"member", w.dist_info + "/METADATA"}});
    ENVFIX_TRY(auto meta_text, read_member(w, *meta_idx));
    auto meta = standards::parse_core_metadata(meta_text, src + ":" + w.dist_info + "/METADATA");
    if (!meta) return bad("wheel.bad_member", src, {{"member", "METADATA"}, {"reason", render(meta.error().message, Lang::En)}});
    w.metadata = std::move(*meta);
    w.metadata_text = std::move(meta_text);
    auto meta_version = standards::Version::try_parse(w.metadata.version);
    if (standards::canonicalize_name(w.metadata.name) != w.name.canonical_name || !meta_version || !(*meta_version == w.name.version))
        return bad("wheel.metadata_mismatch", src, {{"name", w.metadata.name}, {"version", w.metadata.version}});

    // RECORD: every file listed with a strong hash and the size the archive holds.
    auto record_idx = member("RECORD");
    if (!record_idx) return bad("wheel.missing_member", src, {{"member", w.dist_info + "/RECORD"}});
    ENVFIX_TRY(auto record_text, read_member(w, *record_idx));
    auto record = standards::parse_record(record_text, src + ":" + w.dist_info + "/RECORD");
    if (!record) return bad("wheel.bad_member", src, {{"member", "RECORD"}, {"reason", render(record.error().message, Lang::En)}});
    w.record = std::move(*record);
    w.record_row.assign(w.zip.entries.size(), -1);
    size_t unlisted_rows = 0;
    for (size_t r = 0; r < w.record.size(); ++r) {
        const auto& row = w.record[r];
        auto it = by_name.find(row.path);
        if (it == by_name.end()) {
            ++unlisted_rows;  // a row for a file the archive lacks: not written, so not recorded
            continue;
        }
        int& slot = w.record_row[it->second];
        if (slot >= 0) {
            const auto& prev = w.record[static_cast<size_t>(slot)];
            if (prev.hash_algorithm != row.hash_algorithm || prev.hash_digest != row.hash_digest || prev.size != row.size)
                return bad("wheel.record_conflict", src, {{"entry", row.path}});
            continue;
        }
        slot = static_cast<int>(r);
    }
    if (unlisted_rows > 0)
        w.warnings.push_back(msg("wheel.record_extra_rows", {{"file", src}, {"count", std::to_string(unlisted_rows)}}));

    const std::string record_name = w.dist_info + "/RECORD";
    const std::string record_jws = record_name + ".jws", record_p7s = record_name + ".p7s";
    size_t pycache = 0;
    for (size_t i = 0; i < w.zip.entries.size(); ++i) {
        const auto& e = w.zip.entries[i];
        if (e.is_directory()) continue;
        if (e.name == record_name || e.name == record_jws || e.name == record_p7s) continue;
        if (e.name.starts_with("__pycache__/") || e.name.find("/__pycache__/") != std::string::npos) {
            ++pycache;  // bytecode from the build machine: never installed (pypa/installer does the same)
            continue;
        }
        int r = w.record_row[i];
        if (r < 0) return bad("wheel.not_in_record", src, {{"entry", e.name}});
        const auto& row = w.record[static_cast<size_t>(r)];
        if (row.hash_algorithm.empty()) return bad("wheel.record_no_hash", src, {{"entry", e.name}});
        if (!record_hash_supported(row.hash_algorithm))
            return bad("wheel.record_weak_hash", src, {{"entry", e.name}, {"algorithm", row.hash_algorithm}});
        if (row.size && *row.size != e.size)
            return bad("wheel.record_size", src,
                       {{"entry", e.name}, {"record", std::to_string(*row.size)}, {"archive", std::to_string(e.size)}});
        w.files.push_back(i);
    }
    if (pycache > 0) w.warnings.push_back(msg("wheel.pycache_skipped", {{"file", src}, {"count", std::to_string(pycache)}}));

    if (auto ep = member("entry_points.txt")) {
        ENVFIX_TRY(w.entry_points, read_member(w, *ep));
    }
    // Checking every local header touched a page per entry (torch: most of the archive's pages
    // for its small files); staging reads the data from the file, not through the mapping.
    pages::release(w.bytes());
    return w;
}

}  // namespace envfix::installer
