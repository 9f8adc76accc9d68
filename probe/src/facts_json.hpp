#pragma once
// PythonFacts <-> JSON, shared by the interpreter script's output and the facts cache (same
// field names as PythonFacts). Only the two .cpp files that need JSON include this header.
#include <nlohmann/json.hpp>

#include "envfix/probe/python_facts.hpp"

namespace envfix::probe {

nlohmann::json facts_to_json(const PythonFacts& f);
// Throws nlohmann::json::exception on a wrong type; absent fields keep their defaults.
PythonFacts facts_from_json(const nlohmann::json& j);

}  // namespace envfix::probe
