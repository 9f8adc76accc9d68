// envfix fetch --lock FILE --dest DIR: the locked wheels downloaded (sha256 checked) into a folder
// an air-gapped machine installs from, flat or as a PEP 503 tree any web server can serve
// (docs/provisioning.md#offline-machines).
#include <CLI/CLI.hpp>

#include <map>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/installer/lock_file.hpp"
#include "envfix/installer/wheel_folder.hpp"
#include "envfix/network/downloader.hpp"
#include "help_text.hpp"
#include "index_options.hpp"
#include "output.hpp"

namespace envfix::cli {

namespace {

namespace stdfs = std::filesystem;
using installer::FolderWheel;
using installer::WheelLayout;

struct FetchOptions {
    std::string lock, dest, layout = "pep503";
};

bool has_bytes(const stdfs::path& p, const std::string& sha256) {
    std::error_code ec;
    if (!stdfs::is_regular_file(p, ec)) return false;
    auto got = sha256_file_hex(p);
    return got && *got == sha256;
}

void run_fetch(Context& ctx, const FetchOptions& o, const network::IndexConfig& config) {
    if (o.layout != "flat" && o.layout != "pep503") throw Failure(ExitCode::Usage, "apply.fetch_bad_layout", {{"value", o.layout}});
    auto layout = o.layout == "flat" ? WheelLayout::Flat : WheelLayout::Pep503;
    auto lock = value_or_throw(installer::parse_lock(value_or_throw(fs::read_file(o.lock)), o.lock));
    stdfs::path dest = stdfs::absolute(o.dest);
    std::vector<network::DownloadItem> items;
    std::map<std::string, std::vector<FolderWheel>> projects;
    std::vector<FolderWheel> all;
    size_t present = 0;
    for (const auto& w : lock.wheels) {
        FolderWheel f{w.canonical_name, w.filename, w.sha256};
        projects[w.canonical_name].push_back(f);
        all.push_back(f);
        auto path = dest / installer::wheel_folder_path(layout, f);
        if (has_bytes(path, w.sha256)) {
            ++present;
            continue;
        }
        std::error_code ec;
        stdfs::create_directories(path.parent_path(), ec);
        items.push_back({w.url, w.sha256, w.size, path, w.name + " " + w.version});
    }
    auto results = network::download_files(items, config.http_options(), *ctx.reporter, {.parallel = config.parallel_downloads.value});
    for (const auto& r : results)
        if (!r.ok()) throw Failure(*r.error);
    // The pages last: a folder with pages is complete.
    if (layout == WheelLayout::Pep503) {
        std::vector<std::string> names;
        for (const auto& [name, files] : projects) {
            names.push_back(name);
            value_or_throw(fs::write_file_atomic(dest / name / "index.html", installer::project_page(name, files)));
        }
        value_or_throw(fs::write_file_atomic(dest / "index.html", installer::root_page(names)));
    } else {
        value_or_throw(fs::write_file_atomic(dest / "index.html", installer::flat_page(all)));
    }
    value_or_throw(fs::write_file_atomic(dest / "envfix.lock", installer::serialize_lock(lock)));
    if (ctx.opts.json) {
        print_json({{"schema_version", kJsonSchemaVersion}, {"dest", dest.string()}, {"layout", o.layout},
                    {"wheels", lock.wheels.size()}, {"fetched", items.size()}, {"present", present}, {"error", nullptr}});
    } else {
        print(msg("apply.fetched", {{"dest", dest.string()}, {"count", std::to_string(lock.wheels.size())},
                                    {"fetched", std::to_string(items.size())}, {"present", std::to_string(present)}, {"layout", o.layout}}));
    }
}

}  // namespace

void register_fetch(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<FetchOptions>();
    auto* cmd = app.add_subcommand("fetch", help_text("help.fetch"));
    cmd->add_option("--lock", o->lock, help_text("help.fetch.lock"))->required();
    cmd->add_option("--dest", o->dest, help_text("help.fetch.dest"))->required();
    cmd->add_option("--layout", o->layout, help_text("help.fetch.layout"));
    auto idx = add_index_options(*cmd);
    cmd->callback([&ctx, o, idx] { run_fetch(ctx, *o, resolve_index_config(*idx)); });
}

}  // namespace envfix::cli
