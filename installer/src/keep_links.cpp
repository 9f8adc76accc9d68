// Installed files a switch can keep (keep_links.hpp), and the same by hash for the entries made
// while downloading (installed_content, unpacked_cache.hpp).
#include "keep_links.hpp"

#include "envfix/common/hash.hpp"
#include "envfix/installer/uninstall.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "path_under.hpp"
#include "record_hash.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

std::vector<bool> unchanged_in_place(const InstalledRows& installed, const std::vector<WantedFile>& wanted, const stdfs::path& root,
                                     const KnownFiles& known) {
    std::vector<bool> out(wanted.size(), false);
    for (size_t i = 0; i < wanted.size(); ++i) {
        const auto& w = wanted[i];
        if (!installed.count(*w.dest) || w.row->hash_algorithm != "sha256") continue;
        auto it = known.find(relative_generic_text(*w.dest, root));
        if (it == known.end()) continue;
        const SnapshotFile& f = *it->second;
        if (f.size != w.size || ((f.mode & 0111) != 0) != w.executable || !(f.mode & 0200)) continue;
        out[i] = record_hex(w.row->hash_digest) == f.sha256;
    }
    return out;
}

bool bytecode_of(const stdfs::path& p, const std::unordered_set<stdfs::path::string_type>& sources) {
    if (!ends_with_ascii(p.native(), ".pyc")) return false;
    auto dir = p.parent_path();
    if (dir.filename() == "__pycache__") {
        auto name = p.filename().string();  // mod.cpython-312.pyc, mod.cpython-312.opt-1.pyc
        auto dot = name.find('.');
        return sources.count((dir.parent_path() / (name.substr(0, dot) + ".py")).native()) > 0;
    }
    auto source = p;
    return sources.count(source.replace_extension(".py").native()) > 0;
}

InstalledContent installed_content(const std::vector<stdfs::path>& site_packages, const stdfs::path& root,
                                   const std::set<std::string>& canonical_names) {
    InstalledContent out;
    standards::ReadInstalledOptions o;
    o.only = [&](std::string_view n) { return canonical_names.count(std::string(n)) > 0; };
    o.headers_only = true;
    o.egg_info = false;
    auto installed = standards::read_installed(site_packages, o);
    if (!installed) return out;
    std::error_code ec;
    const auto inside = stdfs::absolute(root, ec).lexically_normal();
    for (const auto& d : installed->dists) {
        if (!d.has_record) continue;
        auto rows = standards::read_record(d);
        if (!rows) continue;
        for (auto& r : *rows) {
            if (r.hash_digest.empty()) continue;
            auto p = record_row_text(d.site_packages, r.path);
            if (!text_under(p, inside.native(), false)) continue;  // an untrusted RECORD points nowhere else
            auto key = r.hash_algorithm + "=" + r.hash_digest;
            out.by_hash.try_emplace(std::move(key), InstalledContent::File{std::move(p), std::move(r)});
        }
    }
    return out;
}

bool same_content(const standards::RecordEntry& installed, const standards::RecordEntry& wheel_row, uint64_t entry_size) {
    return !wheel_row.hash_digest.empty() && installed.hash_algorithm == wheel_row.hash_algorithm &&
           installed.hash_digest == wheel_row.hash_digest && (!installed.size || *installed.size == entry_size);
}

}  // namespace envfix::installer
