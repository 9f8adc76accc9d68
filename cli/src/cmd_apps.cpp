// envfix apps: the apps envfix knows (issue 8), the app folders found on this machine (--search,
// --path) with their environment and start command, and with --torch what a framework change
// would mean for each of them before anything changes (docs/apps.md, docs/json.md).
#include <CLI/CLI.hpp>

#include "app_target.hpp"
#include "context.hpp"
#include "env_json.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/matrix/matrix_loader.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/standards/requirement.hpp"
#include "envfix/standards/version.hpp"
#include "help_text.hpp"
#include "output.hpp"

namespace envfix::cli {

namespace {

struct AppsOptions {
    std::string app;
    std::vector<std::string> paths;
    bool search = false;
    std::string torch;
    std::vector<std::string> with;  // NAME==VERSION
    std::string profiles;
};

struct Found {
    const apps::AppProfile* profile = nullptr;
    apps::AppTarget target;
    std::optional<Error> problem;  // no environment in the folder
    std::optional<apps::AppConstraints> check;
};

Json profile_json(const apps::AppProfile& p) {
    Json layouts = Json::array();
    for (const auto& l : p.app.layouts) {
        Json os = Json::array();
        for (auto o : l.os) os.push_back(std::string(platform::os_name(o)));
        Json settings = Json::array();
        for (const auto& s : l.venv_settings) settings.push_back({{"file", s.file}, {"key", s.key}});
        layouts.push_back({{"name", l.name},
                           {"os", os},
                           {"markers", l.markers},
                           {"absent", l.absent},
                           {"venv_settings", settings},
                           {"environments", l.environments},
                           {"code", l.code},
                           {"pip_may_be_missing", l.pip_may_be_missing},
                           {"start", l.start},
                           {"launcher", l.launcher.empty() ? Json(nullptr) : Json(l.launcher)}});
    }
    Json places = Json::object();
    for (const auto& pl : p.app.places) places[std::string(platform::os_name(pl.os))].push_back(pl.path);
    Json reqs = Json::array();
    for (const auto& r : p.requirements) {
        Json os = Json::array();
        for (auto o : r.os) os.push_back(std::string(platform::os_name(o)));
        reqs.push_back({{"path", r.path}, {"os", os}});
    }
    Json installer = nullptr;
    if (p.installer) {
        Json pins = Json::object();
        for (const auto& pin : p.installer->pins) pins[pin.package] = pin.version;
        installer = {{"override_env", p.installer->override_env.empty() ? Json(nullptr) : Json(p.installer->override_env)},
                     {"when", p.installer->when},
                     {"pins", pins},
                     {"source", p.installer->source}};
    }
    return {{"name", p.app.name},
            {"display", p.app.display},
            {"aliases", p.app.aliases},
            {"summary", p.summary},
            {"homepage", p.homepage},
            {"layouts", layouts},
            {"places", places},
            {"framework",
             {{"packages", p.packages},
              {"optional", p.optional},
              {"torch", p.torch.empty() ? Json(nullptr) : Json(p.torch)},
              {"torch_source", p.torch_source.empty() ? Json(nullptr) : Json(p.torch_source)}}},
            {"installer", installer},
            {"requirements", reqs},
            {"distributions", p.distributions},
            {"file", p.file}};
}

Json check_json(const apps::AppConstraints& c) {
    Json companions = Json::array(), findings = Json::array();
    for (const auto& x : c.companions)
        companions.push_back({{"package", x.package},
                              {"installed", x.installed.empty() ? Json(nullptr) : Json(x.installed)},
                              {"needed", x.needed.empty() ? Json(nullptr) : Json(x.needed)},
                              {"built_for", x.built_for.empty() ? Json(nullptr) : Json(x.built_for)},
                              {"required", x.required}});
    for (const auto& f : c.findings)
        findings.push_back({{"kind", std::string(apps::app_finding_kind_name(f.kind))},
                            {"key", f.message.key},
                            {"message", t(f.message)},
                            {"package", f.package.empty() ? Json(nullptr) : Json(f.package)},
                            {"source", f.source.empty() ? Json(nullptr) : Json(f.source)}});
    return {{"torch_range", c.torch_range.empty() ? Json(nullptr) : Json(c.torch_range.to_string())},
            {"range_sources", c.range_sources},
            {"companions", companions},
            {"checked_files", c.checked_files},
            {"findings", findings},
            {"conflicts", c.has_conflicts()}};
}

Json found_json(const Found& f) {
    Json j = {{"app", f.profile ? Json(f.profile->app.name) : Json(nullptr)},
              {"display", f.profile ? Json(f.profile->app.display) : Json(nullptr)},
              {"folder", f.target.folder.string()},
              {"layout", f.target.layout ? Json(f.target.layout->name) : Json(nullptr)},
              {"start", f.target.start},
              {"launcher", f.target.layout && !f.target.layout->launcher.empty() ? Json(f.target.layout->launcher) : Json(nullptr)},
              {"pip_may_be_missing", f.target.layout ? f.target.layout->pip_may_be_missing : false}};
    j["environment"] = f.problem ? Json(nullptr) : environment_json(f.target.env);
    j["problem"] = f.problem ? error_json(*f.problem) : Json(nullptr);
    if (f.check) j["check"] = check_json(*f.check);
    return j;
}

std::vector<apps::PlannedPackage> planned_of(const AppsOptions& o) {
    std::vector<apps::PlannedPackage> out;
    if (o.torch.empty()) {
        if (!o.with.empty()) throw Failure(ExitCode::Usage, "apps.with_without_torch");
        return out;
    }
    if (!standards::Version::try_parse(o.torch)) throw Failure(ExitCode::Usage, "apps.bad_torch", {{"value", o.torch}});
    out.push_back({"torch", o.torch});
    for (const auto& w : o.with) {
        auto eq = w.find("==");
        auto name = str::trim(std::string_view(w).substr(0, eq == std::string::npos ? w.size() : eq));
        if (eq == std::string::npos || name.empty() || !standards::Version::try_parse(w.substr(eq + 2)))
            throw Failure(ExitCode::Usage, "apps.bad_with", {{"value", w}});
        out.push_back({std::string(name), w.substr(eq + 2)});
    }
    return out;
}

// The folders to show: --path ones (each must be an app's), else the search's.
std::vector<Found> collect(const AppsOptions& o, const apps::AppCatalog& catalog, Context& ctx) {
    auto cache = probe::FactsCache::load(probe::FactsCache::default_path());
    apps::AppTargetOptions opts;
    opts.facts.cache = &cache;
    opts.reporter = ctx.reporter;
    opts.ask = false;  // a listing shows every folder; nothing to choose
    std::vector<std::pair<std::optional<std::string>, std::filesystem::path>> folders;
    if (!o.paths.empty()) {
        const auto sigs = catalog.signatures();
        for (const auto& p : o.paths) {
            std::error_code ec;
            if (!std::filesystem::is_directory(p, ec)) throw Failure(ExitCode::EnvNotFound, "env.not_found", {{"path", p}});
            if (probe::match_app_folder(p, sigs).empty() && o.app.empty())
                throw Failure(ExitCode::EnvNotFound, "apps.not_an_app", {{"path", p}, {"known", str::join(catalog.names(), ", ")}});
            folders.emplace_back(o.app.empty() ? std::nullopt : std::optional<std::string>(o.app), p);
        }
    } else {
        probe::AppSearch search;
        if (!o.app.empty()) search.app = o.app;
        for (const auto& f : apps::find_apps(catalog, search)) folders.emplace_back(f.profile->app.name, f.folder);
    }
    std::vector<Found> out;
    for (const auto& [app, folder] : folders) {
        Found f;
        auto t = apps::resolve_app_target(catalog, {.app = app, .path = folder}, opts);
        if (t) {
            f.target = std::move(*t);
            f.profile = f.target.profile;
        } else {
            if (t.error().code == ExitCode::Usage) throw Failure(std::move(t).error());  // unknown --app
            f.problem = std::move(t).error();
            f.target.folder = folder;
            if (app) f.profile = catalog.find(*app);
            for (const auto& m : probe::match_app_folder(folder, catalog.signatures()))
                if (!f.profile || m.app->name == f.profile->app.name) {
                    f.profile = catalog.find(m.app->name);
                    break;
                }
        }
        out.push_back(std::move(f));
    }
    if (auto saved = cache.save(); !saved) ctx.reporter->debug(saved.error().message);
    return out;
}

void print_known(const apps::AppCatalog& catalog, const std::string& only) {
    Table table({t(msg("apps.header.app")), t(msg("apps.header.name")), t(msg("apps.header.layouts")), t(msg("apps.header.torch"))});
    for (const auto& p : catalog.apps) {
        if (!only.empty() && !p.app.answers_to(only)) continue;
        std::vector<std::string> layouts;
        for (const auto& l : p.app.layouts) layouts.push_back(l.name);
        std::string torch = p.torch.empty() ? (p.distributions.empty() ? "-" : t(msg("apps.torch_from_package"))) : p.torch;
        table.add({p.app.name, p.app.display, str::join(layouts, ", "), torch});
    }
    std::string text = table.str();
    text.pop_back();
    print(text);
}

void print_check(const Found& f, const std::string& torch) {
    const auto& c = *f.check;
    print(msg("apps.check_title", {{"app", std::string(f.profile->display())}, {"path", f.target.folder.string()}, {"torch", torch}}));
    if (c.findings.empty()) print("  " + t(msg("apps.check_ok", {{"app", std::string(f.profile->display())}})));
    for (const auto& x : c.findings) {
        std::string kind = t(msg(std::string("apps.kind.") + std::string(apps::app_finding_kind_name(x.kind))));
        print("  " + kind + ": " + t(x.message));
    }
    if (c.checked_files.empty()) print("  " + t(msg("apps.check_no_files")));
    else print("  " + t(msg("apps.check_files", {{"files", str::join(c.checked_files, ", ")}})));
}

void print_found(const std::vector<Found>& found, const std::string& torch) {
    if (found.empty()) {
        print(msg("apps.found_none"));
        return;
    }
    print(msg("apps.found_title"));
    Table table({t(msg("apps.header.app")), t(msg("apps.header.folder")), t(msg("apps.header.layout")),
                 t(msg("apps.header.python")), t(msg("apps.header.environment")), t(msg("apps.header.status"))});
    for (const auto& f : found) {
        const std::string app = f.profile ? f.profile->app.display : "?";
        const std::string layout = f.target.layout ? f.target.layout->name : "-";
        if (f.problem)
            table.add({app, f.target.folder.string(), layout, "-", "-", t(msg("apps.no_env"))});
        else
            table.add({app, f.target.folder.string(), layout, python_cell(f.target.env),
                       f.target.env.root.string() + " (" + std::string(probe::env_kind_name(f.target.env.kind)) + ")",
                       status_cell(f.target.env)});
    }
    std::string text = table.str();
    text.pop_back();
    print(text);
    for (const auto& f : found) {
        const std::string app = f.profile ? f.profile->app.display : "?";
        if (f.problem) print(app + ": " + t(f.problem->message));
        else if (f.target.env.problem) print(app + ": " + t(f.target.env.problem->message));
        if (!f.target.start.empty())
            print(t(msg("apps.start", {{"app", app}, {"command", str::join(f.target.start, " ")}, {"path", f.target.folder.string()}})));
        if (f.target.layout && !f.target.layout->launcher.empty())
            print(t(msg("apps.launcher", {{"app", app}, {"launcher", f.target.layout->launcher}})));
        if (f.target.layout && f.target.layout->pip_may_be_missing)
            print(t(msg("apps.embedded_note", {{"app", app}})));
    }
    for (const auto& f : found)
        if (f.check) print_check(f, torch);
}

void run_apps(const AppsOptions& o, Context& ctx) {
    auto catalog = load_app_catalog(o.profiles);
    if (!o.app.empty() && !catalog->find(o.app))
        throw Failure(ExitCode::Usage, "apps.unknown_app", {{"app", o.app}, {"known", str::join(catalog->names(), ", ")}});
    const auto planned = planned_of(o);
    const bool look = o.search || !o.paths.empty() || !planned.empty();
    std::vector<Found> found;
    if (look) {
        found = collect(o, *catalog, ctx);
        if (!planned.empty()) {
            std::optional<std::filesystem::path> dir;
            if (!o.profiles.empty()) dir = o.profiles;
            auto matrix = value_or_throw(matrix::load_profiles(dir));
            for (auto& f : found)
                if (f.profile && !f.problem) {
                    f.check = apps::check_app_target(f.target, planned, &matrix);
                    if (f.check->has_conflicts()) ctx.exit_code = ExitCode::RequirementsUnmet;
                }
        }
    }
    if (ctx.opts.json) {
        Json apps = Json::array(), list = Json::array();
        for (const auto& p : catalog->apps)
            if (o.app.empty() || p.app.answers_to(o.app)) apps.push_back(profile_json(p));
        Json j = {{"schema_version", kJsonSchemaVersion}, {"apps", apps}};
        if (look) {
            for (const auto& f : found) list.push_back(found_json(f));
            j["found"] = list;
        }
        if (!planned.empty()) {
            Json p = Json::object();
            for (const auto& x : planned) p[x.name] = x.version;
            j["planned"] = p;
        }
        print_json(j);
        return;
    }
    if (!look) {
        print_known(*catalog, o.app);
        print(msg("apps.hint_search"));
        return;
    }
    print_found(found, o.torch);
}

}  // namespace

void register_apps(CLI::App& app, Context& ctx) {
    auto opts = std::make_shared<AppsOptions>();
    auto* cmd = app.add_subcommand("apps", help_text("help.apps"));
    cmd->add_option("--app", opts->app, help_text("help.apps.app"));
    cmd->add_option("--path", opts->paths, help_text("help.apps.path"));
    cmd->add_flag("--search", opts->search, help_text("help.apps.search"));
    cmd->add_option("--torch", opts->torch, help_text("help.apps.torch"));
    cmd->add_option("--with", opts->with, help_text("help.apps.with"));
    cmd->add_option("--profiles", opts->profiles, help_text("help.apps.profiles"));
    cmd->callback([opts, &ctx] { run_apps(*opts, ctx); });
}

}  // namespace envfix::cli
