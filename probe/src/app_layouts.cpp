// Where apps keep their Python environment. The extension point for app profiles
// (target.hpp, AppLayout): app-specific entries go before the generic one.
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

std::vector<Environment> app_environments(std::string_view app, const stdfs::path& app_dir) {
    const std::string name = str::lower(app);
    const AppLayout* layout = &app_layouts().back();
    for (const auto& l : app_layouts())
        if (!l.name.empty() && l.name == name) layout = &l;
    std::vector<Environment> out;
    std::set<stdfs::path> roots;
    for (const auto& candidate : layout->candidates(app_dir)) {
        auto env = inspect_environment_dir(candidate);
        if (!env || !roots.insert(env->root).second) continue;
        env->origin = EnvOrigin::App;
        env->app = std::string(app);
        env->app_path = app_dir;
        out.push_back(std::move(*env));
    }
    return out;
}

}  // namespace envfix::probe
