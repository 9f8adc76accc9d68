#pragma once
// The app a command works on, from --app / --path (or neither: the current folder and the usual
// places), for the commands that take the target options (doctor, check, plan, install) and for
// `envfix apps`. resolve_target() (target_options.hpp) uses it for --app/--path; commands that need
// the app's profile (its constraints before a framework change) call resolve_app() themselves.
#include <memory>
#include <string>

#include "context.hpp"
#include "envfix/apps/app_profiles.hpp"
#include "envfix/apps/app_target.hpp"
#include "target_options.hpp"

namespace envfix::cli {

// The app profiles: DIR/apps when `profiles_dir` is given, else ENVFIX_PROFILES_DIR, else the
// built-in copy. Throws Failure (ProfileInvalid, BadInput).
std::shared_ptr<const apps::AppCatalog> load_app_catalog(const std::string& profiles_dir = "");

struct ResolvedApp {
    std::shared_ptr<const apps::AppCatalog> catalog;  // owns what target.profile points at
    apps::AppTarget target;
};

// --app NAME and/or --path DIR (one of them given). Several folders found: asks on a terminal;
// with --yes, --json or no terminal, refuses (Usage) naming them. Throws Failure.
ResolvedApp resolve_app(const TargetOptions& opts, Context& ctx, TargetNeed need);

}  // namespace envfix::cli
