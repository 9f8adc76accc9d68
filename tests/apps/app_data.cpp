#include "app_data.hpp"

#include "envfix/resolver/matrix_loader.hpp"
#include "envfix/resolver/names.hpp"

namespace envfix::test::apps {

const resolver::AppCatalog& catalog() {
    static const resolver::AppCatalog c = *resolver::load_embedded_app_profiles();
    return c;
}

const resolver::Matrix& matrix() {
    static const resolver::Matrix m = *resolver::load_embedded_profiles();
    return m;
}

resolver::InstalledDist dist(const std::string& name, const std::string& version, std::vector<std::string> requires_dist) {
    resolver::InstalledDist d;
    d.name = name;
    d.canonical_name = resolver::canonicalize_name(name);
    d.version = version;
    d.parsed_version = resolver::Version::try_parse(version);
    d.metadata.name = name;
    d.metadata.version = version;
    d.metadata.requires_dist = std::move(requires_dist);
    return d;
}

}  // namespace envfix::test::apps
