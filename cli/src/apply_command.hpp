#pragma once
// `envfix apply`, `envfix lock`: split like `envfix plan` (plan_command.hpp) so that no file
// includes both the index configuration and the matrix. cmd_apply.cpp / cmd_lock.cpp read the
// spec and the index configuration into ApplySources; apply_run.cpp plans and installs.
#include <filesystem>
#include <optional>
#include <string>

#include "context.hpp"
#include "envfix/installer/apply_spec.hpp"
#include "envfix/network/http_client.hpp"
#include "envfix/plan/plan_sources.hpp"
#include "plan_command.hpp"

namespace envfix::cli {

// Where packages come from, for planning and for the wheels themselves.
struct ApplySources {
    plan::PlanSources plan;
    network::HttpOptions http;
    bool offline = false;
    std::filesystem::path download_dir;  // wheels kept by sha256 (<cache>/apply-wheels)
    std::optional<std::string> wheels;   // a fetched wheel folder (or its URL)
    std::string wheels_layout = "auto";
};

// Brings every environment of the spec to it (or, with `check`, says what would change); sets
// ctx.exit_code: 0 unchanged, ApplyChanged (80), ApplyFailed (81).
void run_apply(Context& ctx, const installer::ApplySpec& spec, const ApplySources& sources, bool check);

// `envfix lock`: the plan for the target resolved as for a fresh environment, written to `out`.
void run_lock(Context& ctx, PlanCliOptions o, const ApplySources& sources, const std::filesystem::path& out);

}  // namespace envfix::cli
