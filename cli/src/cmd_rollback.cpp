// envfix rollback [ID|NAME]: the environment as a snapshot recorded it, offline, as one
// transaction, after a snapshot of the present (so it can be undone) (issue 6; docs/snapshots.md).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "env_json.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/snapshot.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "target_options.hpp"

namespace envfix::cli {

namespace {

struct RollbackOptions {
    TargetOptions target;
    std::string id;
    bool dry_run = false;
    bool wait = false;
};

Json dists_json(const std::vector<installer::SnapshotDist>& ds) {
    Json a = Json::array();
    for (const auto& d : ds) a.push_back({{"name", d.name}, {"version", d.version}});
    return a;
}

void run_rollback(const RollbackOptions& o, Context& ctx) {
    auto env = resolve_target(o.target, ctx, TargetNeed::Files);
    auto r = value_or_throw(installer::rollback(env, {o.id, o.dry_run, o.wait}, *ctx.reporter));
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion},
                    {"environment", environment_json(env)},
                    {"dry_run", o.dry_run},
                    {"to", r.to},
                    {"snapshot_before", r.before.empty() ? Json(nullptr) : Json(r.before)},
                    {"distributions_in", dists_json(r.dists_in)},
                    {"distributions_out", dists_json(r.dists_out)},
                    {"files_in", r.files_in},
                    {"files_out", r.files_out},
                    {"files_unchanged", r.files_unchanged},
                    {"transaction", r.transaction.empty() ? Json(nullptr) : Json(r.transaction)},
                    {"seconds", r.seconds},
                    {"seconds_snapshot", r.seconds_snapshot},
                    {"seconds_moving", r.seconds_moving},
                    {"warnings", warnings_json(ctx)},
                    {"error", nullptr}});
        return;
    }
    for (const auto& d : r.dists_out) print(msg(o.dry_run ? "install.would_remove_dist" : "rollback.out", {{"name", d.name}, {"version", d.version}}));
    for (const auto& d : r.dists_in) print(msg(o.dry_run ? "install.would_add_dist" : "rollback.in", {{"name", d.name}, {"version", d.version}}));
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", r.seconds);
    if (o.dry_run) {
        print(msg("rollback.would", {{"id", r.to}, {"in", std::to_string(r.files_in)}, {"out", std::to_string(r.files_out)},
                                     {"same", std::to_string(r.files_unchanged)}}));
        return;
    }
    if (r.transaction.empty()) {
        print(msg("rollback.already", {{"id", r.to}}));
        return;
    }
    print(msg("rollback.done", {{"id", r.to},
                                {"in", std::to_string(r.files_in)},
                                {"out", std::to_string(r.files_out)},
                                {"same", std::to_string(r.files_unchanged)},
                                {"seconds", secs},
                                {"before", r.before},
                                {"target", target_words(o.target, env)}}));
}

}  // namespace

void register_rollback(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<RollbackOptions>();
    auto* cmd = app.add_subcommand("rollback", help_text("help.rollback"));
    cmd->add_option("id", o->id, help_text("help.rollback.id"));
    add_target_options(*cmd, o->target);
    cmd->add_flag("--dry-run", o->dry_run, help_text("help.rollback.dry_run"));
    cmd->add_flag("--wait", o->wait, help_text("help.common.wait"));
    cmd->callback([o, &ctx] { run_rollback(*o, ctx); });
}

}  // namespace envfix::cli
