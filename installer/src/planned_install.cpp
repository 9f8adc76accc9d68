// The wheels of a plan or a lock obtained and installed in one transaction (planned_install.hpp).
#include "envfix/installer/planned_install.hpp"

#include <algorithm>
#include <system_error>

#include "envfix/common/hash.hpp"
#include "envfix/installer/wheel_folder.hpp"
#include "envfix/network/downloader.hpp"
#include "envfix/standards/names.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

bool is_url(std::string_view s) { return s.starts_with("http://") || s.starts_with("https://") || s.starts_with("file://"); }

FolderWheel folder_wheel(const WheelToInstall& w) { return {standards::canonicalize_name(w.name), w.filename, w.sha256}; }

// A file whose bytes are those of `w`, else the error naming it. An unknown hash (nightly plan
// wheels) trusts the file: install() still checks every entry against RECORD.
Expected<void> check_file(const stdfs::path& p, const WheelToInstall& w) {
    if (w.sha256.empty()) return {};
    auto got = sha256_file_hex(p);
    if (!got) return unexpected(got.error());
    if (*got != w.sha256)
        return fail(ExitCode::HashMismatch, "apply.folder_hash_mismatch",
                    {{"path", p.string()}, {"expected", w.sha256}, {"got", *got}});
    return {};
}

// Size-only check for envfix's own download folder: its files were hashed when they arrived.
bool complete_download(const stdfs::path& p, const WheelToInstall& w) {
    std::error_code ec;
    if (!stdfs::is_regular_file(p, ec)) return false;
    auto size = stdfs::file_size(p, ec);
    return !ec && (!w.size || size == *w.size);
}

}  // namespace

std::vector<WheelToInstall> planned_wheels(const plan::Plan& plan) {
    std::vector<WheelToInstall> out;
    for (const auto& w : plan.install) {
        // Asked for by the plan itself (torch and its companions): REQUESTED, as pip marks them.
        bool requested = w.required_by.empty() ||
                         std::any_of(w.required_by.begin(), w.required_by.end(), [](const std::string& r) { return r.empty(); });
        out.push_back({w.name, w.version, w.filename, w.url, w.sha256, w.size, requested});
    }
    return out;
}

std::vector<std::string> planned_removals(const plan::Plan& plan) {
    std::vector<std::string> out;
    for (const auto& r : plan.remove) out.push_back(r.name);
    return out;
}

std::vector<WheelToInstall> locked_wheels(const std::vector<LockChange>& changes) {
    std::vector<WheelToInstall> out;
    for (const auto& c : changes)
        out.push_back({c.wheel.name, c.wheel.version, c.wheel.filename, c.wheel.url, c.wheel.sha256, c.wheel.size, c.wheel.framework});
    return out;
}

Expected<std::vector<stdfs::path>> obtain_wheels(const std::vector<WheelToInstall>& wheels, const WheelSources& sources,
                                                 Reporter& reporter) {
    std::vector<stdfs::path> out(wheels.size());
    std::vector<network::DownloadItem> items;
    std::vector<size_t> item_of;
    const bool folder_url = sources.folder && is_url(*sources.folder);
    for (size_t i = 0; i < wheels.size(); ++i) {
        const auto& w = wheels[i];
        if (sources.folder && !folder_url) {
            if (auto p = find_in_wheel_folder(*sources.folder, folder_wheel(w))) {
                ENVFIX_TRY_VOID(check_file(*p, w));
                out[i] = *p;
                continue;
            }
        }
        // Kept by sha256 (or by URL's file name when the page gave no hash).
        stdfs::path dest = sources.download_dir / (w.sha256.empty() ? std::string("unhashed") : w.sha256) / w.filename;
        if (!w.sha256.empty() && complete_download(dest, w)) {
            out[i] = dest;
            continue;
        }
        std::string url = w.url;
        if (folder_url) {
            auto layout = sources.layout == "pep503" ? WheelLayout::Pep503 : WheelLayout::Flat;
            url = wheel_folder_url(*sources.folder, layout, folder_wheel(w));
        }
        items.push_back({url, w.sha256, w.size, dest, w.name + " " + w.version});
        item_of.push_back(i);
    }
    if (!items.empty()) {
        std::error_code ec;
        for (const auto& it : items) stdfs::create_directories(it.dest.parent_path(), ec);
        reporter.debug(msg("apply.downloading", {{"count", std::to_string(items.size())}}));
        auto results = network::download_files(items, sources.http, reporter, {.parallel = sources.parallel});
        for (size_t k = 0; k < results.size(); ++k) {
            if (!results[k].ok()) return unexpected(*results[k].error);
            out[item_of[k]] = results[k].path;
        }
    }
    return out;
}

namespace {

// The install() request for the planned wheels, once each is here.
Expected<InstallRequest> install_request(const PlannedInstallRequest& request, Reporter& reporter) {
    InstallRequest req;
    req.remove = request.remove;
    req.wait_for_lock = request.wait_for_lock;
    req.snapshot_reason = request.snapshot_reason;
    auto files = obtain_wheels(request.wheels, request.sources, reporter);
    if (!files) return unexpected(files.error());
    for (size_t i = 0; i < files->size(); ++i) {
        WheelRequest w;
        w.file = (*files)[i];
        w.requested = request.wheels[i].requested;
        req.wheels.push_back(std::move(w));  // index installs: no direct_url.json (PEP 610)
    }
    return req;
}

}  // namespace

Expected<InstallResult> install_planned_wheels(const probe::Environment& env, const PlannedInstallRequest& request, Reporter& reporter) {
    ENVFIX_TRY(auto req, install_request(request, reporter));
    return install(env, req, reporter);
}

Expected<VerifiedInstall> install_planned_verified(const probe::Environment& env, const PlannedInstallRequest& request,
                                                   const VerifiedInstallOptions& options, Reporter& reporter) {
    ENVFIX_TRY(auto req, install_request(request, reporter));
    return install_verified(env, std::move(req), options, reporter);
}

}  // namespace envfix::installer
