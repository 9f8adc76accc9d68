// The torch-dependents cache file:
//   {"version": 1, "entries": {"<absolute site-packages>": {"state": "...", "walk": ["legacy_ops"],
//                                                          "listed": [["<absolute path>", "package"]]}}}
#include "envfix/probe/dependents_cache.hpp"

#include <nlohmann/json.hpp>

#include "cache_file.hpp"
#include "envfix/common/fs.hpp"

namespace envfix::probe {

namespace {
using Json = nlohmann::json;
constexpr const char* kStamp = "state";

DependentLibraries from_entry(const Json& e) {
    DependentLibraries found;
    for (const auto& w : e.at("walk")) found.walk.push_back(w.get<std::string>());
    for (const auto& l : e.at("listed"))
        found.listed.push_back({std::filesystem::path(l.at(0).get<std::string>()), l.at(1).get<std::string>()});
    return found;
}

Json to_entry(const DependentLibraries& found) {
    Json walk = Json::array(), listed = Json::array();
    for (const auto& w : found.walk) walk.push_back(w);
    for (const auto& l : found.listed) listed.push_back({l.path.string(), l.package});
    return {{"walk", walk}, {"listed", listed}};
}
}  // namespace

struct DependentsCache::Impl : StampedEntries<DependentLibraries> {};

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
    c.impl_->load(file, kVersion, kStamp, from_entry);
    return c;
}

std::optional<DependentLibraries> DependentsCache::find(const std::filesystem::path& site_packages, std::string_view state) const {
    return impl_->find(site_packages, state);
}

void DependentsCache::put(const std::filesystem::path& site_packages, std::string state, DependentLibraries found) {
    impl_->put(site_packages, std::move(state), std::move(found));
}

size_t DependentsCache::size() const { return impl_->size(); }

Expected<void> DependentsCache::save() { return impl_->save(kVersion, kStamp, to_entry); }

}  // namespace envfix::probe
