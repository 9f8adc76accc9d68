#pragma once
// Values the app tests build by hand (tests/apps, tests/apply): the built-in app profiles and
// matrix, and an installed distribution as its dist-info would describe it.
#include <string>
#include <vector>

#include "envfix/resolver/app_profiles.hpp"
#include "envfix/resolver/installed.hpp"
#include "envfix/resolver/matrix.hpp"

namespace envfix::test::apps {

const resolver::AppCatalog& catalog();
const resolver::Matrix& matrix();
resolver::InstalledDist dist(const std::string& name, const std::string& version, std::vector<std::string> requires_dist = {});

}  // namespace envfix::test::apps
