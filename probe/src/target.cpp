// Resolving --python / --env / --app + --path (or nothing) to one environment.
#include "envfix/probe/target.hpp"

#include "envfix/common/env.hpp"
#include "envfix/common/process.hpp"
#include "envfix/common/strings.hpp"
#include "host_python.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

namespace {

// --python python3.12: a bare name is looked up on PATH like a shell would.
std::optional<stdfs::path> interpreter_path(const stdfs::path& given) {
    std::error_code ec;
    if (given.has_parent_path() || stdfs::exists(given, ec)) return given;
    return find_program(given.string());
}

Expected<Environment> default_environment() {
    if (auto venv = env::get(EnvVar::VirtualEnv)) {
        ENVFIX_TRY(auto e, inspect_environment_dir(*venv));
        e.origin = EnvOrigin::Active;
        return e;
    }
    if (auto conda = env::get(EnvVar::CondaPrefix)) {
        ENVFIX_TRY(auto e, inspect_environment_dir(*conda));
        e.origin = EnvOrigin::Active;
        return e;
    }
    auto python = host_python_on_path();
    if (!python) return fail(ExitCode::EnvNotFound, "env.no_python");
    ENVFIX_TRY(auto e, inspect_interpreter(*python));
    e.origin = EnvOrigin::PathPython;
    return e;
}

Expected<Environment> app_environment(const TargetSpec& spec, const ResolveOptions& opts, Reporter& rep) {
    const std::string app = spec.app.value_or("");
    if (!spec.app_path) return fail(ExitCode::Usage, "env.app_without_path", {{"app", app}});
    std::error_code ec;
    if (!stdfs::is_directory(*spec.app_path, ec))
        return fail(ExitCode::EnvNotFound, "env.not_found", {{"path", spec.app_path->string()}});
    auto found = app_environments(app, *spec.app_path, opts.apps);
    if (found.empty()) {
        std::vector<std::string> looked;
        for (const auto& d : app_environment_dirs(app, *spec.app_path, opts.apps).dirs) {
            auto rel = d.lexically_relative(spec.app_path->lexically_normal()).generic_string();
            looked.push_back(rel.empty() || rel == "." ? "." : rel + "/");
        }
        return fail(ExitCode::EnvNotFound, "env.app_no_env",
                    {{"path", spec.app_path->string()}, {"looked", str::join(looked, ", ")}});
    }
    if (found.size() > 1) {
        auto note = msg("env.app_several", {{"path", spec.app_path->string()}, {"chosen", found.front().root.string()}});
        rep.warn(note);
        found.front().notes.push_back(note);
    }
    return std::move(found.front());
}

}  // namespace

Expected<Environment> resolve_target(const TargetSpec& spec, const ResolveOptions& opts) {
    Reporter& rep = opts.reporter ? *opts.reporter : null_reporter();
    const int given = (spec.python ? 1 : 0) + (spec.env ? 1 : 0) + ((spec.app || spec.app_path) ? 1 : 0);
    if (given > 1) return fail(ExitCode::Usage, "env.target_conflict");
    Expected<Environment> env = [&]() -> Expected<Environment> {
        if (spec.python) {
            auto path = interpreter_path(*spec.python);
            if (!path) return fail(ExitCode::EnvNotFound, "env.no_interpreter", {{"path", spec.python->string()}});
            ENVFIX_TRY(auto e, inspect_interpreter(*path));
            e.origin = EnvOrigin::GivenPython;
            return e;
        }
        if (spec.env) {
            ENVFIX_TRY(auto e, inspect_environment_dir(*spec.env));
            e.origin = EnvOrigin::GivenEnv;
            return e;
        }
        if (spec.app || spec.app_path) return app_environment(spec, opts, rep);
        return default_environment();
    }();
    if (!env) return env;
    FactsOptions facts = opts.facts;
    if (!facts.reporter) facts.reporter = &rep;
    load_facts(*env, facts);
    if (env->problem) rep.debug(env->problem->message);
    return env;
}

Expected<void> require_runnable(const Environment& env) {
    if (env.status == EnvStatus::Ok) return {};
    if (env.problem) return unexpected(*env.problem);
    return fail(ExitCode::EnvBroken, "env.interpreter_missing", {{"path", env.root.string()}, {"python", env.interpreter.string()}});
}

}  // namespace envfix::probe
