// The binary snapshot of the app profiles the build embeds beside the matrix's (same encoding,
// snapshot_codec.hpp); a version header rejects snapshots of another layout.
#include <cstring>
#include <tuple>

#include "envfix/apps/app_profiles.hpp"
#include "envfix/matrix/snapshot_codec.hpp"

namespace envfix::apps {

namespace {

// Bump when a model type gains, loses or reorders a field.
constexpr uint32_t kAppSnapshotVersion = 1;
constexpr char kMagic[4] = {'E', 'F', 'A', 'P'};

struct AppFields {
    static auto of(probe::VenvSetting& x) { return std::tie(x.file, x.key); }
    static auto of(probe::AppLayoutSpec& x) {
        return std::tie(x.name, x.os, x.markers, x.absent, x.venv_settings, x.environments, x.code, x.pip_may_be_missing, x.start,
                        x.launcher);
    }
    static auto of(probe::AppPlace& x) { return std::tie(x.os, x.path); }
    static auto of(probe::AppSignature& x) { return std::tie(x.name, x.display, x.aliases, x.layouts, x.places); }
    static auto of(AppRequirementsFile& x) { return std::tie(x.path, x.os); }
    static auto of(AppInstallerPin& x) { return std::tie(x.package, x.version); }
    static auto of(AppInstaller& x) { return std::tie(x.override_env, x.when, x.pins, x.source); }
    static auto of(AppProfile& x) {
        return std::tie(x.app, x.homepage, x.summary, x.packages, x.optional, x.torch, x.torch_source, x.installer, x.requirements,
                        x.distributions, x.file);
    }
    static auto of(AppCatalog& x) { return std::tie(x.apps); }
};

}  // namespace

std::string encode_app_snapshot(const AppCatalog& c) {
    matrix::detail::SnapshotWriter<AppFields> w;
    w.out.append(kMagic, 4);
    w.u64(kAppSnapshotVersion);
    w.put(c);
    return w.out;
}

Expected<AppCatalog> decode_app_snapshot(std::string_view bytes) {
    if (bytes.size() < 5 || std::memcmp(bytes.data(), kMagic, 4) != 0)
        return fail(ExitCode::Internal, "apps.bad_snapshot", {{"detail", "magic"}});
    matrix::detail::SnapshotReader<AppFields> r{bytes.substr(4)};
    if (r.u64() != kAppSnapshotVersion) return fail(ExitCode::Internal, "apps.bad_snapshot", {{"detail", "version"}});
    AppCatalog c;
    r.get(c);
    if (!r.ok || !r.in.empty()) return fail(ExitCode::Internal, "apps.bad_snapshot", {{"detail", "truncated"}});
    return c;
}

}  // namespace envfix::apps
