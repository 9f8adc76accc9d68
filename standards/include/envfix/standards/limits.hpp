#pragma once
// Bounds on what envfix takes from outside into memory (docs/security.md).
#include <cstdint>

namespace envfix::standards {

// The most bytes envfix reads into memory of one of a wheel's metadata files (METADATA, RECORD,
// WHEEL, entry_points.txt, a PEP 658 .metadata): torch's RECORD is 2 MiB; a wheel whose METADATA
// inflates to gigabytes is refused before it is inflated.
constexpr uint64_t kMaxMetadataBytes = uint64_t{32} << 20;

}  // namespace envfix::standards
