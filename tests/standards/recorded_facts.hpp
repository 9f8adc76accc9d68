#pragma once
// Interpreter facts as packaging_reference.py --facts prints them (this machine's interpreters at
// test time, other machines' recorded in data/interpreters/), turned into probe::PythonFacts.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "envfix/probe/python_facts.hpp"

namespace envfix::test {

inline probe::PythonFacts facts_from_json(const nlohmann::json& j) {
    probe::PythonFacts f;
    f.version = j["version"];
    f.major = j["major"];
    f.minor = j["minor"];
    f.implementation_name = j["implementation_name"];
    f.implementation_version = j["implementation_version"];
    f.platform_python_implementation = j["platform_python_implementation"];
    f.abiflags = j["abiflags"];
    f.free_threaded = j["free_threaded"];
    f.soabi = j["soabi"];
    f.ext_suffix = j["ext_suffix"];
    f.sys_platform = j["sys_platform"];
    f.os_name = j["os_name"];
    f.platform_system = j["platform_system"];
    f.platform_machine = j["platform_machine"];
    f.platform_release = j["platform_release"];
    f.platform_version = j["platform_version"];
    f.sysconfig_platform = j["sysconfig_platform"];
    if (j["glibc"].is_array()) f.glibc = std::pair<int, int>{j["glibc"][0], j["glibc"][1]};
    return f;
}

// packaging < 22 (pip 23.0's) has no "cpXY-none-any" / "pp3-none-any": drop them from ours.
inline void as_packaging_before_22(std::vector<std::string>& tags) {
    std::erase_if(tags,
                  [](const std::string& t) { return t.size() > 9 && t.substr(t.size() - 9) == "-none-any" && t.rfind("py", 0) != 0; });
}

}  // namespace envfix::test
