#include "app_target.hpp"

#include "envfix/probe/interpreter_facts.hpp"
#include "target_options.hpp"

namespace envfix::cli {

std::shared_ptr<const apps::AppCatalog> load_app_catalog(const std::string& profiles_dir) {
    std::optional<std::filesystem::path> dir;
    if (!profiles_dir.empty()) dir = profiles_dir;
    return std::make_shared<const apps::AppCatalog>(value_or_throw(apps::load_app_profiles(dir)));
}

ResolvedApp resolve_app(const TargetOptions& opts, Context& ctx, TargetNeed need) {
    ResolvedApp out;
    out.catalog = load_app_catalog();
    apps::AppTargetSpec spec;
    if (!opts.app.empty()) spec.app = opts.app;
    if (!opts.path.empty()) spec.path = opts.path;
    auto& cache = facts_cache(ctx);
    apps::AppTargetOptions o;
    o.facts.cache = &cache;
    o.reporter = ctx.reporter;
    // --yes answers questions with yes; picking one of several apps for the user is not a yes.
    o.ask = !ctx.opts.yes && !ctx.opts.json;
    out.target = value_or_throw(apps::resolve_app_target(*out.catalog, spec, o));
    if (opts.from_current_folder && !ctx.told_current_folder) {
        ctx.reporter->info(msg("apps.using_current_folder", {{"app", std::string(out.target.profile->display())}, {"path", opts.path}}));
        ctx.told_current_folder = true;
    }
    if (auto saved = cache.save(); !saved) ctx.reporter->debug(saved.error().message);
    if (need == TargetNeed::Interpreter) value_or_throw(probe::require_runnable(out.target.env));
    return out;
}

}  // namespace envfix::cli
