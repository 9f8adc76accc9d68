#include "envfix/diagnosis/torch_dependents.hpp"

#include <algorithm>
#include <cctype>

#include "envfix/common/hash.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/diagnosis/framework_stack.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/requirement.hpp"

namespace envfix::diagnosis {

namespace stdfs = std::filesystem;

namespace {

// Whether a Requires-Dist can name torch: only those are parsed (parsing every one of 300
// distributions' requirements is a tenth of a warm doctor's CPU on the GPU machine). The name comes first;
// "torch" has no separators to spell otherwise; anything unusual before it is parsed anyway.
bool may_name_torch(std::string_view t) {
    size_t i = 0;
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
    if (i < t.size() && !std::isalnum(static_cast<unsigned char>(t[i]))) return true;
    if (t.size() - i < 5 || !str::iequals(t.substr(i, 5), "torch")) return false;
    if (i + 5 == t.size()) return true;
    const char c = t[i + 5];
    return !(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
}

// Their libraries come from their RECORDs: walking their folders would open every directory of
// transformers, timm, peft and the like, 4 000 in the GPU machine's venv, 40 of a warm doctor's
// 70 ms (docs/performance.md). One without a readable RECORD
// (egg-info) has the folder named after it walked (kernpkg → kernpkg/), as nearly every package is.
probe::DependentLibraries torch_dependents(const std::vector<standards::InstalledDist>& others) {
    probe::DependentLibraries out;
    const auto& known = probe::known_cuda_extension_packages();  // walked whatever their RECORDs say
    for (const auto& d : others) {
        bool needs_torch = false;
        for (const auto& text : d.metadata.requires_dist)
            if (may_name_torch(text))
                if (auto r = standards::Requirement::parse(text); r && r->canonical_name() == "torch") needs_torch = true;
        if (!needs_torch) continue;
        std::string folder = d.name;
        std::replace(folder.begin(), folder.end(), '-', '_');
        std::replace(folder.begin(), folder.end(), '.', '_');
        const std::string lower = str::lower(folder);
        if (std::find(known.begin(), known.end(), lower) != known.end()) continue;
        std::optional<std::vector<standards::RecordEntry>> rows;
        if (!d.egg_info && d.has_record)
            if (auto r = read_record(d)) rows = std::move(*r);
        if (!rows) {
            out.walk.push_back(folder);
            if (lower != folder) out.walk.push_back(lower);
            continue;
        }
        for (const auto& row : *rows) {
            const std::string_view rel = row.path;
            const size_t slash = rel.rfind('/');
            if (!probe::is_library_file_name(slash == std::string_view::npos ? rel : rel.substr(slash + 1))) continue;
            // Inside site-packages only (a RECORD may name ../../bin/...), as its own package.
            auto p = stdfs::path(row.path).lexically_normal();
            if (p.empty() || p.is_absolute() || *p.begin() == "..") continue;
            const std::string first = p.begin()->string();
            out.listed.push_back({d.site_packages / p, std::next(p.begin()) == p.end() ? first.substr(0, first.find('.')) : first});
        }
    }
    return out;
}

}  // namespace

std::string dist_folder_key(const fs::FileIdentity& folder, std::vector<std::string> entry_names) {
    std::sort(entry_names.begin(), entry_names.end());
    std::string joined;
    for (const auto& n : entry_names) joined.append(n).push_back('\n');
    return folder.to_string() + ":" + std::to_string(entry_names.size()) + ":" + sha256_hex(joined).substr(0, 32);
}

std::optional<DistFolderState> dist_folder_state(const stdfs::path& site_packages) {
    std::error_code ec;
    const auto before = fs::identity(site_packages);
    if (!before) return std::nullopt;  // a file is refused by the listing below
    std::vector<std::string> names;
    for (stdfs::directory_iterator it(site_packages, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        auto name = it->path().filename().string();
        if (!standards::installed_entry_name(name).empty()) names.push_back(std::move(name));  // a dist-info or egg-info
    }
    if (ec) return std::nullopt;
    // Listed while it changed: its state is neither the one before nor after.
    if (auto after = fs::identity(site_packages); !after || !(*after == *before)) return std::nullopt;
    DistFolderState s{dist_folder_key(*before, std::move(names)), false};
    const auto mtime = stdfs::last_write_time(site_packages, ec);
    s.settled = !ec && stdfs::file_time_type::clock::now() - mtime >= kDistFolderSettled;
    return s;
}

Expected<DependentsScan> dependents_of_torch(const std::vector<stdfs::path>& site_packages, probe::DependentsCache* cache) {
    DependentsScan scan;
    auto merge = [&scan](const stdfs::path& sp, probe::DependentLibraries part) {
        for (auto& w : part.walk)
            if (std::find(scan.walk.begin(), scan.walk.end(), w) == scan.walk.end()) scan.walk.push_back(std::move(w));
        for (auto& l : part.listed) scan.listed.emplace_back(sp, std::move(l));
    };
    for (const auto& sp : standards::distinct_folders(site_packages)) {
        const auto state = dist_folder_state(sp);
        if (cache && state)
            if (auto hit = cache->find(sp, state->key)) {
                ++scan.folders_cached;
                merge(sp, std::move(*hit));
                continue;
            }
        // Only what finding them needs: the header part of METADATA, whether there is a RECORD.
        standards::ReadInstalledOptions ro;
        ro.only = [](std::string_view n) { return !is_stack_package(n); };
        ro.headers_only = true;
        ro.details = false;
        ENVFIX_TRY(auto others, read_installed({sp}, ro));
        ++scan.folders_read;
        scan.dists_read += others.dists.size();
        auto found = torch_dependents(others.dists);
        if (cache && state && state->settled) cache->put(sp, state->key, found);
        merge(sp, std::move(found));
    }
    return scan;
}

}  // namespace envfix::diagnosis
