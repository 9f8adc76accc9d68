// envfix history: an environment's snapshots, newest last: id, time, why, and what the change
// that followed did (issue 6; docs/snapshots.md).
#include <CLI/CLI.hpp>

#include <set>

#include "context.hpp"
#include "env_json.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/standards/installed.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "target_options.hpp"

namespace envfix::cli {

namespace {

struct HistoryOptions {
    TargetOptions target;
};

// Distributions that differ between two states: "+torch 2.11.0+cu128", "-torch 2.7.0+cu126".
std::vector<std::string> changes(const std::vector<installer::SnapshotDist>& from, const std::vector<installer::SnapshotDist>& to) {
    std::set<std::pair<std::string, std::string>> a, b;
    for (const auto& d : from) a.insert({d.name, d.version});
    for (const auto& d : to) b.insert({d.name, d.version});
    std::vector<std::string> out;
    for (const auto& d : from)
        if (!b.count({d.name, d.version})) out.push_back("-" + d.name + " " + d.version);
    for (const auto& d : to)
        if (!a.count({d.name, d.version})) out.push_back("+" + d.name + " " + d.version);
    return out;
}

// The stored reason ("install torch 2.11.0+cu128, ...", "apply ws", "rollback to 3", "snapshot"),
// kept in English in the snapshot, shown in the user's language.
Message reason_message(const std::string& reason) {
    if (reason == "snapshot") return msg("history.reason.snapshot");
    if (reason == "install (nothing new)") return msg("history.reason.install_nothing");
    for (const char* verb : {"install", "apply", "rollback to"}) {
        std::string prefix = std::string(verb) + " ";
        if (reason.starts_with(prefix)) {
            std::string key = std::string("history.reason.") + (verb[0] == 'r' ? "rollback" : verb);
            return msg(key, {{"what", reason.substr(prefix.size())}});
        }
    }
    return msg("history.reason.other", {{"what", reason}});
}

void run_history(const HistoryOptions& o, Context& ctx) {
    auto env = resolve_target(o.target, ctx, TargetNeed::Files);
    // Their headers alone: each torch-sized snapshot's 17 000 file lines are not read.
    auto all = installer::list_snapshot_heads(env.root, *ctx.reporter);
    // What followed snapshot i: the difference to the next one (the last: to the present).
    std::vector<installer::SnapshotDist> present;
    if (!all.empty()) {
        auto now = standards::read_installed(env.site_packages, {.headers_only = true, .egg_info = false});
        if (now)
            for (const auto& d : now->dists) present.push_back({d.name, d.version, ""});
    }
    Json list = Json::array();
    for (size_t i = 0; i < all.size(); ++i) {
        const auto& s = all[i];
        auto after = changes(s.dists, i + 1 < all.size() ? all[i + 1].dists : present);
        if (ctx.opts.json) {
            // Snapshots from before the header held the bytes are read whole for them.
            std::optional<uint64_t> bytes = s.bytes;
            if (!bytes) {
                auto whole = installer::read_snapshot(env.root, s.file_id);
                if (whole) bytes = whole->bytes();
                else ctx.reporter->warn(whole.error().message);
            }
            list.push_back({{"id", s.id}, {"created", s.created}, {"name", s.name}, {"reason", s.reason}, {"distributions", s.dists.size()},
                            {"files", s.files}, {"bytes", bytes ? Json(*bytes) : Json(nullptr)}, {"changes_after", after}});
            continue;
        }
        Message line = msg(s.name.empty() ? "history.line" : "history.line_named",
                           {{"id", s.id}, {"created", s.created}, {"reason", t(reason_message(s.reason))}, {"name", s.name}});
        print(line);
        if (!after.empty()) print("    " + str::join(after, ", "));
    }
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion}, {"environment", environment_json(env)}, {"snapshots", list}, {"warnings", warnings_json(ctx)}, {"error", nullptr}});
        return;
    }
    if (all.empty()) print(msg("history.empty", {{"path", env.root.string()}}));
}

}  // namespace

void register_history(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<HistoryOptions>();
    auto* cmd = app.add_subcommand("history", help_text("help.history"));
    add_target_options(*cmd, o->target);
    cmd->callback([o, &ctx] { run_history(*o, ctx); });
}

}  // namespace envfix::cli
