#pragma once
// The fatbin container format (docs/binaries.md; /work reference cuda-binaries.md §2-3):
// containers (magic 0xBA55ED50, header size, fat size) back to back in .nv_fatbin, each
// holding entries (kind PTX/ELF, header size, payload size, arch, code version, flags).
// Walking is pure and defensive: every size is checked against the bytes that exist, every
// step moves forward, damage becomes a problem message instead of a crash or a loop.
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "envfix/common/message.hpp"

namespace envfix::probe::fatbin {

inline constexpr uint32_t kMagic = 0xBA55ED50;
inline constexpr uint16_t kKindPtx = 1;
inline constexpr uint16_t kKindElf = 2;
inline constexpr uint64_t kFlagCompressedOld = 0x1000;  // older toolkits, algorithm unknown
inline constexpr uint64_t kFlagLz4 = 0x2000;            // LZ4 raw block
inline constexpr uint64_t kFlagZstd = 0x8000;           // Zstandard frame
// Variant bits, observed in nvcc 13 output (make-fixtures.sh): sm_90a/sm_100a/sm_120a and
// compute_90a set 0x100000, sm_100f/sm_120f set 0x200000; plain targets set neither.
inline constexpr uint64_t kFlagArchSpecific = 0x100000;
inline constexpr uint64_t kFlagFamily = 0x200000;

struct Entry {
    uint64_t offset = 0;          // of the entry header, from the start of the walked bytes
    uint16_t kind = 0;
    uint32_t header_size = 0;
    uint64_t payload_size = 0;    // padded payload region
    uint32_t compressed_size = 0; // exact compressed bytes (0: not compressed)
    uint16_t version_major = 0;   // PTX: ISA; ELF: cubin ABI (1.7 / 1.8)
    uint16_t version_minor = 0;
    uint32_t arch = 0;            // 90 for sm_90 / compute_90
    uint64_t flags = 0;
    uint64_t decompressed_size = 0;
    std::string_view payload;     // the payload bytes that exist (shorter when truncated)
    bool truncated = false;

    bool compressed() const { return (flags & (kFlagLz4 | kFlagZstd | kFlagCompressedOld)) != 0; }
    // The bytes a decoder reads: the exact compressed size when given and sane.
    std::string_view compressed_bytes() const;
};

struct Container {
    uint64_t offset = 0;
    std::vector<Entry> entries;
};

struct Walk {
    // Told, before the walk steps to a header lying close after the one it read, of the bytes
    // [offset, offset + length) where more such headers are likely (offsets in the walked
    // bytes): a reader from a cold disk may fetch them in one request instead of page by page.
    std::function<void(uint64_t offset, uint64_t length)> ahead;
    uint64_t ahead_until = 0;  // the end of the last bytes told of
    std::vector<Container> containers;
    std::vector<Message> problems;  // at most kMaxProblems; further ones are only counted
    int dropped_problems = 0;
    bool partial = false;
    void problem(Message m);
};
inline constexpr size_t kMaxProblems = 10;

// Walks the containers of one fatbin section (or a whole .fatbin file). `path` and `section`
// name the place in problem messages.
void walk_section(std::string_view bytes, std::string_view path, std::string_view section, Walk& out);

// For files without a section table: containers found by their magic at 8-byte boundaries,
// accepted only when their header is plausible and fits.
void scan_file(std::string_view bytes, std::string_view path, Walk& out);

}  // namespace envfix::probe::fatbin
