// Installed files a switch can keep (keep_links.hpp).
#include "keep_links.hpp"

#include "envfix/installer/uninstall.hpp"

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

bool same_content(const resolver::RecordEntry& installed, const resolver::RecordEntry& wheel_row, uint64_t entry_size) {
    return !wheel_row.hash_digest.empty() && installed.hash_algorithm == wheel_row.hash_algorithm &&
           installed.hash_digest == wheel_row.hash_digest && (!installed.size || *installed.size == entry_size);
}

}  // namespace envfix::installer
