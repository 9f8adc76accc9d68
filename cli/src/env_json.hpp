#pragma once
// JSON of the probe's environment values, shared by the commands that print them (envs,
// archs; doctor later). docs/json.md describes the shapes.
#include "envfix/probe/binary_archs.hpp"
#include "envfix/probe/environment.hpp"
#include "output.hpp"

namespace envfix::cli {

Json python_facts_json(const probe::PythonFacts& f);
Json environment_json(const probe::Environment& env);
Json binary_archs_json(const probe::BinaryArchs& a);

// Table cells: "3.12.3" (or "3.12" from files, "?"), and "ok" / "files only (windows layout)" / "broken".
std::string python_cell(const probe::Environment& e);
std::string status_cell(const probe::Environment& e);

}  // namespace envfix::cli
