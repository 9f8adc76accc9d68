#include "env_json.hpp"

namespace envfix::cli {

Json python_facts_json(const probe::PythonFacts& f) {
    Json j = Json::object();
    for (const auto& s : probe::python_facts_string_fields()) j[std::string(s.name)] = f.*s.member;
    j["major"] = f.major;
    j["minor"] = f.minor;
    auto pair = [](const auto& v) { return v ? Json::array({v->first, v->second}) : Json(nullptr); };
    j["glibc"] = pair(f.glibc);
    j["musl"] = pair(f.musl);
    j["site_packages"] = f.site_packages;
    for (const auto& b : probe::python_facts_bool_fields()) j[std::string(b.name)] = f.*b.member;
    j["unknown"] = f.unknown;
    return j;
}

Json environment_json(const probe::Environment& env) {
    Json sp = Json::array(), notes = Json::array();
    for (const auto& p : env.site_packages) sp.push_back(p.string());
    for (const auto& n : env.notes) notes.push_back(t(n));
    return {{"kind", std::string(probe::env_kind_name(env.kind))},
            {"root", env.root.string()},
            {"interpreter", env.interpreter.string()},
            {"layout_os", std::string(probe::layout_os_name(env.layout_os))},
            {"found_as", std::string(probe::env_origin_name(env.origin))},
            {"app", env.app.empty() ? Json(nullptr) : Json(env.app)},
            {"app_path", env.app_path.empty() ? Json(nullptr) : Json(env.app_path.string())},
            {"status", std::string(probe::env_status_name(env.status))},
            {"problem", env.problem ? error_json(*env.problem) : Json(nullptr)},
            {"site_packages", sp},
            {"notes", notes},
            {"python", python_facts_json(env.facts)}};
}

Json binary_archs_json(const probe::BinaryArchs& a) {
    Json sass = Json::array(), ptx = Json::array(), problems = Json::array();
    for (const auto& s : a.sass)
        sass.push_back({{"arch", s.arch.sm_tag()}, {"cubins", s.cubins}, {"containers", s.containers}, {"primary", s.primary}});
    for (const auto& p : a.ptx)
        ptx.push_back({{"arch", p.arch.compute_tag()}, {"isa", p.isa.to_string()}, {"entries", p.entries},
                       {"containers", p.containers}, {"primary", p.primary}});
    for (const auto& m : a.problems) problems.push_back(t(m));
    return {{"format", std::string(probe::binary_format_name(a.format))},
            {"arch_list", a.arch_list()},
            {"containers", a.containers},
            {"code_containers", a.code_containers},
            {"relocatable_containers", a.relocatable_containers},
            {"cubins", a.cubins},
            {"ptx_entries", a.ptx_entries},
            {"other_entries", a.other_entries},
            {"compression", {{"lz4", a.lz4_entries}, {"zstd", a.zstd_entries}}},
            {"sass", sass},
            {"ptx", ptx},
            {"scanned", a.scanned},
            {"partial", a.partial},
            {"problems", problems}};
}

std::string python_cell(const probe::Environment& e) {
    const auto& f = e.facts;
    if (!f.version.empty()) return f.version;
    if (f.major > 0) return std::to_string(f.major) + "." + std::to_string(f.minor);
    return "?";
}

std::string status_cell(const probe::Environment& e) {
    switch (e.status) {
        case probe::EnvStatus::Ok: return t(msg("envs.status.ok"));
        case probe::EnvStatus::FilesOnly:
            return t(msg("envs.status.files_only", {{"os", std::string(probe::layout_os_name(e.layout_os))}}));
        case probe::EnvStatus::Broken: return t(msg("envs.status.broken"));
    }
    return "";
}

}  // namespace envfix::cli
