// Which files and folders a transaction moves (tx_internal.hpp: plan_moves). A folder moves out
// whole when everything in it goes (pip's compress_for_rename rule, which also takes the
// folders left empty), and comes in whole when it does not exist once the old files are out:
// replacing torch is four renames, not 34 000.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "path_under.hpp"
#include "tx_internal.hpp"

namespace envfix::installer::tx {

namespace {

class Planner {
public:
    Planner(const std::vector<Area>& areas, const std::unordered_set<stdfs::path::string_type>& remove)
        : areas_(areas), remove_(remove) {}

    // Everything inside `dir` is either a file to remove or a folder that qualifies.
    bool qualifies(const stdfs::path& dir) {
        if (auto it = memo_.find(dir.native()); it != memo_.end()) return it->second;
        bool ok = !holds_area(dir);
        std::error_code ec;
        if (ok && stdfs::symlink_status(dir, ec).type() != stdfs::file_type::directory) ok = false;
        if (ok) {
            stdfs::directory_iterator it(dir, ec), end;
            if (ec) ok = false;
            for (; ok && it != end; it.increment(ec)) {
                if (ec) { ok = false; break; }
                const auto& p = it->path();
                // The listing's own type (d_type) where the file system gives one: no stat per file.
                if (!it->is_symlink(ec) && it->is_directory(ec)) ok = qualifies(p);
                else ok = remove_.count(p.native()) > 0;
            }
        }
        memo_[dir.native()] = ok;
        return ok;
    }

private:
    // An area root, or a folder above one, never moves.
    bool holds_area(const stdfs::path& dir) const {
        for (const auto& a : areas_) {
            auto rel = a.root.lexically_relative(dir);
            if (!rel.empty() && *rel.begin() != "..") return true;
        }
        return false;
    }

    const std::vector<Area>& areas_;
    const std::unordered_set<stdfs::path::string_type>& remove_;  // hashed: every file of torch is looked up
    std::unordered_map<stdfs::path::string_type, bool> memo_;
};

// Folders from just below the area root down to `p`'s parent, outermost first.
std::vector<stdfs::path> ancestors_below(const Area& area, const std::string& rel) {
    std::vector<stdfs::path> out;
    stdfs::path cur = area.root;
    stdfs::path r(rel);
    for (auto it = r.begin(); it != r.end(); ++it) {
        if (std::next(it) == r.end()) break;
        cur /= *it;
        out.push_back(cur);
    }
    return out;
}

}  // namespace

Expected<std::vector<JournalOp>> plan_moves(const std::vector<Area>& areas, const std::vector<stdfs::path::string_type>& remove,
                                            const std::vector<stdfs::path::string_type>& add) {
    auto outside = [](const stdfs::path& p) {
        return fail(ExitCode::Internal, "install.outside_areas", {{"path", p.string()}});
    };
    // Every file named, normalised; whether it is on disk is asked only of those that do not go
    // with a whole folder (the folder's listing answers for the rest: torch's 12 000 files).
    std::vector<stdfs::path> removing;
    std::unordered_set<stdfs::path::string_type> removing_set;
    stdfs::path::string_type scratch;
    for (const auto& raw : remove) {
        stdfs::path p = normal_text(raw, scratch);
        std::string rel;
        if (!area_for(areas, p, &rel)) return outside(p);
        if (removing_set.insert(p.native()).second) removing.push_back(std::move(p));
    }

    // Out: the outermost qualifying folder above each file, else the file.
    Planner planner(areas, removing_set);
    std::set<stdfs::path> out_units;
    // Files of one folder share the answer about their ancestors (torch: 13 000 files, 600 folders).
    std::unordered_map<stdfs::path::string_type, stdfs::path> out_of_parent;  // empty: the file itself
    for (const auto& p : removing) {
        auto [known, fresh] = out_of_parent.try_emplace(p.parent_path().native());
        if (fresh) {
            std::string rel;
            const Area* area = area_for(areas, p, &rel);
            for (const auto& dir : ancestors_below(*area, rel)) {
                if (out_units.count(dir) || planner.qualifies(dir)) {
                    known->second = dir;
                    break;
                }
            }
        }
        if (!known->second.empty()) {
            out_units.insert(known->second);
            continue;
        }
        std::error_code ec;
        auto type = stdfs::symlink_status(p, ec).type();
        if (type == stdfs::file_type::not_found || type == stdfs::file_type::directory) continue;  // nothing to move
        out_units.insert(p);
    }
    // Drop units inside another unit (a file whose folder also goes).
    std::vector<stdfs::path> outs;
    for (const auto& u : out_units)
        if (outs.empty() || !path_under(u, outs.back(), true)) outs.push_back(u);
    auto moved_out = [&](const stdfs::path& p) {
        auto it = std::upper_bound(outs.begin(), outs.end(), p);
        if (it == outs.begin()) return false;
        return path_under(p, *std::prev(it), true);
    };
    std::set<stdfs::path> extra_outs;  // existing files the new ones replace
    // What is on disk, asked once per path: every file of a new folder (torch's 13 000) asks
    // about the same few ancestors.
    std::unordered_map<stdfs::path::string_type, stdfs::file_type> on_disk;
    auto exists_after = [&](const stdfs::path& p, stdfs::file_type* type) {
        auto [it, fresh] = on_disk.try_emplace(p.native(), stdfs::file_type::none);
        if (fresh) {
            std::error_code ec;
            it->second = stdfs::status(p, ec).type();  // a symlink to a folder serves as the folder
            if (it->second == stdfs::file_type::not_found) it->second = stdfs::symlink_status(p, ec).type();
        }
        auto t = it->second;
        *type = t;
        return t != stdfs::file_type::not_found && !moved_out(p) && !extra_outs.count(p);
    };

    // In: the outermost folder that will not exist, else the file itself.
    std::set<stdfs::path> in_units;
    std::unordered_set<stdfs::path::string_type> in_seen;
    // As for the outs, the files of one folder share the answer about their ancestors.
    std::unordered_map<stdfs::path::string_type, stdfs::path> in_of_parent;  // empty: every folder exists
    // The adds come sorted (each wheel's files in the install's writer order, the wheels one after
    // another), so the files inside a folder that comes in whole follow one another: while a file
    // lies anywhere under the unit of the one before, it is that unit (the unit's ancestors exist,
    // the unit does not), and no path is made or hashed for it. Reusing only the same parent
    // folder sends 1 235 of the synthetic stack's 17 000 adds the long way, and the plan takes
    // 14 ms of a thread in a warm install on the GPU machine, 9-13 ms of them waited for.
    using Str = stdfs::path::string_type;
    std::optional<Str> whole_unit;  // the folder the file before came in with, when one did
    Str normalised;
    stdfs::path p;  // made only for a file outside the unit before it
    for (const auto& raw : add) {
        const Str& s = normal_text(raw, normalised);
        if (whole_unit && text_under(s, *whole_unit, false)) continue;  // the same unit: seen already
        whole_unit.reset();
        p = s;
        auto [known, fresh] = in_of_parent.try_emplace(p.parent_path().native());
        if (fresh) {
            std::string rel;
            const Area* area = area_for(areas, p, &rel);
            if (!area) return outside(p);
            for (const auto& dir : ancestors_below(*area, rel)) {
                stdfs::file_type t;
                if (!exists_after(dir, &t)) {
                    known->second = dir;
                    break;
                }
                if (t != stdfs::file_type::directory)
                    return fail(ExitCode::EnvInconsistent, "install.path_conflict_folder", {{"path", dir.string()}});
            }
        }
        stdfs::path unit = known->second;
        if (!unit.empty() && text_under(s, unit.native(), false)) whole_unit.emplace(unit.native());  // the next files under it go with it
        if (unit.empty()) {
            stdfs::file_type t;
            if (exists_after(p, &t)) {
                if (t == stdfs::file_type::directory)
                    return fail(ExitCode::EnvInconsistent, "install.path_conflict_file", {{"path", p.string()}});
                extra_outs.insert(p);
            }
            unit = p;
        }
        if (in_seen.insert(unit.native()).second) in_units.insert(unit);
    }

    std::vector<JournalOp> ops;
    auto add_op = [&](JournalOp::Kind kind, const stdfs::path& p) {
        std::string rel;
        const Area* area = area_for(areas, p, &rel);
        ops.push_back(JournalOp{kind, static_cast<uint32_t>(area - areas.data()), rel});
    };
    for (const auto& p : extra_outs)
        if (!moved_out(p)) out_units.insert(p);
    outs.clear();
    for (const auto& u : out_units)
        if (outs.empty() || !path_under(u, outs.back(), true)) outs.push_back(u);
    for (const auto& p : outs) add_op(JournalOp::Kind::Out, p);
    for (const auto& p : in_units) add_op(JournalOp::Kind::In, p);
    return ops;
}

}  // namespace envfix::installer::tx
