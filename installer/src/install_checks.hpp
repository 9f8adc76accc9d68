#pragma once
// The checks install() makes before touching an environment (private to installer/).
#include <map>
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/wheel.hpp"
#include "envfix/probe/environment.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/tags.hpp"

namespace envfix::installer {

// Tags (IncompatibleWheel, "install.incompatible_wheel") and Requires-Python
// ("install.requires_python") against the target interpreter.
Expected<void> check_compatible(const WheelFile& wheel, const probe::PythonFacts& facts, const standards::SupportedTags& supported);

// PEP 668: a system Python whose stdlib holds EXTERNALLY-MANAGED (PermissionDenied,
// "install.externally_managed").
Expected<void> check_not_externally_managed(const probe::Environment& env);

// Requires-Dist of each new distribution against what the environment will hold afterwards
// (name -> version, canonical names). Requirements whose marker does not apply are skipped.
std::vector<UnmetRequirement> unmet_requirements(const std::vector<const standards::CoreMetadata*>& new_dists,
                                                 const std::map<std::string, std::string>& final_versions, const probe::PythonFacts& facts,
                                                 std::vector<Message>& warnings);

}  // namespace envfix::installer
