#include "app_data.hpp"

#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::test::app_data {

const apps::AppCatalog& catalog() {
    static const apps::AppCatalog c = *apps::load_embedded_app_profiles();
    return c;
}

const matrix::Matrix& builtin_matrix() {
    static const matrix::Matrix m = *matrix::load_embedded_profiles();
    return m;
}

standards::InstalledDist dist(const std::string& name, const std::string& version, std::vector<std::string> requires_dist) {
    standards::InstalledDist d;
    d.name = name;
    d.canonical_name = standards::canonicalize_name(name);
    d.version = version;
    d.parsed_version = standards::Version::try_parse(version);
    d.metadata.name = name;
    d.metadata.version = version;
    d.metadata.requires_dist = std::move(requires_dist);
    return d;
}

}  // namespace envfix::test::app_data
