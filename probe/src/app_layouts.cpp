// Where apps keep their Python environment: the app profiles' layouts (app_folder.hpp) when
// given, and one generic layout for folders no profile recognises.
#include <set>

#include "envfix/common/strings.hpp"
#include "envfix/probe/target.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

namespace {
// Layouts seen in the wild: ComfyUI / Fooocus portable (python_embeded), A1111, SD.Next and
// Forge from git (venv), uv and InvokeAI's launcher (.venv), one-click installers with a
// conda env (installer_files/env, env), Forge's one-click package (system/python), and the
// folder being the environment itself.
std::vector<stdfs::path> generic_candidates(const stdfs::path& dir) {
    return {dir / "python_embeded", dir / "venv", dir / ".venv", dir / "env", dir / "installer_files" / "env",
            dir / "system" / "python", dir};
}
}  // namespace

const std::vector<AppLayout>& app_layouts() {
    static const std::vector<AppLayout> layouts = {
        {"", generic_candidates},
    };
    return layouts;
}

AppEnvironmentDirs app_environment_dirs(std::string_view app, const stdfs::path& app_dir,
                                        const std::vector<AppSignature>* apps) {
    AppEnvironmentDirs out{std::string(app), false, {}};
    std::set<stdfs::path> seen;
    auto add = [&](const stdfs::path& p) {
        auto n = p.lexically_normal();
        if (seen.insert(n).second) out.dirs.push_back(n);
    };
    const AppSignature* named = (apps && !app.empty()) ? find_signature(*apps, app) : nullptr;
    if (apps) {
        auto matches = match_app_folder(app_dir, *apps, named);
        if (!matches.empty()) {
            named = matches.front().app;
            out.recognised = true;
            for (const auto& m : matches)
                if (m.app == named)
                    for (const auto& d : environment_dirs(m)) add(d);
        } else if (named) {
            // Named with --app but its files are not all there (an older version, a renamed
            // folder): its layouts' environments are still the best guess.
            for (const auto& d : all_environment_dirs(*named, app_dir)) add(d);
        }
        if (named) out.app = named->name;
    }
    // The generic layout: the only one for folders no profile knows, a fallback for the others.
    const std::string name = str::lower(app);
    const AppLayout* layout = &app_layouts().back();
    for (const auto& l : app_layouts())
        if (!l.name.empty() && l.name == name) layout = &l;
    for (const auto& d : layout->candidates(app_dir)) add(d);
    return out;
}

std::vector<Environment> app_environments(std::string_view app, const stdfs::path& app_dir,
                                          const std::vector<AppSignature>* apps) {
    const auto where = app_environment_dirs(app, app_dir, apps);
    std::vector<Environment> out;
    std::set<stdfs::path> roots;
    for (const auto& candidate : where.dirs) {
        auto env = inspect_environment_dir(candidate);
        if (!env || !roots.insert(env->root).second) continue;
        env->origin = EnvOrigin::App;
        env->app = where.app;
        env->app_path = app_dir;
        out.push_back(std::move(*env));
    }
    return out;
}

}  // namespace envfix::probe
