// Which app a command works on, and its constraint check with the files read (app_target.hpp).
#include "envfix/apps/app_target.hpp"

#include <algorithm>

#include "envfix/common/strings.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::apps {

namespace stdfs = std::filesystem;

namespace {

const probe::AppLayoutSpec* layout_named(const AppProfile& p, const std::string& name) {
    for (const auto& l : p.app.layouts)
        if (l.name == name) return &l;
    return nullptr;
}

// The layout whose environment folder `env` is: where a folder lacks some of its layout's files, the
// environment found in it still says how the app is laid out (python_embeded/: the portable
// package, with the code and its requirement files in ComfyUI/). nullptr when none names it.
const probe::AppLayoutSpec* layout_of_environment(const AppProfile& p, const stdfs::path& folder, const probe::Environment& env) {
    std::error_code ec;
    for (const auto& l : p.app.layouts)
        for (const auto& dir : l.environments)
            if (stdfs::equivalent(probe::profile_path(folder, dir), env.root, ec)) return &l;
    return nullptr;
}

std::string listing(const std::vector<FoundApp>& found) {
    std::vector<std::string> parts;
    for (const auto& f : found) parts.push_back(std::string(f.profile->display()) + " (" + f.folder.string() + ")");
    return str::join(parts, ", ");
}

// "custom_nodes/*/requirements.txt" below `dir`: every match, sorted.
void expand_glob(const stdfs::path& dir, const std::vector<std::string_view>& parts, size_t i, std::vector<stdfs::path>& out) {
    if (i == parts.size()) {
        std::error_code ec;
        if (stdfs::is_regular_file(dir, ec)) out.push_back(dir);
        return;
    }
    if (parts[i] != "*") {
        expand_glob(parts[i].empty() || parts[i] == "." ? dir : dir / std::string(parts[i]), parts, i + 1, out);
        return;
    }
    std::vector<stdfs::path> subdirs;
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        std::error_code dec;
        if (it->is_directory(dec)) subdirs.push_back(it->path());
    }
    std::sort(subdirs.begin(), subdirs.end());
    for (const auto& d : subdirs) expand_glob(d, parts, i + 1, out);
}

// Marker variables a files-only environment does not know (PythonFacts::unknown names them).
std::vector<standards::MarkerVariable> unknown_marker_variables(const probe::PythonFacts& f) {
    std::vector<standards::MarkerVariable> out;
    auto unknown = [&](std::string_view field) { return std::find(f.unknown.begin(), f.unknown.end(), field) != f.unknown.end(); };
    for (auto v : {standards::MarkerVariable::PythonVersion, standards::MarkerVariable::PythonFullVersion,
                   standards::MarkerVariable::OsName, standards::MarkerVariable::SysPlatform, standards::MarkerVariable::PlatformRelease,
                   standards::MarkerVariable::PlatformSystem, standards::MarkerVariable::PlatformVersion,
                   standards::MarkerVariable::PlatformMachine, standards::MarkerVariable::PlatformPythonImplementation,
                   standards::MarkerVariable::ImplementationName, standards::MarkerVariable::ImplementationVersion}) {
        bool missing = false;
        switch (v) {
            case standards::MarkerVariable::PythonVersion: missing = f.major == 0; break;
            case standards::MarkerVariable::PythonFullVersion: missing = f.version.empty() || unknown("version"); break;
            default: {
                auto name = marker_variable_name(v);
                missing = unknown(name);
                break;
            }
        }
        if (missing) out.push_back(v);
    }
    return out;
}

}  // namespace

stdfs::path AppTarget::code_dir() const { return layout ? probe::profile_path(folder, layout->code) : folder; }

std::vector<std::string> start_command(const probe::AppLayoutSpec& layout, const probe::Environment& env) {
    std::vector<std::string> out;
    for (const auto& a : layout.start) out.push_back(str::replace_all(a, "{python}", env.interpreter.string()));
    return out;
}

std::vector<FoundApp> find_apps(const AppCatalog& catalog, const probe::AppSearch& search) {
    const auto sigs = catalog.signatures();
    std::vector<FoundApp> out;
    for (const auto& m : probe::find_app_folders(sigs, search)) {
        const AppProfile* p = catalog.find(m.app->name);
        if (p) out.push_back({p, layout_named(*p, m.layout->name), m.folder});
    }
    return out;
}

Expected<AppTarget> resolve_app_target(const AppCatalog& catalog, const AppTargetSpec& spec, const AppTargetOptions& opts) {
    Reporter& rep = opts.reporter ? *opts.reporter : null_reporter();
    const AppProfile* named = nullptr;
    if (spec.app) {
        named = catalog.find(*spec.app);
        // An app envfix has no profile for, in a folder the user names: read it like any folder.
        if (!named && spec.path)
            rep.warn(msg("apps.unknown_app_generic",
                         {{"app", *spec.app}, {"path", spec.path->string()}, {"known", str::join(catalog.names(), ", ")}}));
        else if (!named)
            return fail(ExitCode::Usage, "apps.unknown_app", {{"app", *spec.app}, {"known", str::join(catalog.names(), ", ")}});
    }
    stdfs::path folder;
    if (spec.path) {
        folder = *spec.path;
    } else {
        probe::AppSearch search = opts.search;
        search.app = named ? std::optional<std::string>(named->app.name) : std::nullopt;
        auto found = find_apps(catalog, search);
        if (found.empty()) {
            if (named) return fail(ExitCode::EnvNotFound, "apps.none_found", {{"app", std::string(named->display())}});
            return fail(ExitCode::EnvNotFound, "apps.none_found_any");
        }
        const FoundApp* chosen = found.size() == 1 ? &found.front() : nullptr;
        if (!chosen && opts.ask)
            for (const auto& f : found)
                if (rep.confirm(msg("apps.ask_use", {{"app", std::string(f.profile->display())}, {"path", f.folder.string()}}), false)) {
                    chosen = &f;
                    break;
                }
        if (!chosen) return fail(ExitCode::Usage, "apps.several", {{"found", listing(found)}});
        if (found.size() == 1)
            rep.info(msg("apps.using", {{"app", std::string(chosen->profile->display())}, {"path", chosen->folder.string()}}));
        folder = chosen->folder;
        if (!named) named = chosen->profile;
    }

    const auto sigs = catalog.signatures();
    probe::TargetSpec ts;
    ts.app = named ? std::optional<std::string>(named->app.name) : spec.app;
    ts.app_path = folder;
    ENVFIX_TRY(auto env, probe::resolve_target(ts, {.facts = opts.facts, .reporter = opts.reporter, .apps = &sigs}));

    AppTarget t;
    t.folder = probe::absolute_normal(folder);
    const probe::AppSignature* only = named ? probe::find_signature(sigs, named->app.name) : nullptr;
    auto matches = probe::match_app_folder(t.folder, sigs, only);
    if (!matches.empty()) {
        t.profile = catalog.find(matches.front().app->name);
        t.layout = layout_named(*t.profile, matches.front().layout->name);
    } else if (named) {
        t.profile = named;
        t.layout = layout_of_environment(*named, t.folder, env);
        rep.warn(msg("apps.markers_missing", {{"app", std::string(named->display())}, {"path", t.folder.string()}}));
    }
    t.env = std::move(env);
    if (t.layout && !matches.empty()) t.start = start_command(*t.layout, t.env);
    return t;
}

AppRequirementsRead read_app_requirements(const AppProfile& profile, const stdfs::path& folder, const stdfs::path& code_dir,
                                          platform::Os os) {
    AppRequirementsRead out;
    for (const auto& rf : profile.requirements) {
        if (!rf.os.empty() && std::find(rf.os.begin(), rf.os.end(), os) == rf.os.end()) continue;
        std::vector<stdfs::path> files;
        const bool glob = rf.path.find('*') != std::string::npos;
        if (glob)
            expand_glob(code_dir, str::split(rf.path, '/'), 0, files);
        else
            files.push_back(probe::profile_path(code_dir, rf.path));
        for (const auto& f : files) {
            auto display = f.lexically_relative(probe::absolute_normal(folder)).generic_string();
            if (display.empty() || display.starts_with("..")) display = f.generic_string();
            auto tree = standards::read_requirements_tree(f, display);
            for (auto& file : tree.files) out.files.push_back(std::move(file));
            for (auto& p : tree.problems) out.problems.push_back(std::move(p));
        }
    }
    return out;
}

platform::Os environment_os(const probe::Environment& env) {
    const auto& p = env.facts.sys_platform;
    if (p == "win32") return platform::Os::Windows;
    if (p == "darwin") return platform::Os::MacOs;
    if (p.starts_with("linux")) return platform::Os::Linux;
    return env.layout_os == probe::LayoutOs::Windows ? platform::Os::Windows : platform::Os::Linux;
}

AppConstraints check_app_target(const AppTarget& t, const std::vector<PlannedPackage>& planned, const matrix::Matrix* matrix) {
    if (!t.profile) return {};
    auto installed = standards::read_installed(t.env.site_packages);
    standards::InstalledSet set = installed ? std::move(*installed) : standards::InstalledSet{};
    auto reqs = read_app_requirements(*t.profile, t.folder, t.code_dir(), environment_os(t.env));

    AppCheckInput in;
    in.profile = t.profile;
    in.planned = planned;
    in.installed = &set;
    in.matrix = matrix;
    in.requirements = std::move(reqs.files);
    in.requirement_problems = std::move(reqs.problems);
    in.markers = standards::marker_environment(t.env.facts);
    if (!t.env.facts.ran) in.unknown_markers = unknown_marker_variables(t.env.facts);
    in.pip_missing = t.layout && t.layout->pip_may_be_missing && !set.find("pip");
    return check_app_constraints(in);
}

}  // namespace envfix::apps
