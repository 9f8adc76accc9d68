#pragma once
// Which torch build is installed, without importing it: the version with its local tag, and
// whether it is a CUDA (and which CUDA), CPU-only, ROCm or XPU build. The dist-info alone is not
// enough: PyPI's build says `Version: 2.11.0` while its torch/version.py says
// `__version__ = '2.11.0+cu130'` and `cuda = '13.0'`. Pure: the caller reads the files.
//
//   auto file = parse_torch_version_file(text, ".../torch/version.py");
//   TorchBuild b = torch_build(dist, file ? &*file : nullptr, has_cuda_library);
//   b.version == "2.11.0+cu130"; b.kind == BuildKind::Cuda; b.cuda->to_string() == "13.0";
#include <optional>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"
#include "envfix/probe/arch.hpp"
#include "envfix/standards/installed.hpp"

namespace envfix::diagnosis {

// torch/version.py as torch's build writes it (setup.py / tools/generate_torch_version.py):
//   __version__ = '2.11.0+cu130'
//   cuda: Optional[str] = '13.0'        (older: cuda = '11.7')
//   git_version = '70d99e99...'
//   hip: Optional[str] = None
// Read as text, line by line: `name [: annotation] = 'value' | "value" | None | True | False`.
struct TorchVersionFile {
    std::string version;  // __version__
    std::optional<std::string> cuda;  // nullopt: None or absent
    std::optional<std::string> hip;
    std::optional<std::string> rocm;
    std::optional<std::string> xpu;
    std::string git_version;
    std::optional<bool> debug;
};

// Errors (ExitCode::BadInput, "torch.bad_version_file"): no `__version__` assignment. Other
// lines are ignored (the file is Python; only the assignments above matter).
Expected<TorchVersionFile> parse_torch_version_file(std::string_view text, std::string_view source);

enum class BuildKind { Cuda, Cpu, Rocm, Xpu, Unknown };
std::string_view build_kind_name(BuildKind k);  // "cuda", "cpu", "rocm", "xpu", "unknown"

// How the kind was decided, best evidence first.
enum class BuildEvidence {
    VersionFile,  // torch/version.py
    LocalTag,  // the version's +cu128 / +cpu / +rocm6.2 / +xpu
    Requirements,  // Requires-Dist of nvidia-*/cuda-toolkit packages (PyPI builds)
    Libraries,  // torch/lib holds libtorch_cuda.so / torch_cuda.dll
    None,  // nothing says CUDA: taken as CPU-only
};
std::string_view build_evidence_name(BuildEvidence e);  // "version-file", "local-tag", ...

struct TorchBuild {
    std::string version;  // full version, version.py's when present ("2.11.0+cu130")
    std::string dist_version;  // the dist-info's ("2.11.0")
    std::string public_version;  // "2.11.0"
    std::string local;  // "cu130", "cpu", "rocm6.2", "" (none)
    BuildKind kind = BuildKind::Unknown;
    BuildEvidence evidence = BuildEvidence::None;
    std::optional<probe::CudaVersion> cuda;  // CUDA builds, when known
    std::string rocm;  // ROCm builds: "6.2"
    std::string git_version;  // "" when unknown
    // The wheel variant this build corresponds to: "cu130", "cpu", "rocm6.2", "xpu"; "" unknown.
    std::string variant;
};

// `file`: the parsed torch/version.py of the same site-packages (nullptr: absent or unreadable).
// `has_cuda_library`: torch/lib holds torch's CUDA library.
TorchBuild torch_build(const standards::InstalledDist& dist, const TorchVersionFile* file, bool has_cuda_library);

// "cu128" -> CUDA 12.8; "cu130" -> 13.0; "cu92" -> 9.2; nullopt for other tags.
std::optional<probe::CudaVersion> cuda_from_variant(std::string_view local);

}  // namespace envfix::diagnosis
