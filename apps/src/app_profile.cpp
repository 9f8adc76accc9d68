// Lookups over the app profiles.
#include "envfix/apps/app_profile.hpp"

namespace envfix::apps {

standards::SpecifierSet AppProfile::torch_range() const {
    if (torch.empty()) return {};
    auto set = standards::SpecifierSet::parse(torch);
    return set ? *set : standards::SpecifierSet{};  // checked at load; a damaged snapshot reads as "no range"
}

const AppProfile* AppCatalog::find(std::string_view name) const {
    for (const auto& a : apps)
        if (a.app.answers_to(name)) return &a;
    return nullptr;
}

const AppProfile* AppCatalog::of(const probe::AppSignature* sig) const { return sig ? find(sig->name) : nullptr; }

std::vector<probe::AppSignature> AppCatalog::signatures() const {
    std::vector<probe::AppSignature> out;
    out.reserve(apps.size());
    for (const auto& a : apps) out.push_back(a.app);
    return out;
}

std::vector<std::string> AppCatalog::names() const {
    std::vector<std::string> out;
    for (const auto& a : apps) out.push_back(a.app.name);
    return out;
}

}  // namespace envfix::apps
