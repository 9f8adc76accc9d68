// envfix snapshot [--name N] / envfix snapshot gc --keep N: a snapshot of an environment taken by
// hand, and the store's garbage collected (issue 6; docs/snapshots.md).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "env_json.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/env_lock.hpp"
#include "envfix/installer/snapshot.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "target_options.hpp"

namespace envfix::cli {

namespace {

struct SnapshotOptions {
    TargetOptions target;
    std::string name;
    bool wait = false;
    size_t keep = 10;
};

void run_snapshot(const SnapshotOptions& o, Context& ctx) {
    auto env = resolve_target(o.target, ctx, TargetNeed::Files);
    auto lock = value_or_throw(installer::lock_environment(env.root, o.wait, *ctx.reporter));
    installer::SnapshotStats st;
    auto s = value_or_throw(installer::take_snapshot(env, "snapshot", o.name, *ctx.reporter, &st));
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion},
                    {"environment", environment_json(env)},
                    {"snapshot", {{"id", s.id}, {"name", s.name}, {"created", s.created}, {"distributions", s.dists.size()},
                                  {"files", s.files.size()}, {"bytes", s.bytes()}}},
                    {"stats", {{"hashed", st.hashed}, {"stored", st.stored}, {"copied", st.copied}, {"seconds", st.seconds}}},
                    {"error", nullptr}});
        return;
    }
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", st.seconds);
    print(msg("snapshot.taken", {{"id", s.id}, {"dists", std::to_string(s.dists.size())}, {"files", std::to_string(s.files.size())},
                                 {"size", str::human_bytes(s.bytes())}, {"seconds", secs}}));
}

void run_gc(const SnapshotOptions& o, Context& ctx) {
    auto env = resolve_target(o.target, ctx, TargetNeed::Files);
    auto r = value_or_throw(installer::gc_snapshots(env, o.keep, o.wait, *ctx.reporter));
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion},
                    {"environment", environment_json(env)},
                    {"removed", r.removed},
                    {"objects_removed", r.objects_removed},
                    {"bytes_freed", r.bytes_freed},
                    {"error", nullptr}});
        return;
    }
    print(msg("snapshot.gc_done", {{"snapshots", std::to_string(r.removed.size())}, {"objects", std::to_string(r.objects_removed)},
                                   {"size", str::human_bytes(r.bytes_freed)}}));
}

}  // namespace

void register_snapshot(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<SnapshotOptions>();
    auto* cmd = app.add_subcommand("snapshot", help_text("help.snapshot"));
    add_target_options(*cmd, o->target);
    cmd->add_option("--name", o->name, help_text("help.snapshot.name"));
    cmd->add_flag("--wait", o->wait, help_text("help.common.wait"));
    auto* gc = cmd->add_subcommand("gc", help_text("help.snapshot.gc"));
    add_target_options(*gc, o->target);
    gc->add_option("--keep", o->keep, help_text("help.snapshot.gc.keep"));
    gc->add_flag("--wait", o->wait, help_text("help.common.wait"));
    gc->callback([o, &ctx] { run_gc(*o, ctx); });
    cmd->callback([o, &ctx, gc] {
        if (gc->parsed()) return;
        run_snapshot(*o, ctx);
    });
}

}  // namespace envfix::cli
