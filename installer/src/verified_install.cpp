// install_verified(): the install, its verification before the change is final, and the undo
// when the framework fails (verified_install.hpp).
#include "envfix/installer/verified_install.hpp"

#include <future>

#include "envfix/common/interrupt.hpp"
#include "envfix/standards/installed.hpp"
#include "envfix/standards/wheel_name.hpp"

namespace envfix::installer {

namespace {

bool installs_framework(const InstallRequest& request) {
    for (const auto& w : request.wheels) {
        auto name = standards::parse_wheel_name(w.file.filename().string());
        if (name && name->canonical_name == "torch") return true;
    }
    return false;
}

// The one decision about a verified change: keep it, or undo it. Today the undo is the install's
// own transaction, reverted before it became final (install() does it when this says false):
// exact to the byte, and nothing is copied. With snapshots, the same decision can instead keep
// the change and restore the snapshot taken before the install.
bool undo_rejected_install(const VerifyReport& report, const std::optional<Error>& failed_before) {
    // The driver level judges the driver and the GPU, not what was installed: a failure there is
    // reported, and the install stays. So does a change to a framework that failed before it:
    // undoing it would not make the framework work, only lose the change.
    return report.framework.error.has_value() && !failed_before;
}

// The framework level of the environment as it is, before the change, where its check ran.
std::optional<Error> framework_failure_now(const probe::Environment& env, const probe::MachineProbe& machine, const VerifyOptions& checks) {
    VerifyOptions o = checks;
    o.driver = false;
    o.diagnose = false;
    o.framework_options.modules.clear();  // a --check-module package may come with the change
    // An interpreter that cannot start says nothing of the framework: not a failure before.
    auto level = verify_environment(env, machine, o).framework;
    return level.ran ? level.error : std::nullopt;
}

}  // namespace

bool has_framework(const probe::Environment& env) {
    standards::ReadInstalledOptions only_torch;
    only_torch.only = [](std::string_view name) { return name == "torch"; };
    only_torch.headers_only = true;
    auto found = standards::read_installed(env.site_packages, only_torch);
    return found && !found->find_all("torch").empty();
}

Expected<VerifiedInstall> install_verified(const probe::Environment& env, InstallRequest request,
                                           const VerifiedInstallOptions& options, Reporter& reporter) {
    VerifiedInstall out;
    if (!options.verify || request.dry_run) {
        ENVFIX_TRY(out.install, install(env, request, reporter));
        return out;
    }
    const bool modules = !options.checks.framework_options.modules.empty();
    // The probe (a driver start can take a second) runs while the wheels are unpacked.
    const bool had_framework = has_framework(env);
    std::shared_future<probe::MachineProbe> probing;
    if (modules || installs_framework(request) || had_framework)
        probing = std::async(std::launch::async, [&reporter] { return probe::inspect_machine({.reporter = &reporter}); });
    // Checked before the change where it will be checked after (while the wheels download): a
    // change is undone only when it made the framework fail.
    if (had_framework && !probing.get().failure) {
        reporter.info(msg("verify.install.before", {{"env", env.root.string()}}));
        out.failed_before = framework_failure_now(env, probing.get(), options.checks);
    }

    request.accept = [&](const InstallResult&) {
        if (!modules && !has_framework(env)) {
            out.skipped = msg("verify.skipped.no_framework", {{"env", env.root.string()}});
            return true;
        }
        const probe::MachineProbe machine = probing.valid() ? probing.get() : probe::inspect_machine({.reporter = &reporter});
        if (machine.failure) {
            out.skipped = msg("verify.skipped.no_gpu", {{"reason", render(machine.failure->message)}});
            return true;
        }
        reporter.info(msg("verify.install.running", {{"env", env.root.string()}}));
        out.verify = verify_environment(env, machine, options.checks);
        // Ctrl-C while it ran: the check is incomplete, so the change is not kept.
        if (interrupt_requested()) {
            out.interrupted = true;
            return false;
        }
        return !undo_rejected_install(*out.verify, out.failed_before);
    };
    auto result = install(env, request, reporter);
    if (probing.valid()) probing.wait();
    if (!result) return unexpected(std::move(result).error());
    out.install = std::move(*result);
    if (!out.verify && out.skipped.empty() && out.install.transaction.empty())
        out.skipped = msg("verify.skipped.nothing_changed");
    if (out.interrupted) return fail(ExitCode::Interrupted, "install.interrupted");
    out.rolled_back = out.install.reverted;
    return out;
}

}  // namespace envfix::installer
