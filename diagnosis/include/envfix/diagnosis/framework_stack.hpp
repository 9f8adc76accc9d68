#pragma once
// The framework stack of one environment as it lies on disk, read without importing anything:
// torch (every dist-info of it) and its build (torch_build.hpp), its companions (torchvision,
// torchaudio, xformers, triton), the CUDA runtime packages (nvidia-*, cuda-*), and the GPU code
// each library really holds (probe/binary_archs.hpp). `doctor` diagnoses from it
// (diagnosis.hpp).
//
//   auto cache = probe::ArchCache::load(probe::ArchCache::default_path());
//   auto dependents = probe::DependentsCache::load(probe::DependentsCache::default_path());
//   auto stack = read_environment_stack(env.site_packages, {.cache = &cache, .dependents = &dependents});
//   stack->torch;        // optional<TorchBuild>
//   stack->libraries;    // GPU code per library, with its role (framework / extension / vendor)
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/diagnosis/torch_build.hpp"
#include "envfix/diagnosis/torch_dependents.hpp"
#include "envfix/probe/binary_archs.hpp"
#include "envfix/standards/installed.hpp"

namespace envfix::probe {
class ArchCache;
class DependentsCache;
}  // namespace envfix::probe

namespace envfix::diagnosis {

// How a library's GPU code is judged (docs/doctor.md, "Which libraries count").
enum class LibraryRole {
    Framework,  // torch's own (torch/lib/libtorch_cuda.so): judged by its primary architectures
    Extension,  // a CUDA extension (xformers, torchvision/_C.so): judged by its primary architectures
    Vendor,  // NVIDIA's libraries (nvidia/*/lib, cuBLAS/cuDNN copies in torch/lib): any SASS or
    // PTX that runs counts, and only a library with enough GPU code is evidence
};
std::string_view library_role_name(LibraryRole r);  // "framework", "extension", "vendor"
// From the package gpu_library_candidates() gives ("torch", "nvidia/cublas", "xformers") and the
// file name: NVIDIA's own file names (libcublas*, cudnn64_9.dll, nvrtc*, libnccl*) are Vendor
// wherever they lie (Windows wheels bundle them in torch/lib).
LibraryRole library_role(std::string_view package, std::string_view file_name);

// The companions doctor checks against torch, and the packages that belong to the stack.
const std::vector<std::string>& companion_packages();  // torchvision, torchaudio, xformers, triton, ...
bool is_stack_package(std::string_view canonical_name);  // torch, companions, nvidia-*, cuda-*

// The CUDA major version an nvidia-* / cuda-* package belongs to: its "-cuNN" suffix
// (nvidia-cublas-cu12), else, for the packages whose version follows the toolkit's (CUDA 13's
// unsuffixed nvidia-cublas 13.1.0.3, nvidia-cuda-runtime, nvidia-nvjitlink, cuda-toolkit,
// cuda-bindings ...), the version's major. nullopt: not a CUDA runtime package, or versioned on
// its own (nvidia-cufft 12.0.0.61 is CUDA 13's cuFFT). Pure.
std::optional<int> runtime_cuda_major(std::string_view canonical_name, std::string_view version);

struct StackLibrary {
    std::filesystem::path path;
    std::string shown;  // relative to its site-packages, "/" separated: "torch/lib/libtorch_cuda.so"
    std::string package;  // "torch", "nvidia/cublas", "xformers"
    LibraryRole role = LibraryRole::Extension;
    probe::BinaryArchs archs;
    bool from_cache = false;
};

struct UnreadableLibrary {
    std::filesystem::path path;
    std::string package;  // as gpu_library_candidates() names it
    Error error;  // BadInput, one line naming the file
};

struct EnvironmentStack {
    standards::InstalledSet installed;  // the stack's distributions only (is_stack_package), headers only, no details
    // The torch that `import torch` finds: the first site-packages folder (sys.path order) with a
    // torch dist-info; its build from that folder's torch/version.py.
    std::optional<TorchBuild> torch;
    const standards::InstalledDist* torch_dist = nullptr;  // points into `installed`
    std::optional<Error> version_file_problem;  // torch/version.py present but unreadable
    std::vector<StackLibrary> libraries;  // every candidate library that could be read
    std::vector<UnreadableLibrary> unreadable;  // candidates that could not be read
    DependentsCounts dependents;  // how those built against torch were found (libraries scanned)

    EnvironmentStack() = default;
    EnvironmentStack(const EnvironmentStack& o) { *this = o; }
    EnvironmentStack& operator=(const EnvironmentStack& o);  // keeps torch_dist pointing into its own copy
};

struct StackOptions {
    probe::ArchCache* cache = nullptr;  // fatbin results by file identity (nullptr: none)
    // Which other distributions are built against torch, by folder state (torch_dependents.hpp;
    // nullptr: every distribution's METADATA is read each time).
    probe::DependentsCache* dependents = nullptr;
    bool scan_libraries = true;
    unsigned threads = 0;  // scan_package_archs' threads (0: one per core)
};

// Errors: ExitCode::EnvBroken when a site-packages folder cannot be listed. Missing folders are
// skipped (an environment without torch is a stack without torch).
Expected<EnvironmentStack> read_environment_stack(const std::vector<std::filesystem::path>& site_packages,
                                                  const StackOptions& options = {});
// The same, with the architectures cache and the dependents cache loaded from their files under
// fs::cache_dir() and saved there (doctor, verify). A cache that cannot be saved adds a note to
// `notes` (for -vv), never an error.
Expected<EnvironmentStack> read_environment_stack_cached(const std::vector<std::filesystem::path>& site_packages,
                                                         std::vector<Message>& notes);

}  // namespace envfix::diagnosis
