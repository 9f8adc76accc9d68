// Reading many libraries: cache first, then the rest in parallel (large libraries first, so
// the slowest file does not start last).
#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "envfix/common/fs.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/arch_cache.hpp"
#include "envfix/probe/binary_archs.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

std::vector<LibraryArchs> scan_package_archs(const std::vector<stdfs::path>& paths, ArchCache* cache, unsigned threads) {
    std::vector<LibraryArchs> out;
    out.reserve(paths.size());
    std::vector<std::optional<fs::FileIdentity>> ids(paths.size());
    std::vector<size_t> todo;
    for (size_t i = 0; i < paths.size(); ++i) {
        out.push_back(LibraryArchs{paths[i], BinaryArchs{}, false});
        ids[i] = fs::identity(paths[i]);
        if (cache && ids[i]) {
            if (auto hit = cache->find(paths[i], *ids[i])) {
                out[i].archs = std::move(*hit);
                out[i].from_cache = true;
                continue;
            }
        }
        todo.push_back(i);
    }
    std::sort(todo.begin(), todo.end(), [&](size_t a, size_t b) {
        return (ids[a] ? ids[a]->size : 0) > (ids[b] ? ids[b]->size : 0);
    });
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<size_t>(threads, todo.size()));
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t k = next++; k < todo.size(); k = next++) {
            const size_t i = todo[k];
            // Ctrl-C: the files not read yet become errors, so nothing unread is cached.
            out[i].archs = interrupt_requested()
                ? Expected<BinaryArchs>(fail(ExitCode::Interrupted, "binary.interrupted", {{"path", paths[i].string()}}))
                : read_binary_archs(paths[i]);
        }
    };
    if (threads <= 1) {
        work();
    } else {
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
        for (auto& t : pool) t.join();
    }
    if (cache) {
        for (size_t i : todo) {
            // Only files that stayed the same while they were read are cached.
            if (out[i].archs && ids[i] && fs::identity(paths[i]) == ids[i]) cache->put(paths[i], *ids[i], *out[i].archs);
        }
    }
    return out;
}

const std::vector<std::string>& known_cuda_extension_packages() {
    // Packages that ship their own CUDA kernels next to torch's (their wheels are built for one
    // torch and one architecture list, and fail on their own when it misses the GPU).
    static const std::vector<std::string> k = {
        "xformers", "flash_attn", "flash_attn_3", "flash_attn_interface", "torchvision", "torchaudio",
        "bitsandbytes", "sageattention", "sageattn", "spas_sage_attn", "nunchaku", "apex", "vllm", "triton_kernels",
        "deepspeed", "onnxruntime", "cupy", "cupy_backends", "pytorch3d", "mmcv", "detectron2", "spconv", "cumm",
        "torch_scatter", "torch_sparse", "torch_cluster", "natten", "mamba_ssm", "causal_conv1d", "gsplat", "tensorrt_libs"};
    return k;
}

bool is_library_file_name(std::string_view n) {
    // No lowered copy: this runs for every row of the RECORDs read (framework_stack.cpp).
    auto ends_with = [&](std::string_view suffix) {
        return n.size() >= suffix.size() && str::iequals(n.substr(n.size() - suffix.size()), suffix);
    };
    if (ends_with(".so") || ends_with(".pyd") || ends_with(".dll")) return true;
    for (size_t at = n.find('.'); at != std::string_view::npos && at + 4 <= n.size(); at = n.find('.', at + 1))
        if (str::iequals(n.substr(at, 4), ".so.")) return true;
    return false;
}

namespace {
void add_files(const stdfs::path& dir, const std::string& package, bool recursive, std::vector<GpuLibrary>& out) {
    std::error_code ec;
    if (!stdfs::is_directory(dir, ec)) return;
    auto take = [&](const stdfs::directory_entry& e) {
        std::error_code fec;
        if (e.is_regular_file(fec) && is_library_file_name(e.path().filename().string())) out.push_back({e.path(), package});
    };
    if (recursive) {
        for (auto it = stdfs::recursive_directory_iterator(dir, stdfs::directory_options::skip_permission_denied, ec);
             !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec))
            take(*it);
    } else {
        for (auto it = stdfs::directory_iterator(dir, ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) take(*it);
    }
}
}  // namespace

std::vector<GpuLibrary> gpu_library_candidates(const stdfs::path& sp, const std::vector<std::string>& extra_packages,
                                               std::vector<GpuLibrary> listed) {
    std::vector<GpuLibrary> out;
    add_files(sp / "torch" / "lib", "torch", false, out);
    std::error_code ec;
    for (auto it = stdfs::directory_iterator(sp / "nvidia", ec); !ec && it != stdfs::directory_iterator(); it.increment(ec)) {
        std::error_code dec;
        if (!it->is_directory(dec)) continue;
        const std::string pkg = "nvidia/" + it->path().filename().string();
        add_files(it->path() / "lib", pkg, false, out);
        add_files(it->path() / "bin", pkg, false, out);  // Windows wheels keep their DLLs in bin/
    }
    std::vector<std::string> packages = known_cuda_extension_packages();
    packages.insert(packages.end(), extra_packages.begin(), extra_packages.end());
    for (const auto& p : packages) add_files(sp / p, p, true, out);
    // Extension modules built by torch.utils.cpp_extension often land in site-packages itself.
    std::vector<GpuLibrary> top;
    add_files(sp, "", false, top);
    for (auto& t : top) {
        auto stem = t.path.filename().string();
        t.package = stem.substr(0, stem.find('.'));
        out.push_back(std::move(t));
    }
    for (auto& l : listed) {
        std::error_code lec;
        if (stdfs::is_regular_file(l.path, lec)) out.push_back(std::move(l));
    }
    // Symlinked names (libfoo.so -> libfoo.so.1) and packages listed twice are read once: the
    // same file is the same device and inode, whatever the path.
    std::set<std::pair<uint64_t, uint64_t>> seen;
    std::vector<GpuLibrary> unique;
    for (auto& l : out) {
        auto id = fs::identity(l.path);
        if (!id || seen.insert({id->device, id->inode}).second) unique.push_back(std::move(l));
    }
    std::sort(unique.begin(), unique.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    return unique;
}

}  // namespace envfix::probe
