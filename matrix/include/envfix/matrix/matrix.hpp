#pragma once
// The compatibility matrix as values: framework releases and their wheel variants per platform,
// CUDA toolkits and driver minimums, GPU architectures, the GPU name table. Loaded from
// profiles/*.yaml (matrix_loader.hpp); pure data plus lookups, no I/O. docs/matrix.md describes
// the files; the policy (policy.hpp) decides from these values.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "envfix/probe/arch.hpp"

namespace envfix::matrix {

using probe::ArchTarget;
using probe::ComputeCapability;
using probe::CudaVersion;
using probe::DriverVersion;
using probe::PtxIsa;

enum class OsKind { Linux, Windows, MacOs };
enum class CpuKind { X86_64, Aarch64 };

// Where a wheel runs: "linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64".
struct Platform {
    OsKind os = OsKind::Linux;
    CpuKind cpu = CpuKind::X86_64;
    bool operator==(const Platform&) const = default;
    std::string key() const;
    static std::optional<Platform> parse(std::string_view key);
};
std::string_view os_key(OsKind os);  // "linux", "windows", "macos"
std::string_view cpu_key(CpuKind cpu);  // "x86_64", "aarch64" ("arm64" on macOS in keys)
std::optional<OsKind> parse_os(std::string_view s);  // linux, windows/win32/nt, macos/darwin
std::optional<CpuKind> parse_cpu(std::string_view s);  // x86_64/amd64, aarch64/arm64
// The platform envfix runs on; nullopt on an OS or CPU no wheel exists for.
std::optional<Platform> host_platform();

enum class Channel { Stable, Nightly };
// How sure the data is (torch-matrix.md tags): primary source, measured, third-party, inferred.
enum class Confidence { Primary, Measured, ThirdParty, Unconfirmed };
// official: in PyTorch's install commands; extra: only on the index; experimental: announced so.
enum class VariantStatus { Official, Extra, Experimental };

std::string_view to_string(Channel c);
std::string_view to_string(Confidence c);
std::string_view to_string(VariantStatus s);

// The file and line a fact comes from, for messages ("profiles/matrix/releases.yaml:123").
struct SourceRef {
    std::string file;
    int line = 0;
    bool operator==(const SourceRef&) const = default;
    std::string str() const;
};

// One variant as built for one platform.
struct Build {
    Platform platform;
    std::vector<ArchTarget> sass;  // cubins (TORCH_CUDA_ARCH_LIST entries); empty for cpu
    std::vector<ArchTarget> ptx;  // entries written "X.Y+PTX"
    Confidence confidence = Confidence::Primary;
    SourceRef source;
    bool operator==(const Build&) const = default;
};

// A wheel variant of one release: cu128, cu130, cpu ...
struct Variant {
    std::string name;  // "cu128", "cpu"
    std::optional<CudaVersion> cuda;  // 12.8; nullopt for cpu
    std::string toolkit;  // bundled toolkit "12.8.0", or "12.8" when the update is unknown
    VariantStatus status = VariantStatus::Official;
    Confidence confidence = Confidence::Primary;
    std::vector<Build> builds;
    SourceRef source;
    bool operator==(const Variant&) const = default;

    bool is_cpu() const { return !cuda.has_value(); }
    const Build* build(const Platform& p) const;
};

struct Companions {
    std::string torchvision, torchaudio, triton, xformers;  // "" = none known
    bool operator==(const Companions&) const = default;
};

// One framework version ("2.9.1"), with the variants published for it.
struct Release {
    std::string torch;  // "2.9.1"; for the nightly line a prefix ("2.16.0.dev")
    std::string line;  // "2.9", "nightly"
    Channel channel = Channel::Stable;
    std::string released;  // "2025-11"
    Companions companions;
    std::vector<std::string> python;  // "3.12", "3.13t"
    // Python versions only some platforms have: {"3.13t", [linux-x86_64]}.
    std::vector<std::pair<std::string, std::vector<Platform>>> python_limited;
    std::string pypi_default;  // variant PyPI carries for linux-x86_64
    Confidence confidence = Confidence::Primary;
    std::vector<Variant> variants;
    int order = 0;  // position in releases.yaml: higher is newer
    SourceRef source;
    bool operator==(const Release&) const = default;

    const Variant* variant(std::string_view name) const;
    std::vector<std::string> python_for(const Platform& p) const;
    bool offers_python(std::string_view python, const Platform& p) const;
};

struct ToolkitUpdate {
    std::string version;  // "12.8.1"
    DriverVersion linux_min;
    DriverVersion windows_min;
    Confidence windows_confidence = Confidence::Primary;
    bool operator==(const ToolkitUpdate&) const = default;
};

struct Toolkit {
    CudaVersion version;  // 12.8
    PtxIsa ptx_isa;  // the PTX ISA this toolkit emits
    std::vector<ToolkitUpdate> updates;
    Confidence confidence = Confidence::Primary;
    SourceRef source;
    bool operator==(const Toolkit&) const = default;
};

// Minor-version compatibility: a runtime of this major runs on drivers down to these.
struct CompatFloor {
    int major = 0;
    DriverVersion linux_min;
    DriverVersion windows_min;
    Confidence windows_confidence = Confidence::Primary;
    bool operator==(const CompatFloor&) const = default;
};

// cuDriverGetVersion of a driver branch.
struct DriverBranch {
    int branch = 0;
    CudaVersion cuda;
    Confidence confidence = Confidence::Primary;
    bool operator==(const DriverBranch&) const = default;
};

struct Architecture {
    ComputeCapability cc;
    std::string family;  // "Blackwell"
    std::string products;  // "GeForce RTX 50, RTX PRO Blackwell (GB20x)"
    std::optional<int> first_driver;  // first driver branch that runs it
    std::optional<int> last_driver;  // last branch that still does (legacy GPUs)
    bool tegra = false;  // no binary compatibility across minor versions
    Confidence confidence = Confidence::Primary;
    SourceRef source;
    bool operator==(const Architecture&) const = default;
};

// A PCI device id of the GPU name table (profiles/gpus/devices.yaml, generated from pci.ids).
struct GpuDevice {
    uint16_t pci_id = 0;
    std::string chip;  // "AD102"
    std::string name;  // "GeForce RTX 4090"
    ComputeCapability cc;
    bool operator==(const GpuDevice&) const = default;
};

// A GPU without a PCI entry of its own (Jetson modules) or known by another name.
struct GpuModel {
    std::string name;
    ComputeCapability cc;
    std::vector<std::string> aliases;
    bool operator==(const GpuModel&) const = default;
};

struct Matrix {
    std::vector<Release> releases;  // oldest first
    std::vector<Toolkit> toolkits;
    std::vector<CompatFloor> floors;
    std::vector<DriverBranch> branches;
    std::vector<Architecture> architectures;
    std::vector<GpuDevice> devices;  // sorted by pci_id
    std::vector<GpuModel> models;
    std::string devices_origin;  // which pci.ids the device table was generated from
    bool operator==(const Matrix&) const = default;

    const Toolkit* toolkit(CudaVersion v) const;
    const Architecture* architecture(ComputeCapability cc) const;
    const CompatFloor* floor(int cuda_major) const;
    const GpuDevice* device(uint16_t pci_id) const;
    // The CUDA version a driver reports (cuDriverGetVersion), from the branch table.
    std::optional<CudaVersion> driver_cuda(const DriverVersion& d) const;
    // The newest PTX ISA a driver of that CUDA version JIT-compiles.
    std::optional<PtxIsa> max_ptx_isa(CudaVersion driver_cuda) const;
    // Releases newest first (reverse file order), optionally one channel only.
    std::vector<const Release*> newest_first(std::optional<Channel> channel = std::nullopt) const;
};

// "3.12", "3.12.4", "cp312", "312" -> "3.12"; "3.13t", "cp313t" -> "3.13t"; nullopt otherwise.
std::optional<std::string> normalize_python(std::string_view s);

}  // namespace envfix::matrix
