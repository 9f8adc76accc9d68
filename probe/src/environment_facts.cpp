// Filling an Environment's facts: one run of its interpreter, or its files.
#include <chrono>

#include "envfix/common/fs.hpp"
#include "envfix/probe/environment.hpp"
#include "envfix/probe/interpreter_facts.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

namespace {
bool include_system_site(const Environment& env) {
    if (!env.pyvenv_cfg) return true;
    auto text = fs::read_file(*env.pyvenv_cfg);
    if (!text) return false;
    for (const auto& [k, v] : parse_pyvenv_cfg(*text))
        if (k == "include-system-site-packages") return v == "true";
    return false;
}
}  // namespace

void load_facts(Environment& env, const FactsOptions& opts) {
    env.problem.reset();
    if (env.layout_os != host_layout_os()) {
        env.status = EnvStatus::FilesOnly;
        env.problem = make_error(ExitCode::EnvBroken, "env.foreign_layout",
                                 {{"path", env.root.string()}, {"os", std::string(layout_os_name(env.layout_os))}});
        env.facts = facts_from_files(env);
    } else if (auto files = env.layout_os == LayoutOs::Windows ? facts_from_files(env) : PythonFacts{}; files.major > 0) {
        // On Windows the files answer what a run would (pyvenv.cfg, pythonXY._pth, pythonXY.dll):
        // doctor, plan and install start no python.exe there (docs/windows.md). A layout that
        // does not tell its version is run.
        env.status = EnvStatus::Ok;
        env.facts = std::move(files);
    } else {
        std::error_code ec;
        const auto started = std::chrono::steady_clock::now();
        FactsSource source = FactsSource::Run;
        Expected<PythonFacts> ran = stdfs::exists(env.interpreter, ec)
            ? interpreter_facts(env.interpreter, opts.cache, opts.timeout, &source)
            : Expected<PythonFacts>(fail(ExitCode::EnvBroken, "env.interpreter_missing",
                                         {{"path", env.root.string()}, {"python", env.interpreter.string()}}));
        if (ran) {
            // Which of a warm run's caches missed shows here (an interpreter start is tens of ms).
            if (opts.reporter) {
                const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
                const char* key = source == FactsSource::Cache     ? "env.debug.facts_cached"
                                  : source == FactsSource::Derived ? "env.debug.facts_derived"
                                                                   : "env.debug.facts_ran";
                opts.reporter->debug(msg(key, {{"python", env.interpreter.string()}, {"ms", std::to_string(ms)}}));
            }
            env.status = EnvStatus::Ok;
            env.facts = std::move(*ran);
            // A plain interpreter's prefix is what it says (a pyenv shim lives elsewhere).
            if (env.kind == EnvKind::System && !env.facts.prefix.empty()) env.root = env.facts.prefix;
        } else {
            env.status = EnvStatus::Broken;
            env.problem = std::move(ran).error();
            env.facts = facts_from_files(env);
        }
    }
    // Whether a plain run adds the user site: not without `import site`, not in a venv that
    // excludes system site-packages (site.py turns it off there).
    env.facts.user_site_enabled = !env.facts.user_site.empty() && env.facts.site_enabled &&
                                  !(env.kind == EnvKind::Venv && !include_system_site(env));
    env.site_packages.clear();
    for (const auto& p : env.facts.site_packages) env.site_packages.emplace_back(p);
}

}  // namespace envfix::probe
