// ELF/PE/raw fatbin bytes -> BinaryArchs: find the fatbin sections, walk their containers,
// count SASS and PTX targets per container, then classify primary and extra targets.
#include "envfix/probe/binary_archs.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "cubin_header.hpp"
#include "envfix/common/fs.hpp"
#include "fatbin.hpp"
#include "object_file.hpp"

namespace envfix::probe {

namespace {

// Fatbin sections by name: ELF and MinGW PE keep the full name, MSVC images cut it to 8 bytes.
bool is_fatbin_section(std::string_view n, bool* relocatable) {
    *relocatable = n == "__nv_relfatbin" || n == "__nv_rel";
    return *relocatable || n == ".nv_fatbin" || n == ".nv_fatb";
}

char variant_from_flags(uint64_t flags) {
    if (flags & fatbin::kFlagArchSpecific) return 'a';
    if (flags & fatbin::kFlagFamily) return 'f';
    return 0;
}

bool plausible_arch(uint32_t arch) { return arch >= 10 && arch <= 999; }

struct Counter {
    std::map<ArchTarget, SassTarget> sass;
    std::map<std::pair<ArchTarget, PtxIsa>, PtxTarget> ptx;
};

Message entry_problem(std::string key, std::string_view path, const fatbin::Entry& e) {
    return msg(std::move(key), {{"path", std::string(path)}, {"offset", std::to_string(e.offset)},
                                {"arch", std::to_string(e.arch)}});
}

// Whether the toolkit that wrote this container marks variants in the entry flags, so that an
// entry without a variant bit is plain and its payload need not be decoded. nvcc 13 sets the
// bits (make-fixtures.sh output; torch 2.11.0+cu130's 444 containers) and is also the first to
// write ABI-8 cubins for pre-Blackwell GPUs (CUDA 12 wrote sm_75 ... sm_90 as ABI 7, code
// version 1.7). So a variant bit, or an ABI-8 cubin for an arch below 100, vouches for the
// whole container (one container = one nvcc run).
bool container_marks_variants(const fatbin::Container& c) {
    for (const auto& e : c.entries) {
        if (e.flags & (fatbin::kFlagArchSpecific | fatbin::kFlagFamily)) return true;
        if (e.kind == fatbin::kKindElf && e.version_major == 1 && e.version_minor >= 8 && e.arch < 100) return true;
    }
    return false;
}

void count_container(const fatbin::Container& c, bool relocatable, std::string_view path, BinaryArchs& out,
                     Counter& n, fatbin::Walk& walk) {
    const bool flags_tell = container_marks_variants(c);
    std::set<ArchTarget> sass_here;
    std::set<std::pair<ArchTarget, PtxIsa>> ptx_here;
    for (const auto& e : c.entries) {
        if (e.flags & fatbin::kFlagLz4) ++out.lz4_entries;
        if (e.flags & fatbin::kFlagZstd) ++out.zstd_entries;
        if (e.kind != fatbin::kKindElf && e.kind != fatbin::kKindPtx) {
            ++out.other_entries;
            continue;
        }
        if (!plausible_arch(e.arch)) {
            walk.problem(entry_problem("binary.problem.bad_arch", path, e));
            continue;
        }
        ArchTarget t{ComputeCapability::from_sm(static_cast<int>(e.arch)), variant_from_flags(e.flags)};
        if (e.kind == fatbin::kKindPtx) {
            PtxIsa isa{e.version_major, e.version_minor};
            auto& p = n.ptx[{t, isa}];
            p.arch = t;
            p.isa = isa;
            ++p.entries;
            ++out.ptx_entries;
            ptx_here.insert({t, isa});
            continue;
        }
        // No variant bit from a toolkit that may not write them: CUDA 12 marks sm_90a (and
        // 12.8+ ABI-8 cubins sm_100a ...) only in the cubin's e_flags. Variants exist from
        // sm_90 on, so lower archs skip the read.
        if (!t.variant && !flags_tell && e.arch >= 90) {
            auto cubin = e.truncated ? std::nullopt : entry_cubin_target(e);
            if (cubin)
                t.variant = cubin->variant;
            else
                walk.problem(entry_problem("binary.problem.bad_payload", path, e));
        }
        auto& s = n.sass[t];
        s.arch = t;
        ++s.cubins;
        ++out.cubins;
        sass_here.insert(t);
    }
    for (const auto& t : sass_here) ++n.sass[t].containers;
    for (const auto& k : ptx_here) ++n.ptx[k].containers;
    if (!sass_here.empty() || !ptx_here.empty()) {
        ++out.code_containers;
        if (relocatable) ++out.relocatable_containers;
    }
}

void finish(BinaryArchs& out, Counter& n, fatbin::Walk& walk, std::string_view path) {
    for (auto& [k, v] : n.sass) out.sass.push_back(v);
    for (auto& [k, v] : n.ptx) out.ptx.push_back(v);
    out.partial = walk.partial;
    out.problems = std::move(walk.problems);
    if (walk.dropped_problems > 0)
        out.problems.push_back(msg("binary.problem.more", {{"path", std::string(path)}, {"count", std::to_string(walk.dropped_problems)}}));
    classify_targets(out);
}

}  // namespace

std::string_view binary_format_name(BinaryFormat f) {
    switch (f) {
        case BinaryFormat::Elf: return "elf";
        case BinaryFormat::Pe: return "pe";
        case BinaryFormat::Fatbin: return "fatbin";
    }
    return "elf";
}

Expected<BinaryArchs> parse_binary_archs(std::string_view bytes, std::string_view name, const ReadAhead& ahead) {
    BinaryArchs out;
    Counter counter;
    fatbin::Walk walk;
    if (looks_like_fatbin(bytes)) {
        out.format = BinaryFormat::Fatbin;
        walk.ahead = ahead;
        fatbin::walk_section(bytes, name, "(file)", walk);
        out.containers = static_cast<int>(walk.containers.size());
        for (const auto& c : walk.containers) count_container(c, false, name, out, counter, walk);
        finish(out, counter, walk, name);
        return out;
    }
    ENVFIX_TRY(auto obj, parse_object_file(bytes, name));
    out.format = obj.format;
    if (!obj.has_section_table) {
        out.scanned = true;
        fatbin::scan_file(bytes, name, walk);
        out.containers = static_cast<int>(walk.containers.size());
        for (const auto& c : walk.containers) count_container(c, false, name, out, counter, walk);
        finish(out, counter, walk, name);
        return out;
    }
    // Walk each fatbin section once; a section overlapping one already walked (a damaged or
    // hostile table) would count the same containers twice.
    std::vector<std::pair<uint64_t, uint64_t>> walked;
    for (const auto& s : obj.sections) {
        bool relocatable = false;
        if (!is_fatbin_section(s.name, &relocatable) || s.size == 0) continue;
        uint64_t size = s.size;
        if (s.offset > bytes.size()) {
            walk.problem(msg("binary.problem.section_outside", {{"path", std::string(name)}, {"section", s.name}}));
            continue;
        }
        if (size > bytes.size() - s.offset) {
            walk.problem(msg("binary.problem.section_outside", {{"path", std::string(name)}, {"section", s.name}}));
            size = bytes.size() - s.offset;
        }
        const uint64_t begin = s.offset, end = s.offset + size;
        bool overlaps = std::any_of(walked.begin(), walked.end(), [&](auto r) { return begin < r.second && r.first < end; });
        if (overlaps) {
            walk.problem(msg("binary.problem.section_overlap", {{"path", std::string(name)}, {"section", s.name}}));
            continue;
        }
        walked.emplace_back(begin, end);
        fatbin::Walk one;
        if (ahead) one.ahead = [&](uint64_t offset, uint64_t length) { ahead(begin + offset, length); };
        fatbin::walk_section(bytes.substr(static_cast<size_t>(begin), static_cast<size_t>(size)), name, s.name, one);
        out.containers += static_cast<int>(one.containers.size());
        for (auto& m : one.problems) walk.problem(std::move(m));
        walk.dropped_problems += one.dropped_problems;
        for (const auto& c : one.containers) count_container(c, relocatable, name, out, counter, walk);
    }
    finish(out, counter, walk, name);
    return out;
}

// The rule (docs/binaries.md): nvcc puts one fatbin container in each translation unit, with
// one cubin per -gencode target. When some target sits in at least half of the containers
// that hold code, the library was built the usual way (one architecture list for every file):
// the targets present in at least half as many containers as the most common one are that
// list (primary); targets in fewer containers come from files built with extra flags (the
// sm_100a x59 of 444 in libtorch_cuda.so). When no target reaches half of the containers,
// the library keeps each architecture in its own files (per-arch builds, as large vendor
// libraries do); then a target is primary unless it has fewer than 1/20 of the containers of
// the most common target of its kind.
void classify_targets(BinaryArchs& a) {
    int max_sass = 0, max_ptx = 0;
    for (const auto& s : a.sass) max_sass = std::max(max_sass, s.containers);
    std::map<ArchTarget, int> ptx_by_arch;  // a virtual arch counts once whatever its ISA
    for (const auto& p : a.ptx) ptx_by_arch[p.arch] += p.containers;
    for (const auto& [arch, c] : ptx_by_arch) max_ptx = std::max(max_ptx, c);
    const int max_any = std::max(max_sass, max_ptx);
    const bool one_list = a.code_containers > 0 && 2 * max_any >= a.code_containers;
    auto primary = [&](int containers, int max_of_kind) {
        if (containers <= 0) return false;
        return one_list ? 2 * containers >= max_any : 20 * containers >= max_of_kind;
    };
    for (auto& s : a.sass) s.primary = primary(s.containers, max_sass);
    for (auto& p : a.ptx) p.primary = primary(ptx_by_arch[p.arch], max_ptx);
}

std::vector<ArchTarget> BinaryArchs::primary_sass() const {
    std::vector<ArchTarget> out;
    for (const auto& s : sass)
        if (s.primary) out.push_back(s.arch);
    return out;
}

std::vector<ArchTarget> BinaryArchs::extra_sass() const {
    std::vector<ArchTarget> out;
    for (const auto& s : sass)
        if (!s.primary) out.push_back(s.arch);
    return out;
}

std::vector<ArchTarget> BinaryArchs::primary_ptx() const {
    std::vector<ArchTarget> out;
    for (const auto& p : ptx)
        if (p.primary && (out.empty() || out.back() != p.arch)) out.push_back(p.arch);
    return out;
}

std::vector<std::string> BinaryArchs::arch_list() const {
    std::vector<std::string> out;
    for (const auto& t : primary_sass()) out.push_back(t.sm_tag());
    for (const auto& t : primary_ptx()) out.push_back(t.compute_tag());
    return out;
}

Expected<BinaryArchs> read_binary_archs(const std::filesystem::path& path) {
    ENVFIX_TRY(auto map, fs::MappedFile::open(path));
    // Fatbins are walked header to header past payloads of kilobytes to megabytes: read-ahead
    // around each header would read most of every section from the disk (CUDA 13's 27 libraries:
    // 1.29 GiB, against 59 MB page by page; docs/performance.md). Set before the first touch: the
    // read-ahead of the section table's reads alone was 12 MB a library. (The table is parsed
    // again below, from pages then in memory: microseconds.)
    map.expect_reads(fs::MappedFile::Reads::Scattered);
    auto obj = parse_object_file(map.bytes(), path.string());
    if (obj && !obj->has_section_table) map.expect_reads(fs::MappedFile::Reads::Ahead);  // scanned whole
    return parse_binary_archs(map.bytes(), path.string(), [&](uint64_t offset, uint64_t length) { map.will_need(offset, length); });
}

}  // namespace envfix::probe
