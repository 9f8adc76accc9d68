#pragma once
// The reference implementation for differential tests: pip's vendored `packaging`, run by
// tests/standards/packaging_reference.py in a real venv that the tests create once and reuse.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace envfix::test {

// Interpreters on this machine: Debian's python3 first, then pyenv's 3.x (newest last).
std::vector<std::filesystem::path> machine_pythons();

// The venv's python for the differential tests, made from the newest interpreter on the
// machine (its pip vendors the newest packaging); kept under the build tree between runs.
std::filesystem::path reference_venv_python();

// The interpreter's facts and sys_tags() (packaging_reference.py --facts), run by the
// interpreter itself when pip is installed in it, else by a cached venv made from it. nullopt
// when neither can import pip's vendored packaging.tags (Python 3.6's pip 18).
std::optional<nlohmann::json> interpreter_facts_with_pip(const std::filesystem::path& python);

// Runs packaging_reference.py with the request; the parsed answer ("packaging" = its version).
nlohmann::json ask_reference(const nlohmann::json& request, const std::filesystem::path& python = reference_venv_python());

// "24.1" -> 24
int packaging_major(const nlohmann::json& answer);

}  // namespace envfix::test
