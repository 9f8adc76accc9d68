// The torch-dependents cache file:
//   {"version": 1, "entries": {"<absolute site-packages>": {"state": "...", "walk": ["legacy_ops"],
//                                                          "listed": [["<absolute path>", "package"]]}}}
#include "envfix/probe/dependents_cache.hpp"

#include <nlohmann/json.hpp>

#include <map>

#include "cache_file.hpp"
#include "envfix/common/fs.hpp"

namespace envfix::probe {

namespace {
using Json = nlohmann::json;

struct Entry {
    std::string state;
    DependentLibraries found;
};
}  // namespace

struct DependentsCache::Impl {
    std::filesystem::path file;  // empty: in memory only
    std::map<std::string, Entry> entries;
    bool dirty = false;
};

DependentsCache::DependentsCache() : impl_(std::make_unique<Impl>()) {}
DependentsCache::DependentsCache(DependentsCache&&) noexcept = default;
DependentsCache& DependentsCache::operator=(DependentsCache&&) noexcept = default;
DependentsCache::~DependentsCache() = default;

std::filesystem::path DependentsCache::default_path() {
    return fs::cache_dir() / ("torch-dependents-v" + std::to_string(kVersion) + ".json");
}

DependentsCache DependentsCache::in_memory() { return DependentsCache(); }

DependentsCache DependentsCache::load(const std::filesystem::path& file) {
    DependentsCache c;
    c.impl_->file = file;
    auto entries = read_cache_entries(file, kVersion);
    if (!entries) return c;
    try {  // a cache that cannot be read is rebuilt, never an error
        for (const auto& [folder, e] : entries->items()) {
            Entry entry{e.at("state").get<std::string>(), {}};
            for (const auto& w : e.at("walk")) entry.found.walk.push_back(w.get<std::string>());
            for (const auto& l : e.at("listed"))
                entry.found.listed.push_back({std::filesystem::path(l.at(0).get<std::string>()), l.at(1).get<std::string>()});
            c.impl_->entries[folder] = std::move(entry);
        }
    } catch (const std::exception&) {
        c.impl_->entries.clear();
    }
    return c;
}

std::optional<DependentLibraries> DependentsCache::find(const std::filesystem::path& site_packages, std::string_view state) const {
    auto it = impl_->entries.find(cache_key(site_packages));
    if (it == impl_->entries.end() || it->second.state != state) return std::nullopt;
    return it->second.found;
}

void DependentsCache::put(const std::filesystem::path& site_packages, std::string state, DependentLibraries found) {
    impl_->entries[cache_key(site_packages)] = Entry{std::move(state), std::move(found)};
    impl_->dirty = true;
}

size_t DependentsCache::size() const { return impl_->entries.size(); }

Expected<void> DependentsCache::save() {
    if (!impl_->dirty || impl_->file.empty()) return {};
    Json entries = Json::object();
    for (const auto& [folder, e] : impl_->entries) {
        std::error_code ec;
        if (!std::filesystem::exists(folder, ec)) continue;
        Json walk = Json::array(), listed = Json::array();
        for (const auto& w : e.found.walk) walk.push_back(w);
        for (const auto& l : e.found.listed) listed.push_back({l.path.string(), l.package});
        entries[folder] = {{"state", e.state}, {"walk", walk}, {"listed", listed}};
    }
    ENVFIX_TRY_VOID(write_cache_entries(impl_->file, kVersion, std::move(entries)));
    impl_->dirty = false;
    return {};
}

}  // namespace envfix::probe
