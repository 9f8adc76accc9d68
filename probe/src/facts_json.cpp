#include "facts_json.hpp"

namespace envfix::probe {

namespace {
using Json = nlohmann::json;

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
    for (const auto& s : python_facts_string_fields()) j[std::string(s.name)] = f.*s.member;
    for (const auto& b : python_facts_bool_fields()) j[std::string(b.name)] = f.*b.member;
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
    for (const auto& s : python_facts_string_fields()) {
        auto it = j.find(s.name);
        if (it != j.end() && !it->is_null()) f.*s.member = it->get<std::string>();
    }
    for (const auto& b : python_facts_bool_fields()) {
        auto it = j.find(b.name);
        if (it != j.end()) f.*b.member = it->get<bool>();
    }
    f.major = j.value("major", 0);
    f.minor = j.value("minor", 0);
    if (j.contains("glibc")) f.glibc = pair_from_json(j["glibc"]);
    if (j.contains("musl")) f.musl = pair_from_json(j["musl"]);
    if (j.contains("site_packages")) f.site_packages = j["site_packages"].get<std::vector<std::string>>();
    if (j.contains("unknown")) f.unknown = j["unknown"].get<std::vector<std::string>>();
    return f;
}

}  // namespace envfix::probe
