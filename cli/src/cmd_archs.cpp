// envfix archs: which GPU architectures libraries really hold, read from their fatbins (issue 3):
// named files, or the GPU libraries of an environment (torch/lib, nvidia/*/lib, extensions).
#include <CLI/CLI.hpp>

#include "context.hpp"
#include "env_json.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/arch_cache.hpp"
#include "help_text.hpp"
#include "output.hpp"
#include "target_options.hpp"

namespace envfix::cli {

namespace stdfs = std::filesystem;

namespace {

struct ArchsOptions {
    std::vector<std::string> files;
    TargetOptions target;
    bool all = false;
};

std::string extras_cell(const probe::BinaryArchs& a) {
    std::vector<std::string> parts;
    for (const auto& s : a.sass)
        if (!s.primary) parts.push_back(s.arch.sm_tag() + "\xC3\x97" + std::to_string(s.cubins));  // "×"
    for (const auto& p : a.ptx)
        if (!p.primary) parts.push_back(p.arch.compute_tag() + "\xC3\x97" + std::to_string(p.entries));
    return str::join(parts, " ");
}

std::string ptx_isa_cell(const probe::BinaryArchs& a) {
    std::vector<std::string> isas;
    for (const auto& p : a.ptx)
        if (std::find(isas.begin(), isas.end(), p.isa.to_string()) == isas.end()) isas.push_back(p.isa.to_string());
    return str::join(isas, " ");
}

void run_archs(const ArchsOptions& o, Context& ctx) {
    std::vector<stdfs::path> paths;
    std::vector<std::string> packages;
    std::optional<probe::Environment> env;
    std::vector<stdfs::path> roots;  // libraries are shown relative to these
    if (!o.files.empty()) {
        if (o.target.given()) throw Failure(ExitCode::Usage, "archs.files_and_target");
        for (const auto& f : o.files) {
            paths.emplace_back(f);
            packages.emplace_back();
        }
    } else {
        env = resolve_target(o.target, ctx, TargetNeed::Files);
        for (const auto& sp : env->site_packages) {
            roots.push_back(sp);
            for (auto& lib : probe::gpu_library_candidates(sp)) {
                paths.push_back(std::move(lib.path));
                packages.push_back(std::move(lib.package));
            }
        }
    }
    auto cache = probe::ArchCache::load(probe::ArchCache::default_path());
    auto results = probe::scan_package_archs(paths, &cache);
    if (auto saved = cache.save(); !saved) ctx.reporter->debug(saved.error().message);

    int failed = 0, cached = 0, plain = 0;
    for (const auto& r : results) {
        failed += r.archs ? 0 : 1;
        cached += r.from_cache ? 1 : 0;
        plain += (r.archs && !r.archs->has_gpu_code()) ? 1 : 0;
    }
    // Named files that all fail: one clear error line and its exit code.
    if (!o.files.empty() && failed == static_cast<int>(results.size())) throw Failure(results.front().archs.error());
    for (const auto& r : results)
        if (!r.archs) ctx.reporter->warn(r.archs.error().message);
    if (failed > 0) ctx.exit_code = ExitCode::BadInput;

    auto shown = [&](const stdfs::path& p) {
        for (const auto& root : roots) {
            auto rel = p.lexically_relative(root);
            if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
        }
        return p.string();
    };
    if (ctx.opts.json) {
        Json libs = Json::array(), errors = Json::array();
        for (size_t i = 0; i < results.size(); ++i) {
            const auto& r = results[i];
            if (!r.archs) {
                Json e = {{"path", r.path.string()}};
                e.update(error_json(r.archs.error()));
                errors.push_back(std::move(e));
                continue;
            }
            Json j = {{"path", r.path.string()}, {"package", packages[i].empty() ? Json(nullptr) : Json(packages[i])},
                      {"from_cache", r.from_cache}};
            j.update(binary_archs_json(*r.archs));
            libs.push_back(std::move(j));
        }
        print_json({{"schema_version", kJsonSchemaVersion},
                    {"environment", env ? environment_json(*env) : Json(nullptr)},
                    {"libraries", libs},
                    {"errors", errors}});
        return;
    }
    if (env)
        print(msg("archs.environment", {{"root", env->root.string()}, {"kind", std::string(probe::env_kind_name(env->kind))},
                                        {"python", env->facts.version.empty() ? "?" : env->facts.version}}));
    Table table({t(msg("archs.header.library")), t(msg("archs.header.archs")), t(msg("archs.header.extras")),
                 t(msg("archs.header.ptx_isa")), t(msg("archs.header.note"))});
    for (const auto& r : results) {
        if (!r.archs || (!r.archs->has_gpu_code() && !o.all)) continue;
        const auto& a = *r.archs;
        std::string archs = a.has_gpu_code() ? str::join(a.arch_list(), " ") : t(msg("archs.no_gpu_code"));
        table.add({shown(r.path), archs, extras_cell(a), ptx_isa_cell(a), a.partial ? t(msg("archs.partial")) : ""});
    }
    if (!table.empty()) {
        std::string text = table.str();
        text.pop_back();
        print(text);
    }
    print(msg("archs.summary", {{"count", std::to_string(results.size())}, {"cached", std::to_string(cached)},
                                {"plain", std::to_string(plain)}}));
    for (const auto& r : results)
        if (r.archs && r.archs->partial)
            for (const auto& m : r.archs->problems) print("  " + t(m));
}

}  // namespace

void register_archs(CLI::App& app, Context& ctx) {
    auto opts = std::make_shared<ArchsOptions>();
    auto* cmd = app.add_subcommand("archs", help_text("help.archs"));
    cmd->add_option("files", opts->files, help_text("help.archs.files"));
    cmd->add_flag("--all", opts->all, help_text("help.archs.all"));
    add_target_options(*cmd, opts->target);
    cmd->callback([opts, &ctx] { run_archs(*opts, ctx); });
}

}  // namespace envfix::cli
