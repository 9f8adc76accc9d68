#pragma once
// Values the app tests build by hand (tests/apps, tests/apply): the built-in app profiles and
// matrix, and an installed distribution as its dist-info would describe it.
#include <string>
#include <vector>

#include "envfix/apps/app_profiles.hpp"
#include "envfix/matrix/matrix.hpp"
#include "envfix/standards/installed.hpp"

namespace envfix::test::app_data {

const apps::AppCatalog& catalog();
const matrix::Matrix& builtin_matrix();
standards::InstalledDist dist(const std::string& name, const std::string& version, std::vector<std::string> requires_dist = {});

}  // namespace envfix::test::app_data
