// Portable parts of the file helpers; the platform files hold mmap, locks, fsync, identity.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <random>

#include "envfix/common/env.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/common/platform.hpp"

namespace envfix::fs {

Expected<std::string> read_file(const stdfs::path& p, uint64_t at_most) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
        std::error_code ec;
        const char* why = stdfs::exists(p, ec) ? "permission denied or not a file" : "no such file";
        return fail(ExitCode::BadInput, "fs.read_failed", {{"path", p.string()}, {"reason", why}});
    }
    // Read to the end rather than trusting the size: /proc files say 0 bytes and /sys files 4096,
    // whatever they hold (boot_id, the driver's version).
    std::string data;
    in.seekg(0, std::ios::end);
    if (auto size = in.tellg(); size > 0) data.reserve(static_cast<size_t>(std::min<uint64_t>(static_cast<uint64_t>(size), at_most)));
    in.seekg(0);
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        data.append(buf, static_cast<size_t>(in.gcount()));
        if (data.size() > at_most)
            return fail(ExitCode::BadInput, "fs.read_failed",
                        {{"path", p.string()}, {"reason", render(msg("reason.too_large", {{"bytes", std::to_string(at_most)}}))}});
    }
    if (in.bad()) return fail(ExitCode::BadInput, "fs.read_failed", {{"path", p.string()}, {"reason", render(msg("reason.read_error"))}});
    return data;
}

std::string FileIdentity::to_string() const {
    return std::to_string(device) + ":" + std::to_string(inode) + ":" + std::to_string(size) + ":" +
           std::to_string(mtime_ns);
}

stdfs::path temp_path_beside(const stdfs::path& target) {
    static std::atomic<unsigned> counter{0};
    static const unsigned long long seed = std::random_device{}() ^
        static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    auto name = "." + target.filename().string() + ".envfix-tmp-" + std::to_string(seed % 1000000007ULL) + "-" +
                std::to_string(counter++);
    return target.parent_path() / name;
}

namespace {
stdfs::path from_env_or(EnvVar own, EnvVar xdg, const char* fallback_rel, EnvVar win_root) {
    if (auto v = env::get(own)) return stdfs::path(*v);
    if (platform::current_os() == platform::Os::Windows) {
        if (auto root = env::get(win_root)) return stdfs::path(*root) / "envfix";
    }
    if (auto v = env::get(xdg)) return stdfs::path(*v) / "envfix";
    auto home = home_dir();
    return (home ? *home : stdfs::temp_directory_path()) / fallback_rel / "envfix";
}
}  // namespace

stdfs::path cache_dir() { return from_env_or(EnvVar::EnvfixCacheDir, EnvVar::XdgCacheHome, ".cache", EnvVar::LocalAppData); }
stdfs::path config_dir() { return from_env_or(EnvVar::EnvfixConfigDir, EnvVar::XdgConfigHome, ".config", EnvVar::AppData); }
stdfs::path data_dir() { return from_env_or(EnvVar::EnvfixDataDir, EnvVar::XdgDataHome, ".local/share", EnvVar::LocalAppData); }

std::optional<stdfs::path> home_dir() {
    if (auto h = env::get(EnvVar::Home)) return stdfs::path(*h);
    if (auto h = env::get(EnvVar::UserProfile)) return stdfs::path(*h);
    return std::nullopt;
}

ExitCode exit_code_for_errno(int err) {
    switch (err) {
        case ENOSPC:
#ifdef EDQUOT
        case EDQUOT:
#endif
            return ExitCode::DiskFull;
        case EACCES:
        case EPERM:
        case EROFS:
            return ExitCode::PermissionDenied;
        default:
            return ExitCode::Internal;
    }
}

}  // namespace envfix::fs
