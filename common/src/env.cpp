#include "envfix/common/env.hpp"

#include <cstdlib>

#include "envfix/common/utf8.hpp"

namespace envfix::env {

const std::vector<EnvVarInfo>& table() {
    static const std::vector<EnvVarInfo> t = {
        {EnvVar::EnvfixLibcuda, "ENVFIX_LIBCUDA", "CUDA driver library to load instead of libcuda.so.1 / nvcuda.dll"},
        {EnvVar::EnvfixLibnvml, "ENVFIX_LIBNVML", "NVML library to load instead of libnvidia-ml.so.1 / nvml.dll"},
        {EnvVar::EnvfixLibarchive, "ENVFIX_LIBARCHIVE",
         "libarchive to load, by name or path, instead of libarchive.so.13, when envfix first reads a wheel entry compressed with bzip2, "
         "LZMA or zstd (Linux; plain deflate needs none)"},
        {EnvVar::EnvfixLibcurl, "ENVFIX_LIBCURL",
         "libcurl to load, by name or path, instead of libcurl.so.4 (else libcurl-gnutls.so.4), when envfix first downloads (Linux)"},
        {EnvVar::EnvfixSysRoot, "ENVFIX_SYSROOT", "prefix put before /sys and /proc when reading driver files (tests)"},
        {EnvVar::EnvfixNvidiaSmi, "ENVFIX_NVIDIA_SMI", "nvidia-smi program to run instead of the one on PATH"},
        {EnvVar::EnvfixLang, "ENVFIX_LANG", "language of messages: en or zh (else taken from LC_ALL/LC_MESSAGES/LANG)"},
        {EnvVar::EnvfixCacheDir, "ENVFIX_CACHE_DIR", "cache folder (default $XDG_CACHE_HOME/envfix)"},
        {EnvVar::EnvfixConfigDir, "ENVFIX_CONFIG_DIR", "configuration folder (default $XDG_CONFIG_HOME/envfix)"},
        {EnvVar::EnvfixDataDir, "ENVFIX_DATA_DIR", "data folder for snapshots (default $XDG_DATA_HOME/envfix)"},
        {EnvVar::EnvfixIndexUrl, "ENVFIX_INDEX_URL", "root of the PyTorch wheel index or a mirror of it"},
        {EnvVar::EnvfixNoColor, "ENVFIX_NO_COLOR", "no colours in terminal output"},
        {EnvVar::EnvfixProfilesDir, "ENVFIX_PROFILES_DIR", "profiles folder (matrix/, gpus/) to load instead of the built-in copy"},
        {EnvVar::EnvfixFaultAfter, "ENVFIX_FAULT_AFTER",
         "test hook: N kills envfix (SIGKILL) at the Nth fault point of an install transaction; N:int raises Ctrl-C there instead"},
        {EnvVar::EnvfixDownloadFlush, "ENVFIX_DOWNLOAD_FLUSH",
         "each: every checked download is flushed to the disk before it is renamed into the cache and unpacked; batch: an install's "
         "downloads are flushed together once they end, as other downloads are (both for measuring); otherwise an install's downloads are "
         "renamed into the cache beside a marker naming this boot and not flushed"},
        {EnvVar::EnvfixCommitFlush, "ENVFIX_COMMIT_FLUSH",
         "fs: a change to an environment is made durable by flushing its whole filesystem (syncfs), as on filesystems other than ext4 and "
         "XFS (for measuring); otherwise by flushing the files it brings in and the folders it changes"},
        {EnvVar::EnvfixSplitDownloadsAt, "ENVFIX_SPLIT_DOWNLOADS_AT",
         "a file of at least this many bytes downloads in byte ranges over several connections at once (default 67108864; 0: never)"},
        {EnvVar::EnvfixUnpackRunners, "ENVFIX_UNPACK_RUNNERS",
         "how many wheels are unpacked at once while the others download (default half the cores, 4 to 8; 1 to 64)"},
        {EnvVar::EnvfixUnpackEarly, "ENVFIX_UNPACK_EARLY",
         "entries of at least this many bytes are inflated while their wheel downloads (default 16 MiB); 0: only once it is downloaded "
         "(for measuring)"},
        {EnvVar::EnvfixInflateHelpers, "ENVFIX_INFLATE_HELPERS",
         "threads lent, in all, to inflating the largest libraries one stream on several threads while their wheel downloads (default: "
         "half the cores, at most 8, on machines of 8 cores or more where at most 4 wheels download, as in a switch; else 0, which keeps a "
         "cold install's memory bounded); once free they take over the stream on one thread with the most left behind its download; 0: "
         "never"},
        {EnvVar::EnvfixInflateHandover, "ENVFIX_INFLATE_HANDOVER",
         "0: the threads of ENVFIX_INFLATE_HELPERS, once given back, never take over a stream inflated on one thread (default 1; for "
         "measuring what that gives)"},
        {EnvVar::EnvfixMaxDownload, "ENVFIX_MAX_DOWNLOAD",
         "the most bytes one download may write where neither the index nor the server announced its size (a number of bytes, or with K, M "
         "or G); default 8G. An announced size is a hard limit whatever this says"},
        {EnvVar::EnvfixReadyTrees, "ENVFIX_READY_TREES",
         "background: after an install envfix starts `envfix cache ready` in the background, which links a large wheel's files in advance "
         "into the folders they take (ready trees, renamed into the next environment whole) for wheels of 64 files or more, and learns "
         "again the facts of interpreters whose .pth files changed; wait: the same before envfix exits, for wheels of any size (tests, "
         "measuring); unset or anything else: neither, and no process outlives the command"},
        {EnvVar::EnvfixScatteredReads, "ENVFIX_SCATTERED_READS",
         "1: libraries' fatbins are read from the disk page by page (their headers only) whatever the disk; 0: never, read-ahead as the "
         "system sets it; default: page by page unless /sys says the disk rotates and it is not on a virtual machine's bus (virtio, Xen, "
         "Hyper-V)"},
        {EnvVar::EnvfixInflateStreams, "ENVFIX_INFLATE_STREAMS",
         "how many of a wheel's costliest deflate streams share the threads of ENVFIX_INFLATE_HELPERS, each taking at most its share "
         "(default 1: all go to the costliest; 1 to 4; for measuring)"},
        {EnvVar::CudaVisibleDevices, "CUDA_VISIBLE_DEVICES", "GPUs the CUDA driver shows (envfix says when it hides some)"},
        {EnvVar::LdLibraryPath, "LD_LIBRARY_PATH",
         "where the loader looks for libcuda.so.1; another value probes again instead of taking the probe remembered for the boot"},
        {EnvVar::VirtualEnv, "VIRTUAL_ENV", "the active virtual environment (default target)"},
        {EnvVar::CondaPrefix, "CONDA_PREFIX", "the active conda environment (default target)"},
        {EnvVar::Path, "PATH", "where python3 and nvidia-smi are looked for"},
        {EnvVar::Home, "HOME", "home folder (~/.virtualenvs, ~/.conda, ~/.netrc)"},
        {EnvVar::UserProfile, "USERPROFILE", "home folder on Windows"},
        {EnvVar::LocalAppData, "LOCALAPPDATA", "cache and data root on Windows"},
        {EnvVar::AppData, "APPDATA", "configuration root on Windows"},
        {EnvVar::XdgCacheHome, "XDG_CACHE_HOME", "cache root"},
        {EnvVar::XdgConfigHome, "XDG_CONFIG_HOME", "configuration root"},
        {EnvVar::XdgDataHome, "XDG_DATA_HOME", "data root"},
        {EnvVar::PipIndexUrl, "PIP_INDEX_URL", "package index, as pip reads it"},
        {EnvVar::PipExtraIndexUrl, "PIP_EXTRA_INDEX_URL", "extra package indexes (space separated), as pip reads it"},
        {EnvVar::UvIndexUrl, "UV_INDEX_URL", "package index, as uv reads it"},
        {EnvVar::UvExtraIndexUrl, "UV_EXTRA_INDEX_URL", "extra package indexes, as uv reads it"},
        {EnvVar::SslCertFile, "SSL_CERT_FILE", "CA bundle for TLS verification"},
        {EnvVar::RequestsCaBundle, "REQUESTS_CA_BUNDLE", "CA bundle for TLS verification (as requests/pip read it)"},
        {EnvVar::Netrc, "NETRC", "netrc file with index credentials (default ~/.netrc)"},
        {EnvVar::HttpProxy, "HTTP_PROXY", "proxy for http:// (also http_proxy)"},
        {EnvVar::HttpsProxy, "HTTPS_PROXY", "proxy for https:// (also https_proxy)"},
        {EnvVar::AllProxy, "ALL_PROXY", "proxy for every scheme (also all_proxy)"},
        {EnvVar::NoProxy, "NO_PROXY", "hosts reached without a proxy (also no_proxy)"},
        {EnvVar::LcAll, "LC_ALL", "locale; zh* selects Chinese messages"},
        {EnvVar::LcMessages, "LC_MESSAGES", "locale of messages; zh* selects Chinese"},
        {EnvVar::Lang, "LANG", "locale; zh* selects Chinese messages"},
        {EnvVar::NoColor, "NO_COLOR", "no colours in terminal output (no-color.org)"},
        {EnvVar::Term, "TERM", "dumb: no colours and no cursor movement (progress is not redrawn in place)"},
    };
    return t;
}

std::string_view name(EnvVar v) {
    for (const auto& i : table())
        if (i.var == v) return i.name;
    return {};
}

std::optional<std::string> get(EnvVar v) {
    std::string n(name(v));
    auto value = utf8::environment_variable(n);
    // Proxy variables are also read in lower case, as curl and pip do.
    if ((!value || value->empty()) && n.size() > 6 && n.ends_with("_PROXY")) {
        std::string lowered;
        for (char c : n) lowered += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        value = utf8::environment_variable(lowered);
    }
    if (!value || value->empty()) return std::nullopt;
    return value;
}

std::string get_or(EnvVar v, std::string_view fallback) {
    auto value = get(v);
    return value ? *value : std::string(fallback);
}

std::optional<std::string> get_raw(EnvVar v) { return utf8::environment_variable(std::string(name(v))); }

}  // namespace envfix::env
