// Removal sets from RECORD (uninstall.hpp).
#include "envfix/installer/uninstall.hpp"

#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "envfix/common/parallel_for.hpp"
#include "path_under.hpp"
#include "store_ops.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

// What one folder holds, read once: the name and type of each entry (from the directory listing,
// no stat per file). A RECORD lists every file of torch; asking the disk about each (and about a
// Python 2 ".pyc" beside each ".py") cost 23 000 stat calls.
using Listing = std::unordered_map<stdfs::path::string_type, stdfs::file_type>;

stdfs::path canonical_or_self(const stdfs::path& p) {
    std::error_code ec;
    auto c = stdfs::weakly_canonical(p, ec);
    return ec ? p : c;
}

// "__pycache__/mod.cpython-312.pyc", "mod.cpython-312.opt-1.pyc": the bytecode of "mod.py".
bool is_bytecode_of(const std::string& name, const std::string& stem) {
    if (!name.starts_with(stem + ".") || !name.ends_with(".pyc")) return false;
    std::string tag = name.substr(stem.size() + 1, name.size() - stem.size() - 5);
    if (auto opt = tag.find(".opt-"); opt != std::string::npos) tag = tag.substr(0, opt);
    return !tag.empty() && tag.find('.') == std::string::npos;
}

}  // namespace

stdfs::path::string_type record_row_text(const stdfs::path& site_packages, const std::string& row) {
    // A row that may be absolute replaces the folder, as operator/ does (refused later as outside).
    if (row.empty() || row.front() == '/' || row.front() == '\\' || (row.size() > 1 && row[1] == ':'))
        return normal_path(site_packages / stdfs::path(row)).native();
    auto joined = join_generic_text(site_packages, row);
    stdfs::path::string_type scratch;
    if (&normal_text(joined, scratch) == &joined) return joined;
    return scratch;
}

std::unordered_map<stdfs::path::string_type, std::string> recorded_owners(const std::vector<const standards::InstalledDist*>& dists) {
    std::unordered_map<stdfs::path::string_type, std::string> out;
    for (const auto* d : dists) {
        if (!d->has_record) continue;
        auto rows = standards::read_record(*d);
        if (!rows) continue;
        for (const auto& r : *rows) out.try_emplace(record_row_text(d->site_packages, r.path), d->name);
    }
    return out;
}

Expected<RemovalPlan> plan_removal(const standards::InstalledDist& dist, const stdfs::path& env_root, const PathSet& protect) {
    if (!dist.has_record)
        return fail(ExitCode::NoRecord, "install.no_record",
                    {{"name", dist.name}, {"version", dist.version}, {"path", dist.dist_info.string()},
                     {"installer", dist.installer.empty() ? "?" : dist.installer}});
    ENVFIX_TRY(auto rows, standards::read_record(dist));
    using Str = stdfs::path::string_type;
    constexpr auto sep = stdfs::path::preferred_separator;
    RemovalPlan plan;
    const stdfs::path root = env_root.lexically_normal();
    const stdfs::path real_root = canonical_or_self(root);
    std::unordered_map<Str, std::vector<std::string>> pycache;  // folder -> names in its __pycache__
    PathSet chosen;
    size_t outside = 0, kept = 0;
    // Torch's RECORD lists 12 000 rows: folder and name are cut from the path's string, and no
    // std::filesystem::path (which splits itself into parts) is made for a file.
    auto add = [&](Str path) -> bool {
        if (protect.count(path)) {
            ++kept;
            return false;
        }
        auto [it, fresh] = chosen.insert(std::move(path));
        if (fresh) plan.files.emplace_back(*it);
        return fresh;
    };
    std::unordered_map<Str, Listing> listings;
    // The type of `name` in folder `dir`, from the folder's listing (read once).
    auto type_in = [&](const Str& dir, const Str& name) {
        auto [it, fresh] = listings.try_emplace(dir);
        if (fresh)
            if (auto listed = storeops::list_folder(dir))
                for (auto& e : *listed) it->second.emplace(std::move(e.name), e.type);
        auto e = it->second.find(name);
        return e == it->second.end() ? stdfs::file_type::not_found : e->second;
    };
    // Whether a folder, symlinks resolved, lies in the root: asked once per folder (torch lists
    // 17 000 files in about 1 000 folders). A file is inside when its real folder is the root or in it.
    // A real folder (not a link) in a folder that is inside is inside: known from the parent's
    // listing, where resolving each folder's path walked every part of it with a stat.
    std::unordered_map<Str, bool> real_inside;
    std::function<bool(const Str&)> in_real_root = [&](const Str& dir) -> bool {
        if (auto it = real_inside.find(dir); it != real_inside.end()) return it->second;
        bool inside;
        const size_t up = dir.rfind(sep);
        if (dir == root.native()) {
            inside = true;  // real_root is its resolved path
        } else if (up != Str::npos && up > 0 && text_under(dir, root.native(), false) &&
                   type_in(dir.substr(0, up), dir.substr(up + 1)) == stdfs::file_type::directory) {
            inside = in_real_root(dir.substr(0, up));
        } else {
            inside = path_under(canonical_or_self(stdfs::path(dir)), real_root, true);
        }
        real_inside.emplace(dir, inside);
        return inside;
    };
    const Str pyc_ext = stdfs::path(".pyc").native(), pycache_dir = stdfs::path("__pycache__").native();
    // envfix's own folders (state, staging) are no distribution's, whatever a RECORD says.
    const Str own_marker = Str(1, sep) + stdfs::path(".envfix").native();
    auto envfix_own = [&](const Str& s) { return s.find(own_marker, root.native().size()) != Str::npos; };
    const Str slash(1, sep);
    std::vector<Str> texts;
    texts.reserve(rows.size());
    for (const auto& row : rows) texts.push_back(record_row_text(dist.site_packages, row.path));
    // The folders the rows lie in, and the __pycache__ of those holding Python files, listed on
    // several threads before the rows are walked: where the page cache has lost them (after a
    // reboot; the switch of the harness) each listing waits for the disk, and torch's 1 000 of
    // them one after another would hold a switch's removal plan 0.5 s on the GPU machine (45 ms of CPU).
    {
        std::vector<Str> folders, with_python;
        std::unordered_set<Str> seen_folders, seen_python;
        for (const auto& s : texts) {
            const size_t cut = s.rfind(sep);
            if (cut == Str::npos || cut == 0 || !text_under(s, root.native(), false)) continue;
            Str dir = s.substr(0, cut);
            if (ends_with_ascii(s, ".py") && seen_python.insert(dir).second) with_python.push_back(dir);
            // And the folders above it up to the root, which in_real_root asks about (torch's
            // include/ holds only folders).
            for (Str at = std::move(dir); seen_folders.insert(at).second;) {
                folders.push_back(at);
                const size_t up = at.rfind(sep);
                if (at == root.native() || up == Str::npos || up == 0) break;
                at.resize(up);
                if (at != root.native() && !text_under(at, root.native(), false)) break;
            }
        }
        std::vector<std::optional<std::vector<storeops::FolderEntry>>> listed(folders.size() + with_python.size());
        parallel_for(listed.size(), [&](size_t i) {
            listed[i] = storeops::list_folder(i < folders.size() ? folders[i] : with_python[i - folders.size()] + slash + pycache_dir);
        });
        for (size_t i = 0; i < listed.size(); ++i) {
            if (i < folders.size()) {
                auto& l = listings[folders[i]];
                if (listed[i])
                    for (auto& e : *listed[i]) l.emplace(std::move(e.name), e.type);
            } else {
                auto& names = pycache[with_python[i - folders.size()]];
                if (listed[i])
                    for (const auto& e : *listed[i]) names.push_back(generic_of(e.name));
            }
        }
    }
    for (size_t r = 0; r < rows.size(); ++r) {
        auto& row = rows[r];
        const Str& s = texts[r];
        const size_t cut = s.rfind(sep);
        if (cut == Str::npos || !text_under(s, root.native(), false) || envfix_own(s)) {
            ++outside;
            continue;
        }
        const Str dir = s.substr(0, cut == 0 ? 1 : cut), name = s.substr(cut + 1);
        if (!in_real_root(dir)) {
            ++outside;
            continue;
        }
        auto type = type_in(dir, name);
        if (type == stdfs::file_type::not_found || type == stdfs::file_type::directory) continue;
        const bool python = ends_with_ascii(name, ".py");
        const bool hashed = !row.hash_digest.empty();
        if (add(s) && hashed) plan.rows.emplace_back(plan.files.size() - 1, std::move(row));
        if (python) {
            auto [it, fresh] = pycache.try_emplace(dir);
            if (fresh)
                if (auto listed = storeops::list_folder(dir + slash + pycache_dir))
                    for (const auto& e : *listed) it->second.push_back(generic_of(e.name));
            const Str stem = name.substr(0, name.size() - 3);
            if (!it->second.empty()) {
                const std::string narrow = stdfs::path(stem).string();
                for (const auto& pyc : it->second)
                    if (is_bytecode_of(pyc, narrow)) add((stdfs::path(dir) / pycache_dir / pyc).native());
            }
            if (type_in(dir, stem + pyc_ext) == stdfs::file_type::regular) add(dir + slash + stem + pyc_ext);  // Python 2 style
        }
    }
    if (outside > 0)
        plan.skipped.push_back(msg("install.record_outside", {{"name", dist.name}, {"count", std::to_string(outside)},
                                                              {"path", root.string()}}));
    if (kept > 0)
        plan.skipped.push_back(msg("install.record_kept", {{"name", dist.name}, {"count", std::to_string(kept)}}));
    return plan;
}

}  // namespace envfix::installer
