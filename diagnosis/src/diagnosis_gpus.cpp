// The framework layer's GPU question: for each GPU, does every library that counts hold code that
// runs on it (coverage.hpp)? torch's own libraries and extensions count by their primary
// architectures; NVIDIA's libraries by any SASS or PTX that runs, when they hold enough GPU code
// to be evidence (docs/binaries.md, "Primary architectures and extras").
#include <algorithm>

#include "diagnosis_parts.hpp"
#include "envfix/common/strings.hpp"

namespace envfix::diagnosis::diag {

namespace {

using probe::ArchTarget;

matrix::BinaryTargets targets_of(const StackLibrary& lib) {
    matrix::BinaryTargets t;
    if (lib.role == LibraryRole::Vendor) {
        for (const auto& s : lib.archs.sass) t.sass.push_back(s.arch);
        for (const auto& p : lib.archs.ptx)
            if (std::find(t.ptx.begin(), t.ptx.end(), p.arch) == t.ptx.end()) t.ptx.push_back(p.arch);
    } else {
        t.sass = lib.archs.primary_sass();
        t.ptx = lib.archs.primary_ptx();
    }
    return t;
}

bool counts(const StackLibrary& lib) {
    if (!lib.archs.has_gpu_code()) return false;
    if (lib.role != LibraryRole::Vendor) return true;
    return lib.archs.cubins + lib.archs.ptx_entries >= kVendorEvidenceEntries;
}

// Coverage with the PTX ISA of the entry that would serve (the oldest ISA of that architecture:
// the easiest for the driver); `opt` keeps it, for describe().
matrix::GpuCoverage cover_library(const StackLibrary& lib, const matrix::BinaryTargets& t, probe::ComputeCapability cc,
                                  matrix::CoverageOptions& opt) {
    opt.ptx_isa.reset();
    matrix::GpuCoverage cov = cover(t, cc, opt);
    if (!cov.target || cov.native()) return cov;
    for (const auto& p : lib.archs.ptx)
        if (p.arch == *cov.target && (!opt.ptx_isa || p.isa < *opt.ptx_isa)) opt.ptx_isa = p.isa;
    return cover(t, cc, opt);
}

matrix::CoverageOptions options_for(const Context& c, const probe::Gpu& g) {
    matrix::CoverageOptions opt;
    const matrix::Architecture* a = c.mx.architecture(g.cc);
    opt.tegra = a && a->tegra;
    if (c.driver_cuda) opt.driver_max_isa = c.mx.max_ptx_isa(*c.driver_cuda);
    opt.minor_compat = c.d.runtime && c.d.runtime->fit == matrix::RuntimeFit::MinorCompat;
    return opt;
}

std::string ptx_list(const std::vector<ArchTarget>& ptx) {
    std::vector<std::string> out;
    for (const auto& p : ptx) out.push_back(p.compute_tag());
    return str::join(out, " ");
}

// "torch 2.6.0+cu124 has no kernels for your GeForce RTX 5090 (sm_120): it was built for
// sm_50–sm_90 without PTX", and the PTX variants of that sentence.
Message not_served(const Context& c, const GpuReport& r, const matrix::BinaryTargets& t, const matrix::GpuCoverage& cov) {
    std::string range = arch_range(t.sass);
    Message m = msg("diag.gpu_not_served", {{"torch", c.torch_name}, {"gpu", r.label}, {"archs", range.empty() ? "-" : range}});
    if (cov.jit_blocked && cov.target) {
        bool compat = c.d.runtime && c.d.runtime->fit == matrix::RuntimeFit::MinorCompat;
        m.key = compat ? "diag.gpu_not_served_jit_compat" : "diag.gpu_not_served_jit_driver";
        m.with("ptx", cov.target->compute_tag()).with("cuda", c.d.runtime_cuda ? c.d.runtime_cuda->to_string() : "?");
    } else if (t.sass.empty() && t.ptx.empty()) {
        m.key = "diag.gpu_not_served_no_code";
    } else if (!t.ptx.empty()) {
        m.key = "diag.gpu_not_served_ptx";
        m.with("ptx", ptx_list(t.ptx));
    }
    return m;
}

}  // namespace

void judge_gpus(Context& c) {
    if (!c.cuda_build() || !c.gpu_machine) return;
    // torch's main library: the framework library with the most GPU code (libtorch_cuda.so).
    const StackLibrary* main = nullptr;
    for (const auto& lib : c.stack.libraries)
        if (lib.role == LibraryRole::Framework && lib.archs.has_gpu_code() &&
            (!main || lib.archs.code_containers > main->archs.code_containers))
            main = &lib;
    if (!main)
        c.add({.id = "no-gpu-code",
               .severity = FindingSeverity::Warning,
               .layer = Layer::Framework,
               .text = msg("diag.no_torch_gpu_code", {{"torch", c.torch_name}})});

    for (const auto& g : c.machine.gpus) {
        GpuReport r;
        r.gpu = g;
        r.label = gpu_label(g);
        for (const auto& lib : c.stack.libraries) {
            if (!counts(lib)) continue;
            matrix::BinaryTargets t = targets_of(lib);
            matrix::CoverageOptions why_opt = options_for(c, g);
            matrix::GpuCoverage cov = cover_library(lib, t, g.cc, why_opt);
            if (&lib == main) {
                r.kind = cov.kind;
                r.target = cov.target;
                r.jit_blocked = cov.jit_blocked;
                r.reason = describe(cov, t, r.label, why_opt);
            }
            if (cov.served()) {
                if (cov.kind == matrix::CoverageKind::Jit) r.jit_libraries.push_back(lib.shown);
                continue;
            }
            LibraryGap gap{
                .library = lib.shown, .package = lib.package, .role = lib.role, .archs = {}, .why = describe(cov, t, r.label, why_opt)};
            for (const auto& s : t.sass) gap.archs.push_back(s.sm_tag());
            for (const auto& p : t.ptx) gap.archs.push_back(p.compute_tag());
            if (&lib == main) {
                r.gaps.insert(r.gaps.begin(), gap);
                c.add({.id = "gpu-not-served",
                       .severity = FindingSeverity::Error,
                       .layer = Layer::Framework,
                       .code = ExitCode::GpuNotServed,
                       .text = not_served(c, r, t, cov)});
            } else {
                r.gaps.push_back(gap);
                std::string holds = str::join(gap.archs, " ");
                c.add({.id = "library-not-served",
                       .severity = FindingSeverity::Error,
                       .layer = Layer::Framework,
                       .code = ExitCode::GpuNotServed,
                       .text = msg(
                           lib.role == LibraryRole::Vendor ? "diag.vendor_not_served" : "diag.library_not_served",
                           {{"library", lib.shown}, {"package", lib.package}, {"gpu", r.label}, {"archs", holds.empty() ? "-" : holds}})});
            }
        }
        r.served = r.gaps.empty();
        if (main && r.served && r.kind == matrix::CoverageKind::Jit)
            c.add({.id = "jit-only",
                   .severity = FindingSeverity::Warning,
                   .layer = Layer::Framework,
                   .text = msg("diag.jit_only",
                               {{"torch", c.torch_name}, {"gpu", r.label}, {"ptx", r.target ? r.target->compute_tag() : "?"}})});
        c.d.gpus.push_back(std::move(r));
    }
}

}  // namespace envfix::diagnosis::diag
