#pragma once
// `envfix install`'s options and its two paths: local wheel files (cmd_install.cpp) and the
// framework stack from the index (install_run_index.cpp), reported the same way.
#include <memory>
#include <string>
#include <vector>

#include "context.hpp"
#include "envfix/common/expected.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/verified_install.hpp"
#include "envfix/network/index_config.hpp"
#include "output.hpp"
#include "plan_command.hpp"

namespace envfix::cli {

struct InstallOptions {
    PlanCliOptions plan;  // target (--python/--env/--app/--path), machine and choice, as `envfix plan`
    std::shared_ptr<network::IndexCliOptions> index;
    std::string venv;
    bool create = false;
    std::string base_python;
    std::vector<std::string> items;
    bool no_deps = false;
    bool dry_run = false;
    bool no_verify = false;
    std::vector<std::string> check_modules;  // --check-module: self-tests run by the verification
    bool force_reinstall = false;
    bool wait = false;
    bool break_system_packages = false;
    bool ignore_app_constraints = false;  // an app's conflicts reported, the install goes ahead
    unsigned threads = 0;
};

void run_install(const InstallOptions& o, Context& ctx);
// Plans, fetches (wheel cache) and installs; throws Failure.
void run_index_install(const InstallOptions& o, const probe::Environment& env, bool created, Context& ctx);
// Prints the result (text or --json; `extra` fields join the JSON document); a failed install
// throws Failure, or in --json prints the document and sets ctx.exit_code.
void report_install(Context& ctx, const probe::Environment& env, const InstallOptions& o,
                    const Expected<installer::VerifiedInstall>& result, bool created, const Json* extra);
// What the verification after an install runs (--no-verify, --check-module).
installer::VerifiedInstallOptions verify_options(const InstallOptions& o, const probe::Environment& env, Context& ctx);

}  // namespace envfix::cli
