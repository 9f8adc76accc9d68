#include "envfix/diagnosis/framework_stack.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/diagnosis/torch_dependents.hpp"
#include "envfix/probe/arch_cache.hpp"
#include "envfix/probe/dependents_cache.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/requirement.hpp"

namespace envfix::diagnosis {

namespace stdfs = std::filesystem;

std::string_view library_role_name(LibraryRole r) {
    switch (r) {
        case LibraryRole::Framework: return "framework";
        case LibraryRole::Extension: return "extension";
        case LibraryRole::Vendor: return "vendor";
    }
    return "extension";
}

LibraryRole library_role(std::string_view package, std::string_view file_name) {
    if (package.starts_with("nvidia/")) return LibraryRole::Vendor;
    std::string n = str::lower(file_name);
    std::string_view base = n;
    if (base.starts_with("lib")) base.remove_prefix(3);
    // NVIDIA's libraries: cuBLAS, cuDNN, cuFFT, cuRAND, cuSOLVER, cuSPARSE(Lt), cudart, CUPTI,
    // cuFile (cu*), NVRTC, nvJitLink, NVTX (nv*), NCCL. torch's own never start so (torch_cuda,
    // c10_cuda, caffe2_nvrtc).
    for (std::string_view p : {"cu", "nv", "nccl"})
        if (base.starts_with(p)) return LibraryRole::Vendor;
    return package == "torch" ? LibraryRole::Framework : LibraryRole::Extension;
}

const std::vector<std::string>& companion_packages() {
    static const std::vector<std::string> k = {"torchvision", "torchaudio", "xformers", "triton", "pytorch-triton", "flash-attn"};
    return k;
}

bool is_stack_package(std::string_view n) {
    if (n == "torch") return true;
    const auto& c = companion_packages();
    if (std::find(c.begin(), c.end(), n) != c.end()) return true;
    return n.starts_with("nvidia-") || n.starts_with("cuda-");
}

std::optional<int> runtime_cuda_major(std::string_view name, std::string_view version) {
    if (!name.starts_with("nvidia-") && !name.starts_with("cuda-")) return std::nullopt;
    // nvidia-cublas-cu12, nvidia-cudnn-cu13 ...
    if (auto pos = name.rfind("-cu"); pos != std::string_view::npos && pos + 3 < name.size()) {
        auto digits = name.substr(pos + 3);
        if (std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            if (auto n = str::to_int(digits)) return static_cast<int>(*n);
    }
    // Unsuffixed packages whose version is the toolkit's (CUDA 13 dropped the suffix; the
    // cuda-toolkit 13.0.2 metadata lists them). cuFFT, cuRAND, cuSOLVER, cuSPARSE and cuFile
    // keep versions of their own and are not listed.
    static constexpr std::array<std::string_view, 24> tracked = {"nvidia-cublas",       "nvidia-cuda-cccl",
                                                                 "nvidia-cuda-crt",     "nvidia-cuda-culibos",
                                                                 "nvidia-cuda-cupti",   "nvidia-cuda-cuxxfilt",
                                                                 "nvidia-cuda-nvcc",    "nvidia-cuda-nvrtc",
                                                                 "nvidia-cuda-opencl",  "nvidia-cuda-profiler-api",
                                                                 "nvidia-cuda-runtime", "nvidia-cuda-sanitizer-api",
                                                                 "nvidia-npp",          "nvidia-nvfatbin",
                                                                 "nvidia-nvjitlink",    "nvidia-nvjpeg",
                                                                 "nvidia-nvml-dev",     "nvidia-nvptxcompiler",
                                                                 "nvidia-nvtx",         "nvidia-nvvm",
                                                                 "cuda-toolkit",        "cuda-bindings",
                                                                 "cuda-python",         "cuda-runtime"};
    if (std::find(tracked.begin(), tracked.end(), name) == tracked.end()) return std::nullopt;
    auto v = standards::Version::try_parse(version);
    if (!v || v->major() < 9 || v->major() > 99) return std::nullopt;
    return static_cast<int>(v->major());
}

EnvironmentStack& EnvironmentStack::operator=(const EnvironmentStack& o) {
    if (this == &o) return *this;
    installed = o.installed;
    torch = o.torch;
    version_file_problem = o.version_file_problem;
    libraries = o.libraries;
    unreadable = o.unreadable;
    dependents = o.dependents;
    torch_dist = nullptr;
    if (o.torch_dist)
        for (const auto& d : installed.dists)
            if (d.dist_info == o.torch_dist->dist_info) torch_dist = &d;
    return *this;
}

namespace {

// Of several torch dist-infos in one folder, the one that describes the files: its version is
// version.py's (PyPI builds leave the local tag out of the dist-info).
const standards::InstalledDist* pick_torch(const std::vector<const standards::InstalledDist*>& copies, const TorchVersionFile* file) {
    if (copies.empty()) return nullptr;
    if (file)
        if (auto fv = standards::Version::try_parse(file->version))
            for (const auto* d : copies)
                if (d->parsed_version &&
                    (*d->parsed_version == *fv || (!d->parsed_version->has_local() && *d->parsed_version == fv->without_local())))
                    return d;
    return copies.front();
}

}  // namespace

Expected<EnvironmentStack> read_environment_stack(const std::vector<stdfs::path>& site_packages, const StackOptions& options) {
    EnvironmentStack stack;
    // The stack's dist-infos; the others are read only when libraries are scanned, and then only
    // when the cache of torch's dependents has no answer for their folder (torch_dependents.hpp).
    standards::ReadInstalledOptions ro;
    ro.only = [](std::string_view n) { return is_stack_package(n); };
    ro.headers_only = true;
    ro.details = false;  // who installed them is not part of a diagnosis
    ENVFIX_TRY(stack.installed, read_installed(site_packages, ro));

    auto torches = stack.installed.find_all("torch");
    for (const auto& sp : site_packages) {
        std::vector<const standards::InstalledDist*> here;
        for (const auto* d : torches)
            if (d->site_packages == sp) here.push_back(d);
        if (here.empty()) continue;
        std::optional<TorchVersionFile> file;
        auto version_py = sp / "torch" / "version.py";
        if (auto text = fs::read_file(version_py)) {
            auto parsed = parse_torch_version_file(*text, version_py.string());
            if (parsed)
                file = std::move(*parsed);
            else
                stack.version_file_problem = parsed.error();
        }
        std::error_code ec;
        bool cuda_lib = false;
        for (const char* lib : {"libtorch_cuda.so", "torch_cuda.dll", "libtorch_cuda.dylib"})
            cuda_lib = cuda_lib || stdfs::exists(sp / "torch" / "lib" / lib, ec);
        stack.torch_dist = pick_torch(here, file ? &*file : nullptr);
        stack.torch = torch_build(*stack.torch_dist, file ? &*file : nullptr, cuda_lib);
        break;
    }
    if (!stack.torch && !torches.empty()) {  // dist-infos outside the listed folders: cannot happen
        stack.torch_dist = torches.front();
        stack.torch = torch_build(*torches.front(), nullptr, false);
    }

    if (!options.scan_libraries) return stack;
    std::vector<probe::GpuLibrary> candidates;
    std::vector<stdfs::path> roots;
    ENVFIX_TRY(auto dependents, dependents_of_torch(site_packages, options.dependents));
    stack.dependents = dependents;  // the counts
    for (const auto& sp : site_packages) {
        std::vector<probe::GpuLibrary> listed;
        for (const auto& [where, lib] : dependents.listed)
            if (where == sp) listed.push_back(lib);
        for (auto& lib : probe::gpu_library_candidates(sp, dependents.walk, std::move(listed))) {
            candidates.push_back(std::move(lib));
            roots.push_back(sp);
        }
    }
    std::vector<stdfs::path> paths;
    for (const auto& c : candidates) paths.push_back(c.path);
    auto results = probe::scan_package_archs(paths, options.cache, options.threads);
    for (size_t i = 0; i < results.size(); ++i) {
        auto& r = results[i];
        if (!r.archs) {
            stack.unreadable.push_back({r.path, candidates[i].package, std::move(r.archs).error()});
            continue;
        }
        StackLibrary lib;
        lib.path = r.path;
        lib.shown = r.path.lexically_relative(roots[i]).generic_string();
        if (lib.shown.empty() || lib.shown.starts_with("..")) lib.shown = r.path.string();
        lib.package = candidates[i].package;
        lib.role = library_role(lib.package, r.path.filename().string());
        lib.archs = std::move(*r.archs);
        lib.from_cache = r.from_cache;
        stack.libraries.push_back(std::move(lib));
    }
    return stack;
}

Expected<EnvironmentStack> read_environment_stack_cached(const std::vector<stdfs::path>& site_packages, std::vector<Message>& notes) {
    auto cache = probe::ArchCache::load(probe::ArchCache::default_path());
    auto dependents = probe::DependentsCache::load(probe::DependentsCache::default_path());
    auto stack = read_environment_stack(site_packages, {.cache = &cache, .dependents = &dependents});
    if (auto saved = cache.save(); !saved) notes.push_back(saved.error().message);
    if (auto saved = dependents.save(); !saved) notes.push_back(saved.error().message);
    return stack;
}

}  // namespace envfix::diagnosis
