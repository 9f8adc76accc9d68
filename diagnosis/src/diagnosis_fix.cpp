// The fix: the `envfix install` command that plan would carry out for this machine and this
// interpreter's Python (the policy's choice), or what to do when no install fixes it.
#include "diagnosis_parts.hpp"

namespace envfix::diagnosis::diag {

namespace {

// The install that fixes the stack leaves the choice to plan, which reads the user's index (a
// mirror may lack the matrix's newest release); `torch` and `variant` say what the matrix expects
// it to pick. `pin`: the version is the point (the same build again), so the command names it.
FixCommand install_command(const Context& c, const std::string& torch, const std::string& variant, matrix::Channel channel, bool pin) {
    FixCommand f;
    f.torch = channel == matrix::Channel::Nightly ? "" : torch;  // a nightly line is a prefix the index completes
    f.variant = variant;
    f.channel = channel;
    f.argv = {"envfix", "install"};
    f.argv.insert(f.argv.end(), c.in.target_args.begin(), c.in.target_args.end());
    if (pin) f.argv.insert(f.argv.end(), {"torch==" + torch, "--variant", variant});
    return f;
}

}  // namespace

void propose_fix(Context& c) {
    Diagnosis& d = c.d;
    ExitCode code = d.code;
    bool probe_failed = c.machine.failure.has_value();
    if (code == ExitCode::Ok) return;
    if (probe_failed && code != ExitCode::NoFramework && code != ExitCode::EnvInconsistent) {
        // No usable GPU: the driver comes first; no wheel fixes that.
        d.fix_text = msg("diag.fix.driver_first");
        return;
    }
    if (code == ExitCode::EnvInconsistent && c.torch && !c.torch->variant.empty() &&
        (c.torch->kind == BuildKind::Cuda || c.torch->kind == BuildKind::Cpu)) {
        // The build itself runs here: installing it again brings companions and runtimes in line.
        d.fix = install_command(c, c.torch->public_version, c.torch->variant, matrix::Channel::Stable, true);
        d.fix->reinstall = true;
        return;
    }
    matrix::PolicyRequest req;
    req.machine = policy_machine(c.machine, c.in.platform, c.in.python);
    matrix::PolicyResult res = choose(c.mx, req);
    if (!res.ok) {
        d.fix_text = res.error;
        d.fix_notes = res.hints;
        return;
    }
    d.fix = install_command(c, res.release->torch, res.variant->name, res.release->channel, false);
    d.fix_notes = res.warnings;
    if (probe_failed) d.fix_notes.push_back(msg("diag.fix.no_gpu_seen"));
    // A driver too old for the installed build: upgrading it is the other way out.
    if (code == ExitCode::DriverTooOld && d.runtime && d.runtime->need && c.torch)
        d.fix_notes.push_back(msg("diag.fix.or_driver", {{"need", d.runtime->need->exact.to_string()}, {"torch", c.torch_name}}));
}

}  // namespace envfix::diagnosis::diag
