// The driver and CUDA runtime layers of the diagnosis: does the driver support the GPUs, and does
// it run the CUDA runtime the installed torch brings (driver_rules.hpp)?
#include "diagnosis_parts.hpp"

namespace envfix::diagnosis::diag {

namespace {

// The matrix's variant for this build when it lists the release, else one made from the CUDA
// version alone ("12.8": the newest update's driver minimum, the safe answer).
matrix::Variant runtime_variant(const matrix::Matrix& mx, const TorchBuild& b, probe::CudaVersion cuda) {
    if (auto v = standards::Version::try_parse(b.public_version))
        for (const auto& r : mx.releases) {
            auto rv = standards::Version::try_parse(r.torch);
            if (!rv || !(*rv == *v)) continue;
            if (const matrix::Variant* var = r.variant(cuda.variant_tag()); var && var->cuda == cuda) return *var;
        }
    matrix::Variant v;
    v.name = cuda.variant_tag();
    v.cuda = cuda;
    v.toolkit = cuda.to_string();
    return v;
}

// The runtime torch loads: the nvidia-cuda-runtime package of the build's CUDA major when one is
// installed (pip may have upgraded it past the build's own), else the build's.
probe::CudaVersion loaded_runtime(Context& c, probe::CudaVersion built) {
    probe::CudaVersion cuda = built;
    for (const auto& dist : c.stack.installed.dists) {
        if (dist.problem || !dist.canonical_name.starts_with("nvidia-cuda-runtime")) continue;
        auto major = runtime_cuda_major(dist.canonical_name, dist.version);
        if (!major || *major != built.major || !dist.parsed_version) continue;
        probe::CudaVersion pkg{static_cast<int>(dist.parsed_version->major()), static_cast<int>(dist.parsed_version->minor())};
        if (pkg.major != built.major) continue;
        c.d.runtime_package = dist.name + " " + dist.version;
        if (pkg > cuda) cuda = pkg;
    }
    return cuda;
}

// Without a driver version (no NVML, no /sys): the CUDA version the driver reports decides.
matrix::RuntimeVerdict by_driver_cuda(probe::CudaVersion runtime, probe::CudaVersion driver_cuda) {
    matrix::RuntimeVerdict v;
    std::string rt = runtime.to_string(), dc = driver_cuda.to_string();
    if (runtime <= driver_cuda) {
        v.fit = matrix::RuntimeFit::Exact;
        v.reason = msg("diag.runtime.by_cuda_ok", {{"runtime", rt}, {"driver_cuda", dc}});
    } else if (runtime.major == driver_cuda.major) {
        v.fit = matrix::RuntimeFit::MinorCompat;
        v.reason = msg("diag.runtime.by_cuda_compat", {{"runtime", rt}, {"driver_cuda", dc}});
    } else {
        v.fit = matrix::RuntimeFit::TooOld;
        v.reason = msg("diag.runtime.by_cuda_too_old", {{"runtime", rt}, {"driver_cuda", dc}});
    }
    return v;
}

}  // namespace

void judge_driver_and_runtime(Context& c) {
    const auto& m = c.machine;
    LayerReport driver{.layer = Layer::Driver};
    std::string dv = c.driver ? c.driver->to_string() : "";
    std::string dc = c.driver_cuda ? c.driver_cuda->to_string() : "";
    if (c.driver && c.driver_cuda)
        driver.found = msg("diag.layer.driver", {{"driver", dv}, {"cuda", dc}});
    else if (c.driver_cuda)
        driver.found = msg("diag.layer.driver_cuda_only", {{"cuda", dc}});
    else if (c.driver)
        driver.found = msg("diag.layer.driver_version_only", {{"driver", dv}});
    else
        driver.found = msg("diag.layer.driver_none");
    if (m.failure) {
        driver.status = c.torch && c.torch->kind != BuildKind::Cuda ? LayerStatus::NotNeeded : LayerStatus::Problem;
        driver.note = m.failure->message;
    } else {
        driver.status = LayerStatus::Ok;
    }
    // The driver must support each GPU's architecture at all.
    for (const auto& g : m.gpus) {
        auto v = check_gpu_driver(c.mx, g.cc, c.driver, gpu_label(g));
        if (v.fit == matrix::GpuDriverFit::TooOld || v.fit == matrix::GpuDriverFit::TooNew) {
            driver.status = LayerStatus::Problem;
            driver.note = v.reason;
            c.add({.id = v.fit == matrix::GpuDriverFit::TooOld ? "driver-too-old-for-gpu" : "driver-too-new-for-gpu",
                   .severity = FindingSeverity::Error,
                   .layer = Layer::Driver,
                   .code = v.fit == matrix::GpuDriverFit::TooOld ? ExitCode::DriverTooOld : ExitCode::GpuNotServed,
                   .text = v.reason});
        }
    }

    LayerReport runtime{.layer = Layer::Runtime};
    if (!c.torch) {
        runtime.status = LayerStatus::Unknown;
        runtime.found = msg("diag.layer.runtime_no_torch");
    } else if (c.torch->kind == BuildKind::Cpu) {
        runtime.status = c.gpu_machine ? LayerStatus::Problem : LayerStatus::NotNeeded;
        runtime.found = msg("diag.layer.runtime_cpu", {{"torch", c.torch_name}});
    } else if (c.torch->kind == BuildKind::Rocm || c.torch->kind == BuildKind::Xpu) {
        runtime.status = c.gpu_machine ? LayerStatus::Problem : LayerStatus::NotNeeded;
        runtime.found =
            msg(c.torch->kind == BuildKind::Rocm ? "diag.layer.runtime_rocm" : "diag.layer.runtime_xpu", {{"version", c.torch->rocm}});
    } else if (!c.torch->cuda) {
        runtime.status = LayerStatus::Unknown;
        runtime.found = msg("diag.layer.runtime_cuda_unknown", {{"torch", c.torch_name}});
    } else {
        probe::CudaVersion cuda = loaded_runtime(c, *c.torch->cuda);
        c.d.runtime_cuda = cuda;
        runtime.found = c.d.runtime_package.empty()
                            ? msg("diag.layer.runtime_cuda", {{"cuda", cuda.to_string()}, {"torch", c.torch_name}})
                            : msg("diag.layer.runtime_cuda_package", {{"cuda", cuda.to_string()}, {"package", c.d.runtime_package}});
        matrix::RuntimeVerdict v;
        if (c.driver && c.mx.toolkit(cuda)) {
            v = check_runtime(c.mx, runtime_variant(c.mx, *c.torch, cuda), c.in.platform.os, c.driver);
        } else if (c.driver_cuda) {
            v = by_driver_cuda(cuda, *c.driver_cuda);
        } else {
            v.fit = matrix::RuntimeFit::Unknown;
            v.reason = msg("diag.runtime.no_driver", {{"cuda", cuda.to_string()}});
        }
        c.d.runtime = v;
        runtime.note = v.reason;
        switch (v.fit) {
            case matrix::RuntimeFit::Exact: runtime.status = LayerStatus::Ok; break;
            case matrix::RuntimeFit::MinorCompat:
                runtime.status = LayerStatus::Warning;
                c.add({.id = "runtime-minor-compat",
                       .severity = FindingSeverity::Warning,
                       .layer = Layer::Runtime,
                       .text = msg("diag.runtime_minor_compat", {{"torch", c.torch_name},
                                                                 {"cuda", cuda.to_string()},
                                                                 {"driver", dv.empty() ? dc : dv},
                                                                 {"need", v.need ? v.need->exact.to_string() : "?"}})});
                break;
            case matrix::RuntimeFit::TooOld: {
                runtime.status = LayerStatus::Problem;
                driver.status = LayerStatus::Problem;
                std::string need = v.need ? v.need->exact.to_string() : "";
                driver.note = msg("diag.layer.driver_too_old_note", {{"cuda", cuda.to_string()}, {"need", need.empty() ? "?" : need}});
                c.add({.id = "driver-too-old",
                       .severity = FindingSeverity::Error,
                       .layer = Layer::Driver,
                       .code = ExitCode::DriverTooOld,
                       .text = need.empty() ? msg("diag.driver_too_old_cuda",
                                                  {{"torch", c.torch_name}, {"cuda", cuda.to_string()}, {"driver_cuda", dc}})
                                            : msg("diag.driver_too_old", {{"torch", c.torch_name},
                                                                          {"cuda", cuda.to_string()},
                                                                          {"need", need},
                                                                          {"driver", dv.empty() ? "?" : dv},
                                                                          {"driver_cuda", dc.empty() ? "?" : dc}})});
                break;
            }
            case matrix::RuntimeFit::Unknown:
            case matrix::RuntimeFit::NotNeeded: runtime.status = LayerStatus::Unknown; break;
        }
    }
    c.d.layers.push_back(std::move(driver));
    c.d.layers.push_back(std::move(runtime));
}

}  // namespace envfix::diagnosis::diag
