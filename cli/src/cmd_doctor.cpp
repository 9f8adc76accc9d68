// envfix doctor: what is wrong with this machine's GPU stack, in plain words (issue 3).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "output.hpp"

namespace envfix::cli {

void register_doctor(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("doctor", "explain what stops the framework from running on this GPU, and the fix");
    cmd->callback([&ctx] {
        if (ctx.opts.json) {
            Json j;
            j["schema_version"] = kJsonSchemaVersion;
            j["environments"] = Json::array();
            print_json(j);
        } else {
            print(msg("doctor.no_env_yet"));
        }
    });
}

}  // namespace envfix::cli
