#pragma once
// `envfix install` with its verification: the install (install.hpp), then, before the change is
// final, both levels of `envfix verify` (verify.hpp) on the environment as it now is. When the
// framework level fails, the install is undone — the environment is byte for byte what it was —
// and the result says so (the CLI exits RolledBack, 65); unless the framework failed before the
// change too (checked first): then the change is kept and the result says that.
// docs/verify.md#after-install.
//
//   auto r = install_verified(env, request, {.verify = {.reporter = &rep}}, rep);
//   r->rolled_back;  r->verify;  r->install;
//
// The undo is the install's own transaction, reverted before it became final (its backups are
// still in place: nothing to copy back, nothing to download). undo_rejected_install() in
// verified_install.cpp is the one place that decides it, for a later switch to snapshots.
#include <optional>
#include <string>

#include "envfix/common/error.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/verify.hpp"
#include "envfix/probe/environment.hpp"

namespace envfix::installer {

struct VerifiedInstallOptions {
    bool verify = true;     // false: --no-verify
    VerifyOptions checks;   // what runs (both levels by default)
};

struct VerifiedInstall {
    InstallResult install;
    // Why verification did not run although asked for ("" when it ran or was not asked for):
    // "verify.skipped.no_framework", "verify.skipped.no_gpu", "verify.skipped.nothing_changed".
    Message skipped;
    std::optional<VerifyReport> verify;
    bool rolled_back = false;   // the framework level failed; the environment is the old one
    // The framework level failed before the change as well (checked first where the environment
    // had torch): the change is kept, as undoing it would not make the framework work.
    std::optional<Error> failed_before;
    bool interrupted = false;   // Ctrl-C during the verification: undone too
};

// Errors: those of install(), and Interrupted (130) after a Ctrl-C during the verification (the
// install is undone). A failed verification is not an error here: `rolled_back` says it.
Expected<VerifiedInstall> install_verified(const probe::Environment& env, InstallRequest request,
                                           const VerifiedInstallOptions& options, Reporter& reporter);

// Whether the environment has the framework the verification checks (a torch dist-info in
// one of its site-packages folders). Reads dist-info folder names only.
bool has_framework(const probe::Environment& env);

}  // namespace envfix::installer
