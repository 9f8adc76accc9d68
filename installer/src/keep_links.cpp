// Installed files a switch can keep (keep_links.hpp), and the same by hash for the entries made
// while downloading (installed_content, unpacked_cache.hpp).
#include "keep_links.hpp"

#include "envfix/installer/uninstall.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "path_under.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

InstalledRows installed_rows(const std::vector<const resolver::InstalledDist*>& replaced, const std::set<stdfs::path>& removing) {
    InstalledRows out;
    for (const auto* d : replaced) {
        if (!d->has_record) continue;
        auto rows = resolver::read_record(*d);
        if (!rows) continue;  // plan_removal reported it already
        for (auto& r : *rows) {
            if (r.hash_digest.empty()) continue;
            auto p = record_row_path(d->site_packages, r.path);
            if (removing.count(p)) out.emplace(std::move(p), std::move(r));
        }
    }
    return out;
}

InstalledContent installed_content(const std::vector<stdfs::path>& site_packages, const stdfs::path& root,
                                   const std::set<std::string>& canonical_names) {
    InstalledContent out;
    resolver::ReadInstalledOptions o;
    o.only = [&](std::string_view n) { return canonical_names.count(std::string(n)) > 0; };
    o.headers_only = true;
    o.egg_info = false;
    auto installed = resolver::read_installed(site_packages, o);
    if (!installed) return out;
    std::error_code ec;
    const auto inside = stdfs::absolute(root, ec).lexically_normal();
    for (const auto& d : installed->dists) {
        if (!d.has_record) continue;
        auto rows = resolver::read_record(d);
        if (!rows) continue;
        for (auto& r : *rows) {
            if (r.hash_digest.empty()) continue;
            auto p = record_row_path(d.site_packages, r.path);
            if (!path_under(p, inside, false)) continue;  // an untrusted RECORD points nowhere else
            auto key = r.hash_algorithm + "=" + r.hash_digest;
            out.by_hash.try_emplace(std::move(key), InstalledContent::File{std::move(p), std::move(r)});
        }
    }
    return out;
}

bool same_content(const resolver::RecordEntry& installed, const resolver::RecordEntry& wheel_row, uint64_t entry_size) {
    return !wheel_row.hash_digest.empty() && installed.hash_algorithm == wheel_row.hash_algorithm &&
           installed.hash_digest == wheel_row.hash_digest && (!installed.size || *installed.size == entry_size);
}

}  // namespace envfix::installer
