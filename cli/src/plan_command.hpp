#pragma once
// `envfix plan`, split in two so no file includes both the index configuration and the matrix
// (each defines a matrix::Channel): cmd_plan.cpp registers the options and reads the index
// configuration; plan_run.cpp plans and prints.
#include <string>
#include <vector>

namespace CLI { class App; }

#include "context.hpp"
#include "envfix/plan/plan_sources.hpp"
#include "target_options.hpp"

namespace envfix::cli {

struct PlanCliOptions {
    TargetOptions target;          // --python is an interpreter, or a version for another machine
    std::vector<std::string> gpus;
    std::string driver, os, arch;
    std::string channel = "auto";
    std::string variant, torch, profiles;
    std::string torch_from = "pytorch";
};

// The options of `envfix plan` (target, machine, choice); `envfix install` takes the same.
void add_plan_options(CLI::App& cmd, PlanCliOptions& o);

void run_plan(Context& ctx, PlanCliOptions o, const plan::PlanSources& sources, bool offline);

}  // namespace envfix::cli
