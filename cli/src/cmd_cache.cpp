// envfix cache dir|list|clean: the wheel cache and the unpacked-wheel cache shared by every
// environment (issue 6, issue 9; docs/snapshots.md#the-wheel-cache).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "envfix/installer/wheel_cache.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "ready_trees.hpp"

namespace envfix::cli {

namespace {

void run_dir(Context& ctx) {
    auto root = installer::wheel_cache_root();
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion}, {"path", root.string()}, {"error", nullptr}});
        return;
    }
    print(root.string());
}

void run_list(Context& ctx) {
    auto root = installer::wheel_cache_root();
    auto list = installer::list_cached_wheels(root);
    uint64_t total = 0;
    for (const auto& w : list) total += w.size;
    auto uroot = installer::unpacked_cache_root();
    auto unpacked = installer::list_unpacked(uroot);
    uint64_t ubytes = 0;
    size_t ufiles = 0;
    for (const auto& u : unpacked) {
        ubytes += u.bytes;
        ufiles += u.files;
    }
    if (ctx.opts.json) {
        Json a = Json::array();
        for (const auto& w : list) a.push_back({{"filename", w.filename}, {"sha256", w.sha256}, {"size", w.size}, {"path", w.file.string()}});
        Json u = Json::array();
        for (const auto& e : unpacked) u.push_back({{"sha256", e.sha256}, {"files", e.files}, {"bytes", e.bytes}, {"path", e.dir.string()}});
        print_json({{"schema_version", kJsonSchemaVersion}, {"path", root.string()}, {"wheels", a}, {"bytes", total},
                    {"unpacked", {{"path", uroot.string()}, {"entries", u}, {"bytes", ubytes}}}, {"error", nullptr}});
        return;
    }
    for (const auto& w : list) print(w.filename + "  " + str::human_bytes(w.size) + "  sha256:" + w.sha256.substr(0, 12));
    print(msg("cache.summary", {{"count", std::to_string(list.size())}, {"size", str::human_bytes(total)}, {"path", root.string()}}));
    print(msg("cache.unpacked_summary", {{"count", std::to_string(unpacked.size())}, {"files", std::to_string(ufiles)},
                                         {"size", str::human_bytes(ubytes)}, {"path", uroot.string()}}));
}

void run_clean(Context& ctx) {
    auto root = installer::wheel_cache_root();
    auto r = value_or_throw(installer::clean_wheel_cache(root));
    auto uroot = installer::unpacked_cache_root();
    auto u = value_or_throw(installer::clean_unpacked_cache(uroot));
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion}, {"path", root.string()}, {"files_removed", r.files}, {"bytes_freed", r.bytes},
                    {"unpacked", {{"path", uroot.string()}, {"files_removed", u.files}, {"bytes_freed", u.bytes}}}, {"error", nullptr}});
        return;
    }
    print(msg("cache.cleaned", {{"count", std::to_string(r.files)}, {"size", str::human_bytes(r.bytes)}, {"path", root.string()}}));
    print(msg("cache.cleaned", {{"count", std::to_string(u.files)}, {"size", str::human_bytes(u.bytes)}, {"path", uroot.string()}}));
}

struct ReadyOptions {
    std::vector<std::string> facts;  // interpreters to run again for their facts
    bool no_trees = false;
};

// The ready trees installs asked for, and the facts of the interpreters named (envfix starts
// this in the background after an install).
void run_ready(const ReadyOptions& o, Context& ctx) {
    learn_facts_again(o.facts, ctx.reporter);
    auto root = installer::unpacked_cache_root();
    auto made = o.no_trees ? installer::ReadyTreesMade{} : installer::make_ready_trees(root);
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion}, {"path", root.string()}, {"trees", made.trees}, {"files", made.files},
                    {"folders", made.folders}, {"skipped", made.skipped}, {"busy", made.busy}, {"seconds", made.seconds},
                    {"facts", o.facts}, {"error", nullptr}});
        return;
    }
    if (o.no_trees) return;  // what the facts' runs did is said at -v
    if (made.busy) {
        print(msg("cache.ready_busy", {{"path", root.string()}}));
        return;
    }
    print(ready_trees_made(made));
}

}  // namespace

void register_cache(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("cache", help_text("help.cache"));
    cmd->require_subcommand(1);
    cmd->add_subcommand("dir", help_text("help.cache.dir"))->callback([&ctx] { run_dir(ctx); });
    cmd->add_subcommand("list", help_text("help.cache.list"))->callback([&ctx] { run_list(ctx); });
    cmd->add_subcommand("clean", help_text("help.cache.clean"))->callback([&ctx] { run_clean(ctx); });
    auto ready = std::make_shared<ReadyOptions>();
    auto* r = cmd->add_subcommand("ready", help_text("help.cache.ready"));
    r->add_option("--facts", ready->facts, help_text("help.cache.ready.facts"));
    r->add_flag("--no-trees", ready->no_trees, help_text("help.cache.ready.no_trees"));
    r->callback([&ctx, ready] { run_ready(*ready, ctx); });
}

}  // namespace envfix::cli
