#include "facts_json.hpp"

namespace envfix::probe {

namespace {
using Json = nlohmann::json;

// One table of the string fields, so the two directions cannot drift apart.
struct StringField {
    const char* name;
    std::string PythonFacts::*member;
};
constexpr StringField kStrings[] = {
    {"executable", &PythonFacts::executable},
    {"version", &PythonFacts::version},
    {"implementation_name", &PythonFacts::implementation_name},
    {"implementation_version", &PythonFacts::implementation_version},
    {"platform_python_implementation", &PythonFacts::platform_python_implementation},
    {"abiflags", &PythonFacts::abiflags},
    {"soabi", &PythonFacts::soabi},
    {"ext_suffix", &PythonFacts::ext_suffix},
    {"sys_platform", &PythonFacts::sys_platform},
    {"os_name", &PythonFacts::os_name},
    {"platform_system", &PythonFacts::platform_system},
    {"platform_machine", &PythonFacts::platform_machine},
    {"platform_release", &PythonFacts::platform_release},
    {"platform_version", &PythonFacts::platform_version},
    {"sysconfig_platform", &PythonFacts::sysconfig_platform},
    {"prefix", &PythonFacts::prefix},
    {"base_prefix", &PythonFacts::base_prefix},
    {"purelib", &PythonFacts::purelib},
    {"platlib", &PythonFacts::platlib},
    {"scripts", &PythonFacts::scripts},
    {"data", &PythonFacts::data},
    {"include", &PythonFacts::include},
    {"user_site", &PythonFacts::user_site},
};
struct BoolField {
    const char* name;
    bool PythonFacts::*member;
};
constexpr BoolField kBools[] = {
    {"free_threaded", &PythonFacts::free_threaded},
    {"site_enabled", &PythonFacts::site_enabled},
    {"user_site_enabled", &PythonFacts::user_site_enabled},
    {"ran", &PythonFacts::ran},
};

Json pair_to_json(const std::optional<std::pair<int, int>>& v) {
    return v ? Json::array({v->first, v->second}) : Json(nullptr);
}
std::optional<std::pair<int, int>> pair_from_json(const Json& j) {
    if (!j.is_array() || j.size() < 2) return std::nullopt;
    return std::make_pair(j.at(0).get<int>(), j.at(1).get<int>());
}
}  // namespace

Json facts_to_json(const PythonFacts& f) {
    Json j = Json::object();
    for (const auto& s : kStrings) j[s.name] = f.*s.member;
    for (const auto& b : kBools) j[b.name] = f.*b.member;
    j["major"] = f.major;
    j["minor"] = f.minor;
    j["glibc"] = pair_to_json(f.glibc);
    j["musl"] = pair_to_json(f.musl);
    j["site_packages"] = f.site_packages;
    j["unknown"] = f.unknown;
    return j;
}

PythonFacts facts_from_json(const Json& j) {
    PythonFacts f;
    for (const auto& s : kStrings)
        if (j.contains(s.name) && !j[s.name].is_null()) f.*s.member = j[s.name].get<std::string>();
    for (const auto& b : kBools)
        if (j.contains(b.name)) f.*b.member = j[b.name].get<bool>();
    f.major = j.value("major", 0);
    f.minor = j.value("minor", 0);
    if (j.contains("glibc")) f.glibc = pair_from_json(j["glibc"]);
    if (j.contains("musl")) f.musl = pair_from_json(j["musl"]);
    if (j.contains("site_packages")) f.site_packages = j["site_packages"].get<std::vector<std::string>>();
    if (j.contains("unknown")) f.unknown = j["unknown"].get<std::vector<std::string>>();
    return f;
}

}  // namespace envfix::probe
