#pragma once
// The Commit stage's second half (install.cpp): the snapshot of the present written, the staged
// files moved in by one journaled transaction, the verification's verdict taken.
#include "envfix/installer/install.hpp"
#include "install_context.hpp"
#include "install_plan.hpp"
#include "install_present.hpp"
#include "install_stage.hpp"

namespace envfix::installer {

// On an error before the moves, the environment is as it was and the snapshot is dropped.
Expected<void> commit_staged(Staging& staging, PresentSnapshot& present, const InstallPlan& plan, InstallContext& ctx,
                             InstallResult& result);

}  // namespace envfix::installer
