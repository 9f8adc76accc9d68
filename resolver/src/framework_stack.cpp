#include "envfix/resolver/framework_stack.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "envfix/common/fs.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/arch_cache.hpp"
#include "envfix/resolver/names.hpp"
#include "envfix/resolver/requirement.hpp"

namespace envfix::resolver {

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
    static const std::vector<std::string> k = {"torchvision", "torchaudio", "xformers", "triton", "pytorch-triton",
                                               "flash-attn"};
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
    static constexpr std::array<std::string_view, 24> tracked = {
        "nvidia-cublas", "nvidia-cuda-cccl", "nvidia-cuda-crt", "nvidia-cuda-culibos", "nvidia-cuda-cupti",
        "nvidia-cuda-cuxxfilt", "nvidia-cuda-nvcc", "nvidia-cuda-nvrtc", "nvidia-cuda-opencl",
        "nvidia-cuda-profiler-api", "nvidia-cuda-runtime", "nvidia-cuda-sanitizer-api", "nvidia-npp",
        "nvidia-nvfatbin", "nvidia-nvjitlink", "nvidia-nvjpeg", "nvidia-nvml-dev", "nvidia-nvptxcompiler",
        "nvidia-nvtx", "nvidia-nvvm", "cuda-toolkit", "cuda-bindings", "cuda-python", "cuda-runtime"};
    if (std::find(tracked.begin(), tracked.end(), name) == tracked.end()) return std::nullopt;
    auto v = Version::try_parse(version);
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
    torch_dist = nullptr;
    if (o.torch_dist)
        for (const auto& d : installed.dists)
            if (d.dist_info == o.torch_dist->dist_info) torch_dist = &d;
    return *this;
}

namespace {

// Of several torch dist-infos in one folder, the one that describes the files: its version is
// version.py's (PyPI builds leave the local tag out of the dist-info).
const InstalledDist* pick_torch(const std::vector<const InstalledDist*>& copies, const TorchVersionFile* file) {
    if (copies.empty()) return nullptr;
    if (file)
        if (auto fv = Version::try_parse(file->version))
            for (const auto* d : copies)
                if (d->parsed_version && (*d->parsed_version == *fv || (!d->parsed_version->has_local() &&
                                                                        *d->parsed_version == fv->without_local())))
                    return d;
    return copies.front();
}

// Any package built against torch may ship its own kernels (a custom op, a vendored attention,
// built for one torch and one architecture list): beyond the known extension packages, the
// distributions whose Requires-Dist names torch are read too. Their libraries come from their
// RECORDs: walking their folders opened every directory of transformers, timm, peft and the like,
// 4 000 in the GPU machine's venv, 40 of a warm doctor's 70 ms (docs/performance.md, "The
// twenty-fourth session"). One without a readable RECORD (egg-info) has the folder named after it
// walked (kernpkg → kernpkg/), as nearly every package is named.
struct TorchDependents {
    std::vector<std::string> walk;              // folders, relative to their site-packages
    std::vector<std::pair<stdfs::path, probe::GpuLibrary>> listed;  // site-packages, library (absolute)
};

// Whether a Requires-Dist can name torch: only those are parsed (each of 300 distributions'
// requirements was, a tenth of a warm doctor's CPU on the GPU machine). The name comes first;
// "torch" has no separators to spell otherwise; anything unusual before it is parsed anyway.
bool may_name_torch(std::string_view t) {
    size_t i = 0;
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
    if (i < t.size() && !std::isalnum(static_cast<unsigned char>(t[i]))) return true;
    if (t.size() - i < 5 || !str::iequals(t.substr(i, 5), "torch")) return false;
    if (i + 5 == t.size()) return true;
    const char c = t[i + 5];
    return !(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
}

TorchDependents torch_dependents(const std::vector<InstalledDist>& others) {
    TorchDependents out;
    const auto& known = probe::known_cuda_extension_packages();  // walked whatever their RECORDs say
    for (const auto& d : others) {
        bool needs_torch = false;
        for (const auto& text : d.metadata.requires_dist)
            if (may_name_torch(text))
                if (auto r = Requirement::parse(text); r && r->canonical_name() == "torch") needs_torch = true;
        if (!needs_torch) continue;
        std::string folder = d.name;
        std::replace(folder.begin(), folder.end(), '-', '_');
        std::replace(folder.begin(), folder.end(), '.', '_');
        const std::string lower = str::lower(folder);
        if (std::find(known.begin(), known.end(), lower) != known.end()) continue;
        std::optional<std::vector<RecordEntry>> rows;
        if (!d.egg_info && d.has_record)
            if (auto r = read_record(d)) rows = std::move(*r);
        if (!rows) {
            out.walk.push_back(folder);
            if (lower != folder) out.walk.push_back(lower);
            continue;
        }
        for (const auto& row : *rows) {
            const std::string_view rel = row.path;
            const size_t slash = rel.rfind('/');
            if (!probe::is_library_file_name(slash == std::string_view::npos ? rel : rel.substr(slash + 1))) continue;
            // Inside site-packages only (a RECORD may name ../../bin/...), as its own package.
            auto p = stdfs::path(row.path).lexically_normal();
            if (p.empty() || p.is_absolute() || *p.begin() == "..") continue;
            const std::string first = p.begin()->string();
            out.listed.push_back({d.site_packages, {d.site_packages / p, std::next(p.begin()) == p.end() ? first.substr(0, first.find('.')) : first}});
        }
    }
    return out;
}

}  // namespace

Expected<EnvironmentStack> read_environment_stack(const std::vector<stdfs::path>& site_packages,
                                                  const StackOptions& options) {
    EnvironmentStack stack;
    // One pass over the dist-infos: the stack's are kept; the others (read only when libraries are
    // scanned) say which packages are built against torch.
    ReadInstalledOptions ro;
    if (!options.scan_libraries) ro.only = [](std::string_view n) { return is_stack_package(n); };
    ro.headers_only = true;
    ENVFIX_TRY(auto all, read_installed(site_packages, ro));
    std::vector<InstalledDist> others;
    for (auto& d : all.dists) (is_stack_package(d.canonical_name) ? stack.installed.dists : others).push_back(std::move(d));

    auto torches = stack.installed.find_all("torch");
    for (const auto& sp : site_packages) {
        std::vector<const InstalledDist*> here;
        for (const auto* d : torches)
            if (d->site_packages == sp) here.push_back(d);
        if (here.empty()) continue;
        std::optional<TorchVersionFile> file;
        auto version_py = sp / "torch" / "version.py";
        if (auto text = fs::read_file(version_py)) {
            auto parsed = parse_torch_version_file(*text, version_py.string());
            if (parsed) file = std::move(*parsed);
            else stack.version_file_problem = parsed.error();
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
    auto dependents = torch_dependents(others);
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

}  // namespace envfix::resolver
