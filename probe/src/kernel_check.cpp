// The driver check on each GPU: primary context, PTX JIT with its logs, SAXPY and sum launched
// and timed with CUDA events, results copied back and compared exactly.
#include "envfix/probe/kernel_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "cuda_api.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/probe/cuda_errors.hpp"

namespace envfix::probe {

bool DriverCheck::passed() const {
    if (gpus.empty()) return false;
    for (const auto& g : gpus)
        if (!g.passed()) return false;
    return true;
}

namespace {

// Runs `f` when leaving scope: contexts, modules and buffers are released on every path.
template <class F>
struct Defer {
    F f;
    ~Defer() { f(); }
};
template <class F>
Defer(F) -> Defer<F>;

constexpr size_t kLogBytes = 16384;

class GpuRunner {
public:
    GpuRunner(const cu::Driver& d, const cu::KernelApi& k, const Gpu& gpu, const DriverInfo& driver,
              const KernelCheckOptions& o)
        : d_(d), k_(k), o_(o), rep_(o.reporter ? *o.reporter : null_reporter()) {
        c_.gpu = gpu;
        ctx_.gpu_index = gpu.index;
        ctx_.gpu_name = gpu.name;
        ctx_.sm = gpu.cc.sm_tag();
        ctx_.cuda_version = driver.cuda ? driver.cuda->to_string() : "";
    }

    GpuCheck run() {
        run_steps();
        return std::move(c_);
    }

private:
    // Records the failed call in the user's words; always returns false to end the steps.
    bool failed(const char* call, cu::CUresult r) {
        c_.failed_call = call;
        c_.cu_result = r;
        ctx_.call = call;
        ctx_.error = describe_cu_error(r, d_.error_name(r), d_.error_text(r));
        c_.failure = kernel_call_failure(r, ctx_);
        return false;
    }

    void run_steps() {
        cu::CUdevice dev = 0;
        if (auto r = d_.api.cuDeviceGet(&dev, c_.gpu.index); r != cu::kSuccess) return (void)failed("cuDeviceGet", r);
        cu::CUcontext ctx = nullptr;
        if (auto r = k_.cuDevicePrimaryCtxRetain(&ctx, dev); r != cu::kSuccess)
            return (void)failed("cuDevicePrimaryCtxRetain", r);
        Defer release{[&] { k_.cuDevicePrimaryCtxRelease(dev); }};
        if (auto r = k_.cuCtxSetCurrent(ctx); r != cu::kSuccess) return (void)failed("cuCtxSetCurrent", r);
        Defer unset{[&] { k_.cuCtxSetCurrent(nullptr); }};

        cu::CUmodule module = nullptr;
        if (!load_module(module)) return;
        Defer unload{[&] { k_.cuModuleUnload(module); }};
        cu::CUfunction saxpy = nullptr, reduce = nullptr;
        if (auto r = k_.cuModuleGetFunction(&saxpy, module, kSaxpyKernel.data()); r != cu::kSuccess)
            return (void)failed("cuModuleGetFunction", r);
        if (auto r = k_.cuModuleGetFunction(&reduce, module, kReduceKernel.data()); r != cu::kSuccess)
            return (void)failed("cuModuleGetFunction", r);

        uint32_t n = std::clamp(o_.elements, 1u, kernel_data::max_elements());
        const size_t bytes = size_t{n} * sizeof(float);
        const int sms = std::max(1, c_.gpu.sm_count);
        const uint32_t chunks = (n + kBlockSize - 1) / kBlockSize;
        // Enough blocks to fill every SM several times over; the grid-stride loops cover the rest.
        const uint32_t saxpy_grid = std::max(1u, std::min(chunks, static_cast<uint32_t>(sms) * 16));
        const uint32_t reduce_grid = std::max(1u, std::min(chunks, static_cast<uint32_t>(sms) * 8));
        ctx_.need = str::human_bytes(3 * bytes + reduce_grid * sizeof(float));

        std::vector<float> hx(n), hy(n);
        for (uint32_t i = 0; i < n; ++i) {
            hx[i] = kernel_data::x(i);
            hy[i] = kernel_data::y(i);
        }
        cu::CUdeviceptr dx = 0, dy = 0, dout = 0, dpart = 0;
        Defer free_all{[&] {
            for (auto p : {dx, dy, dout, dpart})
                if (p) k_.cuMemFree_v2(p);
        }};
        for (auto* p : {&dx, &dy, &dout})
            if (auto r = k_.cuMemAlloc_v2(p, bytes); r != cu::kSuccess) return (void)failed("cuMemAlloc", r);
        if (auto r = k_.cuMemAlloc_v2(&dpart, reduce_grid * sizeof(float)); r != cu::kSuccess)
            return (void)failed("cuMemAlloc", r);
        if (auto r = k_.cuMemcpyHtoD_v2(dx, hx.data(), bytes); r != cu::kSuccess) return (void)failed("cuMemcpyHtoD", r);
        if (auto r = k_.cuMemcpyHtoD_v2(dy, hy.data(), bytes); r != cu::kSuccess) return (void)failed("cuMemcpyHtoD", r);

        cu::CUevent start = nullptr, stop = nullptr;
        if (auto r = k_.cuEventCreate(&start, 0); r != cu::kSuccess) return (void)failed("cuEventCreate", r);
        Defer destroy_start{[&] { k_.cuEventDestroy_v2(start); }};
        if (auto r = k_.cuEventCreate(&stop, 0); r != cu::kSuccess) return (void)failed("cuEventCreate", r);
        Defer destroy_stop{[&] { k_.cuEventDestroy_v2(stop); }};
        events_ = {start, stop};

        float a = kernel_data::kA;
        void* saxpy_args[] = {&dout, &dx, &dy, &a, &n};
        KernelRun sx{std::string(kSaxpyKernel), 3 * uint64_t{bytes}};
        if (!launch_timed(saxpy, saxpy_grid, saxpy_args, sx)) return;
        std::vector<float> out(n);
        if (auto r = k_.cuMemcpyDtoH_v2(out.data(), dout, bytes); r != cu::kSuccess) return (void)failed("cuMemcpyDtoH", r);
        if (!judge(sx, kernel_data::check_saxpy(out.data(), n), n)) return;

        void* reduce_args[] = {&dpart, &dy, &n};
        KernelRun rd{std::string(kReduceKernel), uint64_t{bytes} + reduce_grid * sizeof(float)};
        if (!launch_timed(reduce, reduce_grid, reduce_args, rd)) return;
        std::vector<float> partials(reduce_grid);
        if (auto r = k_.cuMemcpyDtoH_v2(partials.data(), dpart, partials.size() * sizeof(float)); r != cu::kSuccess)
            return (void)failed("cuMemcpyDtoH", r);
        judge(rd, kernel_data::check_reduce(partials.data(), reduce_grid, n), reduce_grid);
    }

    bool load_module(cu::CUmodule& module) {
        std::vector<char> info(kLogBytes, '\0'), error(kLogBytes, '\0');
        cu::CUjit_option keys[] = {cu::kJitInfoLogBuffer, cu::kJitInfoLogBufferSizeBytes, cu::kJitErrorLogBuffer,
                                   cu::kJitErrorLogBufferSizeBytes, cu::kJitLogVerbose};
        void* values[] = {info.data(), reinterpret_cast<void*>(uintptr_t{kLogBytes - 1}), error.data(),
                          reinterpret_cast<void*>(uintptr_t{kLogBytes - 1}), reinterpret_cast<void*>(uintptr_t{1})};
        auto t0 = std::chrono::steady_clock::now();
        auto r = k_.cuModuleLoadDataEx(&module, check_kernels_ptx().data(), 5, keys, values);
        c_.jit_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        c_.jit_info_log = std::string(str::trim(info.data()));
        c_.jit_error_log = std::string(str::trim(error.data()));
        if (r != cu::kSuccess) return failed("cuModuleLoadDataEx", r);
        rep_.debug(msg("verify.debug.jit", {{"index", std::to_string(c_.gpu.index)}, {"log", c_.jit_info_log}}));
        return true;
    }

    // One untimed launch (first-launch costs), then `repeats` timed ones; the fastest counts.
    bool launch_timed(cu::CUfunction f, uint32_t grid, void** args, KernelRun& run) {
        auto launch = [&] { return k_.cuLaunchKernel(f, grid, 1, 1, kBlockSize, 1, 1, 0, nullptr, args, nullptr); };
        if (auto r = launch(); r != cu::kSuccess) return failed("cuLaunchKernel", r);
        if (auto r = k_.cuCtxSynchronize(); r != cu::kSuccess) return failed("cuCtxSynchronize", r);
        double best = std::numeric_limits<double>::infinity();
        for (int i = 0; i < std::max(1, o_.repeats); ++i) {
            if (auto r = k_.cuEventRecord(events_.first, nullptr); r != cu::kSuccess) return failed("cuEventRecord", r);
            if (auto r = launch(); r != cu::kSuccess) return failed("cuLaunchKernel", r);
            if (auto r = k_.cuEventRecord(events_.second, nullptr); r != cu::kSuccess) return failed("cuEventRecord", r);
            if (auto r = k_.cuEventSynchronize(events_.second); r != cu::kSuccess) return failed("cuEventSynchronize", r);
            float ms = 0;
            if (auto r = k_.cuEventElapsedTime(&ms, events_.first, events_.second); r != cu::kSuccess)
                return failed("cuEventElapsedTime", r);
            best = std::min(best, static_cast<double>(ms));
        }
        run.time_ms = best;
        run.bandwidth_gbs = best > 0 ? static_cast<double>(run.bytes) / (best * 1e6) : 0;
        return true;
    }

    bool judge(KernelRun& run, const kernel_data::Outcome& o, uint64_t total) {
        run.mismatches = o.mismatches;
        run.first_mismatch = o.first;
        run.passed = o.mismatches == 0;
        c_.kernels.push_back(run);
        if (run.passed) return true;
        auto number = [](double v) {
            std::string s = std::to_string(v);
            s.erase(s.find_last_not_of('0') + 1);
            if (!s.empty() && s.back() == '.') s.pop_back();
            return s;
        };
        c_.failure = make_error(ExitCode::VerifyDriverFailed, "verify.wrong_results",
                                {{"index", std::to_string(c_.gpu.index)},
                                 {"name", c_.gpu.name},
                                 {"kernel", run.kernel},
                                 {"count", std::to_string(o.mismatches)},
                                 {"total", std::to_string(total)},
                                 {"at", std::to_string(o.first->index)},
                                 {"expected", number(o.first->expected)},
                                 {"got", number(o.first->got)}});
        return false;
    }

    const cu::Driver& d_;
    const cu::KernelApi& k_;
    const KernelCheckOptions& o_;
    Reporter& rep_;
    GpuCheck c_;
    KernelFailureContext ctx_;
    std::pair<cu::CUevent, cu::CUevent> events_{};
};

}  // namespace

Expected<DriverCheck> run_kernel_check(const MachineProbe& machine, const KernelCheckOptions& opts) {
    std::string error;
    auto lib = DynLib::open(machine.driver.library, error);
    if (!lib)
        return fail(ExitCode::NoDriver, "probe.no_driver", {{"library", machine.driver.library}, {"reason", error}});
    ENVFIX_TRY(cu::Driver driver, cu::bind_driver(*lib, machine.driver.library));
    ENVFIX_TRY(cu::KernelApi kernel_api, cu::bind_kernel_api(driver));
    // The probe initialised the driver in this process already; this is a no-op then.
    if (auto r = driver.api.cuInit(0); r != cu::kSuccess) {
        InitFailureContext c;
        c.library = driver.path;
        c.error = describe_cu_error(r, driver.error_name(r), driver.error_text(r));
        return unexpected(cuda_init_failure(r, c));
    }
    DriverCheck out;
    out.elements = std::clamp(opts.elements, 1u, kernel_data::max_elements());
    for (const auto& gpu : machine.gpus) out.gpus.push_back(GpuRunner(driver, kernel_api, gpu, machine.driver, opts).run());
    return out;
}

}  // namespace envfix::probe
