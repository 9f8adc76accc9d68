#pragma once
// How a verification is shown (docs/json.md#envfix-verify, docs/verify.md): the driver table, the
// framework table with each operation, the failure beside doctor's diagnosis. `envfix verify`,
// `envfix install` and `envfix apply` (which verify after the change) share it.
#include <string>

#include "envfix/installer/verified_install.hpp"
#include "envfix/installer/verify.hpp"
#include "envfix/probe/environment.hpp"
#include "output.hpp"

namespace envfix::cli {

// driver_check: null when the kernels did not run (see the error); otherwise as docs/json.md says.
Json driver_check_json(const installer::DriverLevel& d);
// framework_check: {"ran": false, "error"} when the script could not start.
Json framework_check_json(const installer::FrameworkLevel& f, const probe::Environment& env);

// The driver table and the framework table (or the summary lines when `tables` is false),
// failures, and what explains them. Ends with no newline.
std::string verify_text(const installer::VerifyReport& r, const probe::Environment* env, bool tables);
// The verification after a change (`envfix install`, `envfix apply`): {"ran": false, "skipped",
// "skipped_key"} when it did not run, else both levels, "failed_before" and the error.
Json verification_json(const installer::VerifiedInstall& v, const probe::Environment& env);
// One line when both levels passed: "driver check passed on 1 GPU(s); framework check passed: ..."
std::string verify_summary(const installer::VerifyReport& r);

}  // namespace envfix::cli
