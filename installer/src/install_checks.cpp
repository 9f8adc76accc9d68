// Compatibility, PEP 668 and dependency checks (install_checks.hpp).
#include "install_checks.hpp"

#include "envfix/common/strings.hpp"
#include "envfix/standards/marker.hpp"
#include "envfix/standards/requirement.hpp"
#include "envfix/standards/specifier.hpp"
#include "envfix/standards/tags.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

std::string interpreter_text(const probe::PythonFacts& f) {
    auto plats = standards::platform_tags(f);
    return standards::interpreter_tag(f) + " (" + (f.implementation_name.empty() ? "python" : f.implementation_name) + " " + f.version +
           ", " + (plats.empty() ? f.sysconfig_platform : plats.front()) + ")";
}

}  // namespace

Expected<void> check_compatible(const WheelFile& wheel, const probe::PythonFacts& facts, const standards::SupportedTags& supported) {
    if (!supported.supports(wheel.name.tags))
        return fail(ExitCode::IncompatibleWheel, "install.incompatible_wheel",
                    {{"file", wheel.source()}, {"tags", wheel.name.tag_text}, {"python", interpreter_text(facts)}});
    const auto& rp = wheel.metadata.requires_python;
    if (!str::trim(rp).empty()) {
        auto spec = standards::SpecifierSet::parse(rp);
        auto version = standards::Version::try_parse(facts.version);
        if (spec && version && !spec->contains(*version, true))
            return fail(ExitCode::IncompatibleWheel, "install.requires_python",
                        {{"file", wheel.source()}, {"requires", std::string(str::trim(rp))}, {"python", facts.version}});
    }
    return {};
}

Expected<void> check_not_externally_managed(const probe::Environment& env) {
    if (env.kind != probe::EnvKind::System) return {};
    const auto& f = env.facts;
    std::string xy = std::to_string(f.major) + "." + std::to_string(f.minor);
    stdfs::path base = f.base_prefix.empty() ? stdfs::path(f.prefix) : stdfs::path(f.base_prefix);
    for (const auto& stdlib : {base / "lib" / ("python" + xy), base / "Lib"}) {
        std::error_code ec;
        if (stdfs::exists(stdlib / "EXTERNALLY-MANAGED", ec))
            return fail(ExitCode::PermissionDenied, "install.externally_managed",
                        {{"python", env.interpreter.string()}, {"marker", (stdlib / "EXTERNALLY-MANAGED").string()}});
    }
    return {};
}

std::vector<UnmetRequirement> unmet_requirements(const std::vector<const standards::CoreMetadata*>& new_dists,
                                                 const std::map<std::string, std::string>& final_versions, const probe::PythonFacts& facts,
                                                 std::vector<Message>& warnings) {
    std::vector<UnmetRequirement> out;
    auto menv = standards::marker_environment(facts);
    for (const auto* md : new_dists) {
        for (const auto& text : md->requires_dist) {
            auto req = standards::Requirement::parse(text);
            if (!req) {
                warnings.push_back(msg("install.bad_requirement", {{"name", md->name}, {"requirement", text}}));
                continue;
            }
            auto applies = req->applies(menv);
            if (!applies || !*applies) continue;
            auto it = final_versions.find(req->canonical_name());
            if (it == final_versions.end()) {
                out.push_back({md->name, text, ""});
                continue;
            }
            auto v = standards::Version::try_parse(it->second);
            if (!req->specifier.empty() && (!v || !req->specifier.contains(*v, true)))
                out.push_back({md->name, text, it->second});
        }
    }
    return out;
}

}  // namespace envfix::installer
