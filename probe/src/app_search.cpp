// Finding app folders when none is given: the current folder, then the usual places of the OS.
#include <algorithm>
#include <set>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/app_folder.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

std::vector<stdfs::path> expand_place(std::string_view place, const std::optional<stdfs::path>& home) {
    std::vector<stdfs::path> out;
    std::string p(place);
    if (p == "~" || p.starts_with("~/")) {
        if (!home) return out;
        p = home->generic_string() + p.substr(1);
    }
    std::error_code ec;
    if (!p.ends_with("*")) {
        if (stdfs::is_directory(p, ec)) out.emplace_back(stdfs::path(p).lexically_normal());
        return out;
    }
    // "dir/prefix*": every folder in dir whose name starts with prefix.
    const stdfs::path pattern(p.substr(0, p.size() - 1));
    const std::string prefix = pattern.filename().string();
    const stdfs::path parent = pattern.parent_path();
    for (auto it = stdfs::directory_iterator(parent, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        std::error_code dec;
        if (it->path().filename().string().starts_with(prefix) && it->is_directory(dec))
            out.push_back(it->path().lexically_normal());
    }
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

bool same_app_above(const stdfs::path& dir, const std::vector<AppSignature>& apps, const AppSignature* app) {
    return dir != dir.parent_path() && !match_app_folder(dir.parent_path(), apps, app).empty();
}

// The current folder when no parent is an app's, else the nearest app folder at or above it,
// widened to the folder above while that is the same app's (a portable package's ComfyUI/
// folder is the package).
stdfs::path folder_or_parent_of_app(const stdfs::path& cwd, const std::vector<AppSignature>& apps, const AppSignature* only) {
    const auto start = absolute_normal(cwd);
    for (auto dir = start;; dir = dir.parent_path()) {
        auto matches = match_app_folder(dir, apps, only);
        if (!matches.empty()) {
            while (same_app_above(dir, apps, matches.front().app)) dir = dir.parent_path();
            return dir;
        }
        if (dir == dir.parent_path()) return start;
    }
}

}  // namespace

std::vector<AppFolderMatch> find_app_folders(const std::vector<AppSignature>& apps, const AppSearch& search) {
    const AppSignature* only = nullptr;
    if (search.app) {
        only = find_signature(apps, *search.app);
        if (!only) return {};
    }
    std::error_code ec;
    std::vector<stdfs::path> candidates{folder_or_parent_of_app(search.cwd ? *search.cwd : stdfs::current_path(ec), apps, only)};
    const auto home = search.home ? search.home : fs::home_dir();
    for (const auto& app : apps) {
        if (only && &app != only) continue;
        for (const auto& place : app.places)
            if (search.usual_places && place.os == search.os)
                for (auto& dir : expand_place(place.path, home)) candidates.push_back(std::move(dir));
    }

    std::vector<AppFolderMatch> out;
    std::set<std::string> seen;
    for (const auto& dir : candidates) {
        auto matches = match_app_folder(dir, apps, only);
        std::set<const AppSignature*> apps_here;
        for (auto& m : matches) {
            if (!apps_here.insert(m.app).second) continue;  // first layout of each app at this folder
            // One installation, however it was reached: keyed by the app and its first existing
            // environment (else the folder).
            std::string key = m.app->name + "\n" + stdfs::weakly_canonical(m.folder, ec).string();
            for (const auto& env : environment_dirs(m)) {
                std::error_code e2;
                if (stdfs::is_directory(env, e2)) {
                    key = m.app->name + "\n" + stdfs::weakly_canonical(env, e2).string();
                    break;
                }
            }
            if (seen.insert(key).second) out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace envfix::probe
