#pragma once
// The one place that lists the environment variables envfix reads. Code asks for a variable
// through env::get(EnvVar::X); docs/environment.md is checked against this table by a test.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envfix {

enum class EnvVar {
    // envfix's own
    EnvfixLibcuda,  // path of the CUDA driver library to load instead of libcuda.so.1
    EnvfixLibnvml,  // path of the NVML library to load instead of libnvidia-ml.so.1
    EnvfixLibcurl,  // the libcurl to load instead of libcurl.so.4 (else libcurl-gnutls.so.4); POSIX
    EnvfixLibarchive,  // the libarchive to load instead of libarchive.so.13; POSIX
    EnvfixSysRoot,  // prefix for /sys and /proc reads (tests)
    EnvfixNvidiaSmi,  // nvidia-smi program to run (tests)
    EnvfixLang,  // en | zh
    EnvfixCacheDir,  // cache root instead of $XDG_CACHE_HOME/envfix
    EnvfixConfigDir,  // config root instead of $XDG_CONFIG_HOME/envfix
    EnvfixDataDir,  // data root (snapshots) instead of $XDG_DATA_HOME/envfix
    EnvfixIndexUrl,  // PyTorch index root
    EnvfixNoColor,
    EnvfixProfilesDir,  // profiles folder to load instead of the built-in matrix
    EnvfixFaultAfter,  // test hook: kill envfix at the Nth fault point of a transaction
    EnvfixDownloadFlush,  // "each" / "batch": how downloads reach the disk (for measuring)
    EnvfixCommitFlush,  // "fs": a commit flushes whole filesystems, not file by file
    EnvfixSplitDownloadsAt,  // files this large download over several connections
    EnvfixUnpackRunners,  // wheels unpacked at once while downloading
    EnvfixUnpackEarly,  // 0: no inflating of a wheel's entries before it is complete
    EnvfixInflateHelpers,  // threads lent to one large deflate stream inflated while downloading
    EnvfixInflateStreams,  // how many of a wheel's costliest streams share those threads
    EnvfixInflateHandover,  // 0: those threads, once free, never take over a stream on one thread
    EnvfixReadyTrees,  // background / wait: ready trees made after an install; else none
    EnvfixMaxDownload,  // the most bytes one download may take where no size was announced
    EnvfixScatteredReads,  // 1 / 0: fatbins read page by page whatever the disk says / never
    // CUDA
    CudaVisibleDevices,
    LdLibraryPath,  // where the loader finds libcuda.so.1 (part of the probe cache's key)
    // Python environments
    VirtualEnv,
    CondaPrefix,
    Path,
    Home,
    UserProfile,  // Windows home
    LocalAppData,  // Windows cache/data root
    AppData,  // Windows config root
    // XDG
    XdgCacheHome,
    XdgConfigHome,
    XdgDataHome,
    // indexes, as pip and uv users write them
    PipIndexUrl,
    PipExtraIndexUrl,
    UvIndexUrl,
    UvExtraIndexUrl,
    SslCertFile,
    RequestsCaBundle,
    Netrc,
    HttpProxy,
    HttpsProxy,
    AllProxy,
    NoProxy,
    // language
    LcAll,
    LcMessages,
    Lang,
    NoColor,
    Term,
};

struct EnvVarInfo {
    EnvVar var;
    std::string_view name;
    std::string_view purpose;
};

namespace env {
const std::vector<EnvVarInfo>& table();
std::string_view name(EnvVar v);
// Unset and empty both read as nullopt.
std::optional<std::string> get(EnvVar v);
std::string get_or(EnvVar v, std::string_view fallback);
// Distinguishes set-but-empty ("") from unset (nullopt): CUDA_VISIBLE_DEVICES= hides all GPUs.
std::optional<std::string> get_raw(EnvVar v);
}  // namespace env

}  // namespace envfix
