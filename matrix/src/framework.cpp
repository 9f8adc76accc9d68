#include "envfix/matrix/framework.hpp"

#include <algorithm>
#include <array>

#include "envfix/common/strings.hpp"

namespace envfix::matrix {

namespace {

// uv's TorchStrategy::applies_to (peers.md §1.4): built per variant, published on its index.
constexpr std::array<std::string_view, 22> kTorchPackages = {"fbgemm-gpu",
                                                             "fbgemm-gpu-genai",
                                                             "pytorch-triton",
                                                             "pytorch-triton-rocm",
                                                             "pytorch-triton-xpu",
                                                             "torch",
                                                             "torch-tensorrt",
                                                             "torchao",
                                                             "torcharrow",
                                                             "torchaudio",
                                                             "torchcodec",
                                                             "torchcsprng",
                                                             "torchdistx",
                                                             "torchrec",
                                                             "torchserve",
                                                             "torchtext",
                                                             "torchtune",
                                                             "torchvision",
                                                             "triton",
                                                             "triton-rocm",
                                                             "triton-xpu",
                                                             "xformers"};

constexpr std::array<std::string_view, 6> kFramework = {"torch", "torchvision", "torchaudio", "xformers", "triton", "pytorch-triton"};

// The unsuffixed runtime wheels of CUDA 13 (cuda-toolkit 13's extras and their dependencies);
// before 13 every runtime wheel carried "-cu11"/"-cu12".
constexpr std::array<std::string_view, 22> kCuda13Unsuffixed = {"nvidia-cublas",
                                                                "nvidia-cuda-runtime",
                                                                "nvidia-cufft",
                                                                "nvidia-cufile",
                                                                "nvidia-cuda-cupti",
                                                                "nvidia-curand",
                                                                "nvidia-cusolver",
                                                                "nvidia-cusparse",
                                                                "nvidia-nvjitlink",
                                                                "nvidia-cuda-nvrtc",
                                                                "nvidia-nvtx",
                                                                "nvidia-npp",
                                                                "nvidia-nvjpeg",
                                                                "nvidia-cuda-nvcc",
                                                                "nvidia-cuda-cccl",
                                                                "nvidia-nvfatbin",
                                                                "nvidia-cuda-crt",
                                                                "nvidia-cuda-culibos",
                                                                "nvidia-cuda-sanitizer-api",
                                                                "nvidia-nvvm",
                                                                "nvidia-cuda-opencl",
                                                                "nvidia-nvml-dev"};

template <size_t N>
bool in(const std::array<std::string_view, N>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

// "-cu12" at the end of a name: 12.
std::optional<int> suffix_major(std::string_view name) {
    auto pos = name.rfind("-cu");
    if (pos == std::string_view::npos || pos + 3 >= name.size()) return std::nullopt;
    auto n = str::to_int(name.substr(pos + 3));
    if (!n || *n < 9 || *n > 99) return std::nullopt;
    return static_cast<int>(*n);
}

// The version a requirement pins with == (wildcards allowed: "==13.0.*").
std::optional<standards::Version> pinned(const standards::Requirement& r) {
    for (const auto& s : r.specifier.specifiers())
        if (s.op() == standards::SpecOp::Equal && s.version()) return s.version();
    return std::nullopt;
}

std::string variant_of(const standards::Version& v) { return "cu" + std::to_string(v.major()) + std::to_string(v.minor()); }

}  // namespace

bool is_torch_package(std::string_view canonical_name) { return in(kTorchPackages, canonical_name); }

bool is_framework_package(std::string_view canonical_name) { return in(kFramework, canonical_name); }

std::optional<int> runtime_cuda_major(std::string_view name, const std::optional<standards::Version>& version) {
    if (name.starts_with("nvidia-")) {
        if (auto m = suffix_major(name)) return m;
        if (in(kCuda13Unsuffixed, name)) return 13;
        return std::nullopt;
    }
    if (name == "cuda-toolkit" || name == "cuda-bindings" || name == "cuda-python") {
        if (version && version->major() >= 9 && version->major() < 100) return static_cast<int>(version->major());
    }
    return std::nullopt;
}

std::optional<std::string> variant_from_local(const standards::Version& v) {
    std::string local = v.local();
    if (local == "cpu" || local == "xpu") return local;
    if (local.starts_with("cu") && local.size() >= 4 &&
        std::all_of(local.begin() + 2, local.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return local;
    if (local.starts_with("rocm")) return local;
    return std::nullopt;
}

std::optional<std::string> variant_from_requirements(const std::vector<standards::Requirement>& reqs) {
    std::optional<std::string> major_only;
    for (const auto& r : reqs) {
        std::string name = r.canonical_name();
        if (name == "cuda-toolkit" || name == "nvidia-cuda-runtime" || name == "nvidia-cuda-runtime-cu11" ||
            name == "nvidia-cuda-runtime-cu12" || name == "nvidia-cuda-runtime-cu13") {
            if (auto v = pinned(r)) return variant_of(*v);
        }
        if (!major_only && name.starts_with("nvidia-"))
            if (auto m = runtime_cuda_major(name, std::nullopt)) major_only = "cu" + std::to_string(*m);
    }
    return major_only;
}

bool variant_matches(std::string_view found, std::string_view wanted) {
    if (found == wanted) return true;
    // "cu13" (major only) matches cu130, cu132 ...
    return found.size() == 4 && found.starts_with("cu") && wanted.size() > 4 && wanted.starts_with(found);
}

}  // namespace envfix::matrix
