// Removal sets from RECORD (uninstall.hpp).
#include "envfix/installer/uninstall.hpp"

#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "path_under.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

// What one folder holds, read once: the name and type of each entry (from the directory listing,
// no stat per file). A RECORD lists every file of torch; asking the disk about each (and about a
// Python 2 ".pyc" beside each ".py") cost 23 000 stat calls.
using Listing = std::unordered_map<stdfs::path::string_type, stdfs::file_type>;

// symlink_status()'s type from what the listing already said (d_type), without a stat where
// the platform gives it.
stdfs::file_type entry_type(const stdfs::directory_entry& d) {
    std::error_code ec;
    if (d.is_symlink(ec)) return stdfs::file_type::symlink;
    if (d.is_directory(ec)) return stdfs::file_type::directory;
    if (d.is_regular_file(ec)) return stdfs::file_type::regular;
    return d.symlink_status(ec).type();
}

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

stdfs::path record_row_path(const stdfs::path& site_packages, const std::string& row) {
    if constexpr (stdfs::path::preferred_separator == '/') {
        const auto& base = site_packages.native();
        if (!row.empty() && row.front() != '/' && plainly_normal(row) && (base == "/" || plainly_normal(base)))
            return site_packages / row;
    }
    return (site_packages / stdfs::path(row)).lexically_normal();
}

std::map<stdfs::path, std::string> recorded_owners(const std::vector<const resolver::InstalledDist*>& dists) {
    std::map<stdfs::path, std::string> out;
    for (const auto* d : dists) {
        if (!d->has_record) continue;
        auto rows = resolver::read_record(*d);
        if (!rows) continue;
        for (const auto& r : *rows) out.emplace(record_row_path(d->site_packages, r.path), d->name);
    }
    return out;
}

Expected<RemovalPlan> plan_removal(const resolver::InstalledDist& dist, const stdfs::path& env_root,
                                   const std::set<stdfs::path>& protect) {
    if (!dist.has_record)
        return fail(ExitCode::NoRecord, "install.no_record",
                    {{"name", dist.name}, {"version", dist.version}, {"path", dist.dist_info.string()},
                     {"installer", dist.installer.empty() ? "?" : dist.installer}});
    ENVFIX_TRY(auto rows, resolver::read_record(dist));
    RemovalPlan plan;
    const stdfs::path root = env_root.lexically_normal();
    const stdfs::path real_root = canonical_or_self(root);
    std::map<stdfs::path, std::vector<std::string>> pycache;  // folder -> names in its __pycache__
    std::unordered_set<stdfs::path::string_type> chosen, protected_files;
    for (const auto& p : protect) protected_files.insert(p.native());
    size_t outside = 0, kept = 0;
    auto add = [&](const stdfs::path& p) {
        if (protected_files.count(p.native())) {
            ++kept;
            return;
        }
        if (chosen.insert(p.native()).second) plan.files.push_back(p);
    };
    std::unordered_map<stdfs::path::string_type, Listing> listings;
    auto type_of = [&](const stdfs::path& p) {
        auto [it, fresh] = listings.try_emplace(p.parent_path().native());
        if (fresh) {
            std::error_code ec;
            for (stdfs::directory_iterator d(p.parent_path(), ec), end; !ec && d != end; d.increment(ec))
                it->second.emplace(d->path().filename().native(), entry_type(*d));
        }
        auto e = it->second.find(p.filename().native());
        return e == it->second.end() ? stdfs::file_type::not_found : e->second;
    };
    // Whether a folder, symlinks resolved, lies in the root: asked once per folder (torch lists
    // 17 000 files in about 1 000 folders). A file is inside when its real folder is the root or in it.
    std::unordered_map<stdfs::path::string_type, bool> real_inside;
    auto in_real_root = [&](const stdfs::path& dir) {
        auto [it, fresh] = real_inside.try_emplace(dir.native());
        if (fresh) {
            auto real = canonical_or_self(dir);
            it->second = path_under(real, real_root, true);
        }
        return it->second;
    };
    for (const auto& row : rows) {
        stdfs::path p = record_row_path(dist.site_packages, row.path);
        if (!path_under(p, root, false) || !in_real_root(p.parent_path())) {
            ++outside;
            continue;
        }
        std::error_code ec;
        auto type = type_of(p);
        if (type == stdfs::file_type::not_found || type == stdfs::file_type::directory) continue;
        const size_t before = plan.files.size();
        add(p);
        if (plan.files.size() > before && !row.hash_digest.empty()) plan.rows.emplace_back(p, row);
        if (p.extension() == ".py") {
            auto dir = p.parent_path();
            auto [it, fresh] = pycache.try_emplace(dir);
            if (fresh)
                for (stdfs::directory_iterator d(dir / "__pycache__", ec), end; !ec && d != end; d.increment(ec))
                    it->second.push_back(d->path().filename().string());
            std::string stem = p.stem().string();
            for (const auto& name : it->second)
                if (is_bytecode_of(name, stem)) add(dir / "__pycache__" / name);
            auto legacy = dir / (stem + ".pyc");  // Python 2 style, beside the source
            if (type_of(legacy) == stdfs::file_type::regular) add(legacy);
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
