// Removal sets from RECORD (uninstall.hpp).
#include "envfix/installer/uninstall.hpp"

#include <map>

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

bool within(const stdfs::path& p, const stdfs::path& root) {
    auto rel = p.lexically_relative(root);
    return !rel.empty() && rel != "." && *rel.begin() != "..";
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

std::map<stdfs::path, std::string> recorded_owners(const std::vector<const resolver::InstalledDist*>& dists) {
    std::map<stdfs::path, std::string> out;
    for (const auto* d : dists) {
        if (!d->has_record) continue;
        auto rows = resolver::read_record(*d);
        if (!rows) continue;
        for (const auto& r : *rows) out.emplace((d->site_packages / stdfs::path(r.path)).lexically_normal(), d->name);
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
    std::set<stdfs::path> chosen;
    size_t outside = 0, kept = 0;
    auto add = [&](const stdfs::path& p) {
        if (protect.count(p)) {
            ++kept;
            return;
        }
        if (chosen.insert(p).second) plan.files.push_back(p);
    };
    std::map<stdfs::path, stdfs::path> real_dirs;  // torch lists 17 000 files in about 1 000 folders
    auto real_dir = [&](const stdfs::path& dir) -> const stdfs::path& {
        auto it = real_dirs.find(dir);
        if (it == real_dirs.end()) it = real_dirs.emplace(dir, canonical_or_self(dir)).first;
        return it->second;
    };
    for (const auto& row : rows) {
        stdfs::path p = (dist.site_packages / stdfs::path(row.path)).lexically_normal();
        if (!within(p, root) || !within(real_dir(p.parent_path()) / p.filename(), real_root)) {
            ++outside;
            continue;
        }
        std::error_code ec;
        auto type = stdfs::symlink_status(p, ec).type();
        if (type == stdfs::file_type::not_found || type == stdfs::file_type::directory) continue;
        add(p);
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
            if (stdfs::symlink_status(legacy, ec).type() == stdfs::file_type::regular) add(legacy);
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
