#pragma once
// What a cubin's own ELF header says about its target (LLVM BinaryFormat/ELF.h, NVPTX e_flags):
// ABI 7 (CUDA <= 12 for up to Hopper) keeps the SM in bits 0-7 and marks sm_90a with 0x800;
// ABI 8 (Blackwell-era toolkits, and every cubin of CUDA 13) keeps it in bits 8-15 and marks
// accelerator variants with 0x8. Used when the fatbin entry's flags carry no variant bit.
#include <optional>
#include <string_view>

#include "fatbin.hpp"

namespace envfix::probe {

inline constexpr unsigned kElfMachineCuda = 190;  // EM_CUDA

struct CubinTarget {
    int abi = 0;        // EI_ABIVERSION
    int sm = 0;         // 90
    char variant = 0;   // 'a' or 0 (the ELF header has no known 'f' mark)
};

// From the first bytes of a cubin (at least 0x34); nullopt when they are not a CUDA ELF.
std::optional<CubinTarget> cubin_target(std::string_view head);

// The cubin head of a fatbin ELF entry: read in place, or decoded from LZ4/zstd. nullopt when
// the payload is too short, damaged, or compressed in an unknown way.
std::optional<CubinTarget> entry_cubin_target(const fatbin::Entry& e);

}  // namespace envfix::probe
