#pragma once
// Which GPU code a library really holds, read from its fatbins without loading it: every SASS
// architecture (sm_90, sm_90a, sm_120f) with its cubin count, every PTX entry's virtual
// architecture and PTX ISA, and which of them are the build's *primary* architectures (the
// -gencode list applied to (nearly) every kernel) versus specialised *extras* (a handful of
// kernels, e.g. sm_100a ones in libtorch_cuda.so). docs/binaries.md explains the format and
// the rule.
//
//   parse_binary_archs(bytes)      pure: ELF / PE / raw fatbin bytes -> BinaryArchs
//   read_binary_archs(path)        memory-maps the file, then parses
//   scan_package_archs(paths, c)   many files, cached by file identity (arch_cache.hpp), in
//                                  parallel
//   gpu_library_candidates(sp)     the libraries of a site-packages worth reading (torch/lib,
//                                  nvidia/*/lib, known CUDA extensions)
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/message.hpp"
#include "envfix/probe/arch.hpp"

namespace envfix::probe {

enum class BinaryFormat { Elf, Pe, Fatbin };  // Fatbin: a raw .fatbin file (nvcc -fatbin)
std::string_view binary_format_name(BinaryFormat f);  // "elf", "pe", "fatbin"

// SASS (cubins) for one real architecture.
struct SassTarget {
    ArchTarget arch;      // sm_90, sm_90a, sm_120f
    int cubins = 0;       // cubin entries
    int containers = 0;   // fatbin containers holding at least one of them
    bool primary = false;
};

// PTX for one virtual architecture and PTX ISA version.
struct PtxTarget {
    ArchTarget arch;      // compute_120 (compute_tag())
    PtxIsa isa;           // 9.0
    int entries = 0;
    int containers = 0;
    bool primary = false;
};

struct BinaryArchs {
    BinaryFormat format = BinaryFormat::Elf;
    int containers = 0;        // fatbin containers walked
    int code_containers = 0;   // of those, holding at least one cubin or PTX entry
    int relocatable_containers = 0;  // of those, from __nv_relfatbin (-rdc)
    int cubins = 0;
    int ptx_entries = 0;
    int other_entries = 0;     // NVVM IR, LTO IR, obsolete cubins: not run by the driver as is
    int lz4_entries = 0;       // compressed entries (flag 0x2000)
    int zstd_entries = 0;      // (flag 0x8000)
    std::vector<SassTarget> sass;  // sorted by architecture
    std::vector<PtxTarget> ptx;    // sorted by architecture, then ISA
    // The file has no section table; containers were found by scanning it for their magic.
    bool scanned = false;
    // Part of the fatbin could not be read (damaged, truncated, undecodable payload):
    // the lists hold what could be read, `problems` says what could not (at most 10).
    bool partial = false;
    std::vector<Message> problems;

    bool has_gpu_code() const { return !sass.empty() || !ptx.empty(); }
    std::vector<ArchTarget> primary_sass() const;
    std::vector<ArchTarget> extra_sass() const;
    std::vector<ArchTarget> primary_ptx() const;  // distinct virtual architectures
    // The build's architecture list as torch.cuda.get_arch_list() writes it: primary SASS
    // ("sm_75", ..., "sm_90a") then primary PTX ("compute_120"), ascending.
    std::vector<std::string> arch_list() const;
};

// Parses an ELF (32/64-bit little-endian), PE/COFF or raw fatbin image. `name` (the file's
// path) goes into messages. A file with no fatbin gives an empty result; a file that is none
// of these formats, or whose section table is unreadable, is an error (ExitCode::BadInput);
// a damaged fatbin gives a partial result. `ahead`, when given, is told of byte ranges of
// `bytes` where headers lie close together, before the walk reads them (a reader from a cold
// disk fetches each range in one request).
using ReadAhead = std::function<void(uint64_t offset, uint64_t length)>;
Expected<BinaryArchs> parse_binary_archs(std::string_view bytes, std::string_view name, const ReadAhead& ahead = {});

// Marks primary and extra targets (docs/binaries.md, "Primary architectures"). Pure; called
// by parse_binary_archs, public for tests and for results assembled elsewhere.
void classify_targets(BinaryArchs& archs);

Expected<BinaryArchs> read_binary_archs(const std::filesystem::path& path);

class ArchCache;

struct LibraryArchs {
    std::filesystem::path path;
    Expected<BinaryArchs> archs;  // error: unreadable or not a library (ExitCode::BadInput)
    bool from_cache = false;
};

// Reads every file (cached ones from `cache` when their identity is unchanged; pass nullptr
// for none), `threads` at a time (0: one per core). Results are in the order of `paths`.
// New results are put in the cache; saving it is the caller's choice (ArchCache::save).
std::vector<LibraryArchs> scan_package_archs(const std::vector<std::filesystem::path>& paths, ArchCache* cache,
                                             unsigned threads = 0);

// A library worth reading, and the package it belongs to ("torch", "nvidia/cublas", "xformers").
struct GpuLibrary {
    std::filesystem::path path;
    std::string package;
};
// The GPU-relevant libraries of one site-packages folder: torch/lib/*, nvidia/*/lib/* and
// nvidia/*/bin/*.dll, every .so/.pyd/.dll under the known CUDA extension packages (xformers,
// flash_attn, torchvision, ...) and `extra_packages`, extension modules lying directly in
// site-packages (flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so), and `listed` (found by the
// caller, e.g. in a distribution's RECORD). Sorted, no duplicates (the first name of a file wins).
std::vector<GpuLibrary> gpu_library_candidates(const std::filesystem::path& site_packages,
                                               const std::vector<std::string>& extra_packages = {},
                                               std::vector<GpuLibrary> listed = {});
// A file name a library has: *.so, *.so.N..., *.pyd, *.dll, in any case.
bool is_library_file_name(std::string_view name);
// The known extension packages gpu_library_candidates looks into.
const std::vector<std::string>& known_cuda_extension_packages();

}  // namespace envfix::probe
