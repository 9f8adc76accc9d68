#pragma once
// What belongs to the framework stack, by name and metadata (pure): the "torch packages" that
// come only from the chosen variant's index (uv's list, peers.md §1.4), the packages a new stack
// replaces together, the CUDA major of the nvidia-* / cuda-* runtime wheels, and the variant of
// a torch build read from its local version label ("+cu128") or, for builds without one (PyPI's,
// and indexes repacked from them), from what its metadata requires.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/standards/requirement.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::matrix {

// Packages built per PyTorch variant: taken from the chosen variant's index only, never mixed
// (torch, torchvision, torchaudio, triton, pytorch-triton, xformers, torchao ...). Canonical names.
bool is_torch_package(std::string_view canonical_name);
// The old stack a new framework replaces as a whole: torch, torchvision, torchaudio, xformers,
// triton, pytorch-triton. An installed one the new plan does not keep goes out.
bool is_framework_package(std::string_view canonical_name);

// The CUDA major a runtime wheel belongs to: "nvidia-cudnn-cu12" 12, "nvidia-cublas" (the
// unsuffixed names CUDA 13 introduced) 13, "cuda-toolkit"/"cuda-bindings"/"cuda-python" their
// version's major. nullopt for anything else (nvidia-ml-py, cuda-pathfinder ...).
std::optional<int> runtime_cuda_major(std::string_view canonical_name, const std::optional<standards::Version>& version);

// "cu128", "cpu", "rocm6.3", "xpu" from a local label ("2.7.0+cu128"); nullopt without one or for
// another label.
std::optional<std::string> variant_from_local(const standards::Version& v);

// The variant a build's Requires-Dist points to (markers ignored: Linux wheels list them):
// "cuda-toolkit==13.0.2" -> cu130; "nvidia-cuda-runtime-cu12==12.8.57" -> cu128;
// "nvidia-cuda-runtime==13.0.96" -> cu130; only "nvidia-*-cu13" pins -> "cu13" (major only).
// No CUDA requirement at all -> nullopt (a CPU build, or a Windows wheel that bundles CUDA).
std::optional<std::string> variant_from_requirements(const std::vector<standards::Requirement>& reqs);

// "cu128" matches "cu128"; a major-only "cu13" matches every cu13x.
bool variant_matches(std::string_view found, std::string_view wanted);

}  // namespace envfix::matrix
