// Parses profiles/apps/*.yaml into an AppCatalog, checking the schema (docs/apps.md) with
// file:line errors.
#include <algorithm>
#include <map>
#include <set>

#include "envfix/apps/app_profiles.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/matrix/yaml_schema.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::apps {

using matrix::detail::MapReader;
using matrix::detail::SchemaError;
using matrix::detail::YamlFile;

namespace {

namespace stdfs = std::filesystem;

platform::Os os_of(const matrix::detail::MapReader& r, const YAML::Node& n, std::string_view field) {
    std::string s = r.scalar(n, field);
    if (s == "linux") return platform::Os::Linux;
    if (s == "windows") return platform::Os::Windows;
    if (s == "macos") return platform::Os::MacOs;
    r.fail(n, "profiles.bad_choice", {{"field", std::string(field)}, {"value", s}, {"allowed", "linux, windows, macos"}});
}

std::vector<platform::Os> os_list(const matrix::detail::MapReader& r, std::string_view key) {
    std::vector<platform::Os> out;
    if (!r.has(key)) return out;
    for (const auto& n : r.list(key)) out.push_back(os_of(r, n, key));
    return out;
}

// Profile paths: relative, '/' separated, no backslash or drive; '*' only as a whole part (or,
// with `star_suffix`, at the end of the last part: "~/Downloads/ComfyUI_windows_portable*").
enum class PathKind { Relative, Place };
std::string path_of(const matrix::detail::MapReader& r, const YAML::Node& n, std::string_view field, PathKind kind,
                    bool star_part = false) {
    std::string s = r.scalar(n, field);
    auto bad = [&](const char* why) { r.fail(n, "apps.profile.bad_path", {{"field", std::string(field)}, {"value", s}, {"why", why}}); };
    if (s.find('\\') != std::string::npos) bad("use / between folders");
    const bool absolute = s.starts_with("/") || (s.size() > 1 && s[1] == ':');
    if (kind == PathKind::Relative && (absolute || s.starts_with("~"))) bad("it must be relative to the app folder");
    if (kind == PathKind::Place && !absolute && s != "~" && !s.starts_with("~/")) bad("it must start with ~/, / or a drive");
    auto parts = str::split(s, '/');
    for (size_t i = 0; i < parts.size(); ++i) {
        auto p = parts[i];
        if (p.find('*') == std::string_view::npos) continue;
        const bool whole = star_part && p == "*";
        const bool suffix = kind == PathKind::Place && i + 1 == parts.size() && p.find('*') == p.size() - 1;
        if (!whole && !suffix)
            bad(kind == PathKind::Place ? "'*' may only end the last part" : "'*' may only stand for a whole folder name");
    }
    return s;
}

std::vector<std::string> paths_of(const matrix::detail::MapReader& r, std::string_view key, PathKind kind, bool required = false) {
    std::vector<std::string> out;
    if (!required && !r.has(key)) return out;
    for (const auto& n : r.list(key)) out.push_back(path_of(r, n, key, kind));
    return out;
}

std::string package_of(const matrix::detail::MapReader& r, const YAML::Node& n, std::string_view field) {
    std::string s = r.scalar(n, field);
    if (!standards::is_valid_name(s)) r.fail(n, "apps.profile.bad_package", {{"field", std::string(field)}, {"value", s}});
    return standards::canonicalize_name(s);
}

std::vector<std::string> packages_of(const matrix::detail::MapReader& r, std::string_view key) {
    std::vector<std::string> out;
    if (!r.has(key)) return out;
    for (const auto& n : r.list(key)) out.push_back(package_of(r, n, key));
    return out;
}

// "{python}" is the one placeholder a start command may hold.
std::vector<std::string> start_of(const matrix::detail::MapReader& r) {
    std::vector<std::string> out;
    if (!r.has("start")) return out;
    for (const auto& n : r.list("start")) {
        std::string s = r.scalar(n, "start");
        std::string rest = str::replace_all(s, "{python}", "");
        if (rest.find('{') != std::string::npos || rest.find('}') != std::string::npos)
            r.fail(n, "apps.profile.bad_placeholder", {{"value", s}});
        out.push_back(std::move(s));
    }
    return out;
}

probe::AppLayoutSpec parse_layout(const matrix::detail::YamlFile& f, const YAML::Node& node, const std::string& app) {
    auto reader = [&](std::string where) {
        return matrix::detail::MapReader(
            f, node, std::move(where),
            {"name", "os", "markers", "absent", "venv_settings", "environments", "code", "pip", "start", "launcher"});
    };
    probe::AppLayoutSpec l;
    l.name = reader(app + "/layouts").text("name");
    matrix::detail::MapReader r = reader(app + "/layouts/" + l.name);
    l.os = os_list(r, "os");
    l.markers = paths_of(r, "markers", PathKind::Relative, true);
    // A layout without markers would claim every folder.
    if (l.markers.empty()) r.fail(r.get("markers"), "profiles.empty_list", {{"field", "markers"}});
    l.absent = paths_of(r, "absent", PathKind::Relative);
    for (const auto& n : r.optional_list("venv_settings")) {
        matrix::detail::MapReader s(f, n, r.where() + "/venv_settings", {"file", "key"});
        l.venv_settings.push_back({path_of(s, s.required("file"), "file", PathKind::Relative), s.text("key")});
    }
    l.environments = paths_of(r, "environments", PathKind::Relative, true);
    if (l.environments.empty()) r.fail(r.get("environments"), "profiles.empty_list", {{"field", "environments"}});
    if (r.has("code")) l.code = path_of(r, r.get("code"), "code", PathKind::Relative);
    if (auto pip = r.optional_text("pip")) {
        if (*pip != "present" && *pip != "may-be-missing")
            r.fail(r.get("pip"), "profiles.bad_choice", {{"field", "pip"}, {"value", *pip}, {"allowed", "present, may-be-missing"}});
        l.pip_may_be_missing = *pip == "may-be-missing";
    }
    l.start = start_of(r);
    if (r.has("launcher")) l.launcher = path_of(r, r.get("launcher"), "launcher", PathKind::Relative);
    return l;
}

void parse_framework(const matrix::detail::MapReader& top, const matrix::detail::YamlFile& f, AppProfile& p) {
    if (!top.has("framework")) return;
    matrix::detail::MapReader r(f, top.mapping("framework"), p.app.name + "/framework", {"packages", "optional", "torch", "torch_source"});
    p.packages = packages_of(r, "packages");
    p.optional = packages_of(r, "optional");
    if (auto t = r.optional_text("torch")) {
        if (!standards::SpecifierSet::parse(*t)) r.fail(r.get("torch"), "apps.profile.bad_specifier", {{"field", "torch"}, {"value", *t}});
        p.torch = *t;
        p.torch_source = r.text("torch_source");  // a range needs its source
    }
}

void parse_installer(const matrix::detail::MapReader& top, const matrix::detail::YamlFile& f, AppProfile& p) {
    if (!top.has("installer")) return;
    matrix::detail::MapReader r(f, top.mapping("installer"), p.app.name + "/installer", {"override_env", "when", "pins", "source"});
    AppInstaller in;
    in.override_env = r.optional_text("override_env").value_or("");
    in.when = r.text("when");
    in.source = r.text("source");
    for (const auto& kv : r.mapping("pins")) {
        AppInstallerPin pin;
        pin.package = package_of(r, kv.first, "pins");
        pin.version = r.scalar(kv.second, "pins");
        if (!standards::Version::try_parse(pin.version))
            r.fail(kv.second, "apps.profile.bad_version", {{"field", "pins"}, {"value", pin.version}});
        in.pins.push_back(std::move(pin));
    }
    p.installer = std::move(in);
}

void parse_requirements(const matrix::detail::MapReader& top, const matrix::detail::YamlFile& f, AppProfile& p) {
    for (const auto& n : top.optional_list("requirements")) {
        AppRequirementsFile rf;
        if (n.IsScalar()) {
            rf.path = path_of(top, n, "requirements", PathKind::Relative, true);
        } else {
            matrix::detail::MapReader r(f, n, p.app.name + "/requirements", {"path", "os"});
            rf.path = path_of(r, r.required("path"), "path", PathKind::Relative, true);
            rf.os = os_list(r, "os");
        }
        p.requirements.push_back(std::move(rf));
    }
}

void parse_places(const matrix::detail::MapReader& top, const matrix::detail::YamlFile& f, AppProfile& p) {
    if (!top.has("places")) return;
    matrix::detail::MapReader r(f, top.mapping("places"), p.app.name + "/places", {"linux", "windows", "macos"});
    for (auto [key, os] :
         {std::pair{"linux", platform::Os::Linux}, std::pair{"windows", platform::Os::Windows}, std::pair{"macos", platform::Os::MacOs}})
        for (auto& path : paths_of(r, key, PathKind::Place)) p.app.places.push_back({os, std::move(path)});
}

bool valid_app_name(std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'; });
}

AppProfile parse_app(const matrix::detail::YamlFile& f, const std::string& file_name) {
    matrix::detail::MapReader top =
        matrix::detail::open_profile(f, {"schema_version", "name", "display", "aliases", "summary", "homepage", "layouts", "places",
                                         "framework", "installer", "requirements", "distributions"});
    AppProfile p;
    p.file = f.display();
    p.app.name = top.text("name");
    if (!valid_app_name(p.app.name)) top.fail(top.get("name"), "apps.profile.bad_name", {{"value", p.app.name}});
    // One app per file, named after it: comfyui.yaml holds comfyui.
    if (stdfs::path(file_name).stem().string() != p.app.name)
        top.fail(top.get("name"), "apps.profile.name_mismatch",
                 {{"value", p.app.name}, {"expected", stdfs::path(file_name).stem().string()}});
    p.app.display = top.text("display");
    if (top.has("aliases"))
        for (const auto& n : top.list("aliases")) {
            std::string a = str::lower(top.scalar(n, "aliases"));
            if (!valid_app_name(a)) top.fail(n, "apps.profile.bad_name", {{"value", a}});
            p.app.aliases.push_back(std::move(a));
        }
    p.summary = top.text("summary");
    p.homepage = top.text("homepage");
    std::set<std::string> layout_names;
    for (const auto& n : top.list("layouts")) {
        auto l = parse_layout(f, n, p.app.name);
        if (!layout_names.insert(l.name).second) f.fail(n, "profiles.duplicate", {{"where", p.app.name + "/layouts"}, {"value", l.name}});
        p.app.layouts.push_back(std::move(l));
    }
    if (p.app.layouts.empty()) top.fail(top.get("layouts"), "profiles.empty_list", {{"field", "layouts"}});
    parse_places(top, f, p);
    parse_framework(top, f, p);
    parse_installer(top, f, p);
    parse_requirements(top, f, p);
    p.distributions = packages_of(top, "distributions");
    return p;
}

}  // namespace

Expected<AppCatalog> parse_app_profiles(const std::vector<matrix::ProfileText>& files) {
    AppCatalog c;
    // Every name and alias answers to one app.
    std::map<std::string, std::string> owner;
    try {
        for (const auto& t : files) {
            matrix::detail::YamlFile f(t.display, t.text);
            auto p = parse_app(f, t.name);
            std::vector<std::string> names = p.app.aliases;
            names.insert(names.begin(), p.app.name);
            for (const auto& n : names) {
                auto [it, fresh] = owner.emplace(n, p.app.name);
                if (!fresh && it->second != p.app.name)
                    f.fail(f.root()["name"], "apps.profile.name_taken", {{"value", n}, {"other", it->second}});
            }
            c.apps.push_back(std::move(p));
        }
    } catch (const matrix::detail::SchemaError& e) {
        return unexpected(e.error);
    } catch (const YAML::Exception& e) {
        return fail(ExitCode::ProfileInvalid, "profiles.yaml_syntax",
                    {{"file", "profiles/apps"}, {"line", std::to_string(e.mark.line + 1)}, {"detail", e.msg}});
    }
    return c;
}

Expected<std::vector<matrix::ProfileText>> read_app_profile_texts(const stdfs::path& profiles_dir) {
    const auto dir = profiles_dir / "apps";
    std::error_code ec;
    std::vector<stdfs::path> paths;
    for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec))
        if (it->path().extension() == ".yaml") paths.push_back(it->path());
    if (ec) return fail(ExitCode::BadInput, "profiles.missing_file", {{"file", dir.string()}});
    std::sort(paths.begin(), paths.end());
    std::vector<matrix::ProfileText> out;
    for (const auto& p : paths) {
        auto text = fs::read_file(p);
        if (!text) return fail(ExitCode::BadInput, "profiles.missing_file", {{"file", p.string()}});
        out.push_back({p.filename().string(), p.string(), std::move(*text)});
    }
    return out;
}

Expected<AppCatalog> load_app_profiles_dir(const stdfs::path& profiles_dir) {
    ENVFIX_TRY(auto texts, read_app_profile_texts(profiles_dir));
    return parse_app_profiles(texts);
}

Expected<AppCatalog> load_app_profiles(const std::optional<stdfs::path>& dir) {
    if (dir) return load_app_profiles_dir(*dir);
    if (auto env_dir = env::get(EnvVar::EnvfixProfilesDir)) return load_app_profiles_dir(*env_dir);
    return load_embedded_app_profiles();
}

}  // namespace envfix::apps
