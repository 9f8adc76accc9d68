#pragma once
// Turning what a user types for --gpu into a compute capability: "8.9", "sm_89", "compute_89",
// a PCI id ("10de:2b85", "0x2b85"), a chip ("AD102") or a name, matched forgivingly against the
// GPU table ("RTX 5090", "rtx5090", "GeForce RTX 5090 D", "NVIDIA H200", "H200 NVL", "1080 Ti").
// Pure: works on the Matrix only.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/matrix/matrix.hpp"

namespace envfix::matrix {

struct GpuMatch {
    ComputeCapability cc;
    std::string name;  // "GeForce RTX 5090"; "" when the query was a capability
    std::string chip;  // "GB202" when known
    std::optional<uint16_t> pci_id;  // when the match came from the PCI table
    int extra_tokens = 0;  // name words the query did not mention (lower = closer)
    bool operator==(const GpuMatch&) const = default;
};

// "8.9", "sm_89", "compute_89", "12.0"; bare "89"/"120" only when that architecture is known.
std::optional<ComputeCapability> parse_capability(const Matrix& m, std::string_view query);

// Every GPU whose name holds all the query's words, closest first (at most `limit`).
std::vector<GpuMatch> find_gpus(const Matrix& m, std::string_view query, size_t limit = 12);

// The one compute capability a query means. Errors (ExitCode::BadInput): no such GPU
// ("plan.gpu_unknown"), or the closest names differ in architecture ("plan.gpu_ambiguous",
// listing them).
Expected<GpuMatch> resolve_gpu(const Matrix& m, std::string_view query);

// The words a name is compared by: lower case, letters and digits split ("rtx5090" -> rtx 5090),
// vendor words ("nvidia", "geforce", "tesla", "gpu") dropped, "laptop" read as "mobile".
std::vector<std::string> name_tokens(std::string_view name);

// "GeForce RTX 5090 (12.0)" / "compute capability 12.0": how messages name a GPU.
std::string gpu_label(const GpuMatch& g);

}  // namespace envfix::matrix
