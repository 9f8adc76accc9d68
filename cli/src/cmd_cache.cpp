// envfix cache dir|list|clean: the wheel cache shared by every environment (issue 6;
// docs/snapshots.md#the-wheel-cache).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/installer/wheel_cache.hpp"
#include "output.hpp"

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
    if (ctx.opts.json) {
        Json a = Json::array();
        for (const auto& w : list) a.push_back({{"filename", w.filename}, {"sha256", w.sha256}, {"size", w.size}, {"path", w.file.string()}});
        print_json({{"schema_version", kJsonSchemaVersion}, {"path", root.string()}, {"wheels", a}, {"bytes", total}, {"error", nullptr}});
        return;
    }
    for (const auto& w : list) print(w.filename + "  " + str::human_bytes(w.size) + "  sha256:" + w.sha256.substr(0, 12));
    print(msg("cache.summary", {{"count", std::to_string(list.size())}, {"size", str::human_bytes(total)}, {"path", root.string()}}));
}

void run_clean(Context& ctx) {
    auto root = installer::wheel_cache_root();
    auto r = value_or_throw(installer::clean_wheel_cache(root));
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion}, {"path", root.string()}, {"files_removed", r.files}, {"bytes_freed", r.bytes},
                    {"error", nullptr}});
        return;
    }
    print(msg("cache.cleaned", {{"count", std::to_string(r.files)}, {"size", str::human_bytes(r.bytes)}, {"path", root.string()}}));
}

}  // namespace

void register_cache(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("cache", "the wheel cache shared by every environment: where it is, what it holds, emptying it");
    cmd->require_subcommand(1);
    cmd->add_subcommand("dir", "print the wheel cache's folder")->callback([&ctx] { run_dir(ctx); });
    cmd->add_subcommand("list", "list the cached wheels")->callback([&ctx] { run_list(ctx); });
    cmd->add_subcommand("clean", "remove every cached wheel and partial download")->callback([&ctx] { run_clean(ctx); });
}

}  // namespace envfix::cli
