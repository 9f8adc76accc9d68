#pragma once
// Value types for GPU architectures, shared by the probe (GPUs), the binary reader (fatbins),
// the matrix (profiles/) and the coverage rules. Pure; no I/O.
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envfix::probe {

// Compute capability "8.9" <-> sm number 89; 12.0 <-> 120.
struct ComputeCapability {
    int major = 0;
    int minor = 0;
    auto operator<=>(const ComputeCapability&) const = default;
    int sm() const { return major * 10 + minor; }
    std::string to_string() const;  // "8.9"
    std::string sm_tag() const;     // "sm_89"
    static ComputeCapability from_sm(int sm) { return {sm / 10, sm % 10}; }
    // Accepts "8.9", "sm_89", "compute_89", "89", "120", "12.0".
    static std::optional<ComputeCapability> parse(std::string_view s);
};

// One compiled target: SASS for sm_90, sm_90a (arch-specific), sm_100f (family), or PTX
// for compute_XY.
struct ArchTarget {
    ComputeCapability cc;
    char variant = 0;  // 0, 'a' (exact arch only) or 'f' (family: same major, minor >= )
    auto operator<=>(const ArchTarget&) const = default;
    std::string sm_tag() const;       // "sm_90a"
    std::string compute_tag() const;  // "compute_90a"
    // Accepts "sm_90a", "compute_120", "9.0a", "9.0", "90".
    static std::optional<ArchTarget> parse(std::string_view s);
};

// CUDA version as cuDriverGetVersion encodes it (1000*major + 10*minor): 12080 <-> 12.8.
struct CudaVersion {
    int major = 0;
    int minor = 0;
    auto operator<=>(const CudaVersion&) const = default;
    int encoded() const { return major * 1000 + minor * 10; }
    static CudaVersion decode(int v) { return {v / 1000, (v % 1000) / 10}; }
    std::string to_string() const;  // "12.8"
    // Accepts "12.8", "12.8.1" (patch ignored), "cu128", "128" (cuXYZ style), "12080".
    static std::optional<CudaVersion> parse(std::string_view s);
    std::string variant_tag() const;  // "cu128"
};

// PTX ISA version (".version 8.7").
struct PtxIsa {
    int major = 0;
    int minor = 0;
    auto operator<=>(const PtxIsa&) const = default;
    std::string to_string() const;  // "8.7"
};

// NVIDIA driver version "580.159.04" / Windows "572.61": numeric parts compared in order.
struct DriverVersion {
    std::vector<int> parts;
    // Only the numbers count: "580.159.04" == "580.159.4".
    std::strong_ordering operator<=>(const DriverVersion& o) const { return parts <=> o.parts; }
    bool operator==(const DriverVersion& o) const { return parts == o.parts; }
    int branch() const { return parts.empty() ? 0 : parts[0]; }  // 580
    std::string to_string() const;
    // Accepts "580.159.04", "572.61", "580"; leading zeros kept in to_string().
    static std::optional<DriverVersion> parse(std::string_view s);

private:
    std::vector<int> widths_;  // digits per part as written, so "04" prints back as "04"
};

}  // namespace envfix::probe
