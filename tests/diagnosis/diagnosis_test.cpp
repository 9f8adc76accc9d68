// The diagnosis on values: machines as the probe reports them, stacks as the reader reads them,
// the built-in matrix. Each case names what doctor must conclude (exit code, findings, fix).
#include <gtest/gtest.h>

#include "diag_values.hpp"
#include "envfix/common/strings.hpp"

using namespace envfix;
using namespace envfix::matrix;
using namespace envfix::diagnosis;
using test::archs;
using test::StackBuilder;

namespace {

const char* kTorch26Cu124 = "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90";
const char* kTorch211Cu130 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 sm_90a:4 sm_100a:59 sm_103a:59 sm_120a:1";

std::string variant_of(const Diagnosis& d) { return d.fix ? d.fix->variant : ""; }

TEST(Diagnosis, Cu124OnRtx5090HasNoKernel) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder().torch("2.6.0+cu124", "12.4").library("torch/lib/libtorch_cuda.so", "torch", archs(kTorch26Cu124)).build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::GpuNotServed);
    EXPECT_EQ(d.verdict.key, "diag.gpu_not_served");
    EXPECT_EQ(render(d.verdict, Lang::En),
              "torch 2.6.0+cu124 has no kernels for your GeForce RTX 5090 (sm_120): it was built for sm_50\xE2\x80\x93sm_90 without PTX");
    ASSERT_EQ(d.gpus.size(), 1u);
    EXPECT_FALSE(d.gpus[0].served);
    ASSERT_EQ(d.gpus[0].gaps.size(), 1u);
    EXPECT_EQ(d.gpus[0].gaps[0].library, "torch/lib/libtorch_cuda.so");
    // The driver and the runtime are fine: only the framework is the problem.
    EXPECT_EQ(d.layers[0].status, LayerStatus::Ok);
    EXPECT_EQ(d.layers[1].status, LayerStatus::Ok);
    EXPECT_EQ(d.layers[2].status, LayerStatus::Problem);
    ASSERT_TRUE(d.fix);
    EXPECT_EQ(d.fix->variant, "cu128");
    EXPECT_EQ(d.fix->argv[0], "envfix");
    EXPECT_EQ(d.fix->argv[1], "install");
    EXPECT_EQ(d.fix->argv[2], "--python");
    // Plan picks the version and variant from the user's index: the command pins neither.
    EXPECT_EQ(format_command(d.fix->argv), "envfix install --python /env/bin/python");
    EXPECT_FALSE(d.fix->torch.empty());
}

TEST(Diagnosis, Cu128OnRtx5090Runs) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .torch("2.7.0+cu128", "12.8")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::Ok);
    EXPECT_EQ(d.verdict.key, "diag.verdict.native");
    EXPECT_EQ(d.gpus[0].kind, CoverageKind::Native);
    EXPECT_FALSE(d.fix);
    ASSERT_TRUE(d.runtime);
    EXPECT_EQ(d.runtime->fit, RuntimeFit::Exact);
}

TEST(Diagnosis, Cu130On1080TiHasNoKernel) {
    auto m = test::machine("580.95.05", "13.0", {{"NVIDIA GeForce GTX 1080 Ti", "6.1"}});
    auto s = StackBuilder().torch("2.11.0+cu130", "13.0").library("torch/lib/libtorch_cuda.so", "torch", archs(kTorch211Cu130)).build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::GpuNotServed);
    // Extras (sm_90a ...) are not what the build is for: the range is the primary list.
    EXPECT_NE(render(d.verdict, Lang::En).find("sm_75\xE2\x80\x93sm_120 without PTX"), std::string::npos) << render(d.verdict, Lang::En);
    EXPECT_EQ(variant_of(d), "cu126");
}

TEST(Diagnosis, Cu130OnDriver570IsDriverTooOld) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder().torch("2.11.0+cu130", "13.0").library("torch/lib/libtorch_cuda.so", "torch", archs(kTorch211Cu130)).build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::DriverTooOld);
    EXPECT_EQ(d.verdict.key, "diag.driver_too_old");
    EXPECT_EQ(d.verdict.arg("need"), "580.95.05");  // the 13.0.2 toolkit the release bundles
    EXPECT_EQ(d.layers[0].status, LayerStatus::Problem);
    EXPECT_EQ(d.layers[1].status, LayerStatus::Problem);
    EXPECT_EQ(variant_of(d), "cu128");
    bool driver_note = false;
    for (const auto& n : d.fix_notes) driver_note |= n.key == "diag.fix.or_driver";
    EXPECT_TRUE(driver_note);
}

TEST(Diagnosis, CpuBuildOnGpuMachine) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder().torch("2.7.0+cpu", "").build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::CpuOnlyBuild);
    EXPECT_EQ(d.verdict.key, "diag.cpu_only");
    EXPECT_EQ(d.layers[1].status, LayerStatus::Problem);
    EXPECT_EQ(variant_of(d), "cu128");
}

TEST(Diagnosis, CpuBuildWithoutGpuFits) {
    auto s = StackBuilder().torch("2.7.0+cpu", "").build();
    auto d = test::run_diagnosis(test::no_driver_machine(), s);
    EXPECT_EQ(d.code, ExitCode::Ok);
    EXPECT_EQ(d.verdict.key, "diag.verdict.cpu_no_gpu");
    EXPECT_EQ(d.layers[0].status, LayerStatus::NotNeeded);
}

TEST(Diagnosis, CudaBuildWithoutDriverGivesTheProbesAnswer) {
    auto s = StackBuilder().torch("2.7.0+cu128", "12.8").library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_120")).build();
    auto d = test::run_diagnosis(test::no_driver_machine(), s);
    EXPECT_EQ(d.code, ExitCode::NoDriver);
    EXPECT_EQ(d.verdict.key, "probe.no_driver");
    EXPECT_FALSE(d.fix);
    EXPECT_EQ(d.fix_text.key, "diag.fix.driver_first");
}

TEST(Diagnosis, NoTorch) {
    auto d = test::run_diagnosis(test::machine("580.159.04", "13.0", {{"NVIDIA H200", "9.0"}}), StackBuilder().build());
    EXPECT_EQ(d.code, ExitCode::NoFramework);
    EXPECT_EQ(d.verdict.key, "diag.no_torch");
    ASSERT_TRUE(d.fix);  // what plan would install
    EXPECT_EQ(d.fix->variant, "cu130");
    auto none = test::run_diagnosis(test::no_driver_machine(), StackBuilder().build());
    EXPECT_EQ(none.code, ExitCode::NoFramework);
    EXPECT_EQ(none.verdict.key, "diag.no_torch_no_gpu");
    ASSERT_TRUE(none.fix);
    EXPECT_EQ(none.fix->variant, "cpu");
}

TEST(Diagnosis, TorchvisionPinnedToAnotherTorch) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .torch("2.7.0+cu128", "12.8")
                 .dist("torchvision", "0.21.0", {"numpy", "torch==2.6.0", "pillow!=8.3.*,>=5.3.0"})
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::EnvInconsistent);
    EXPECT_EQ(render(d.verdict, Lang::En), "torchvision 0.21.0 requires torch==2.6.0, but torch 2.7.0+cu128 is installed");
    ASSERT_TRUE(d.fix);
    EXPECT_TRUE(d.fix->reinstall);
    EXPECT_EQ(d.fix->torch, "2.7.0");
    EXPECT_EQ(d.fix->variant, "cu128");
    // The same build again is the point: the command names it.
    EXPECT_EQ(format_command(d.fix->argv), "envfix install --python /env/bin/python torch==2.7.0 --variant cu128");
}

TEST(Diagnosis, CompanionsWithoutPinUseTheMatrixPairing) {
    auto m = test::machine("580.159.04", "13.0", {{"NVIDIA H200", "9.0"}});
    auto good = StackBuilder()
                    .torch("2.11.0+cu130", "13.0")
                    .dist("torchaudio", "2.11.0")
                    .library("torch/lib/libtorch_cuda.so", "torch", archs(kTorch211Cu130))
                    .build();
    EXPECT_EQ(test::run_diagnosis(m, good).code, ExitCode::Ok);
    auto bad = StackBuilder()
                   .torch("2.11.0+cu130", "13.0")
                   .dist("torchaudio", "2.6.0")
                   .library("torch/lib/libtorch_cuda.so", "torch", archs(kTorch211Cu130))
                   .build();
    auto d = test::run_diagnosis(m, bad);
    EXPECT_EQ(d.code, ExitCode::EnvInconsistent);
    EXPECT_EQ(d.verdict.key, "diag.companion_built_for");
    EXPECT_EQ(d.verdict.arg("built_for"), "2.6.0");
    EXPECT_EQ(d.verdict.arg("expected"), "2.11.0");
}

TEST(Diagnosis, CompanionOfAnotherCudaVariant) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 4090", "8.9"}});
    auto s = StackBuilder()
                 .torch("2.7.0+cu128", "12.8")
                 .dist("torchvision", "0.22.0+cu126", {"torch==2.7.0"})
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::EnvInconsistent);
    EXPECT_TRUE(test::has_finding(d, "companion-variant"));
    EXPECT_FALSE(test::has_finding(d, "companion-mismatch"));  // ==2.7.0 matches 2.7.0+cu128
}

TEST(Diagnosis, MixedCudaRuntimes) {
    auto m = test::machine("580.159.04", "13.0", {{"NVIDIA H200", "9.0"}});
    auto s = StackBuilder()
                 .torch("2.11.0+cu130", "13.0")
                 .dist("nvidia-cublas", "13.1.0.3")
                 .dist("nvidia-cudnn-cu13", "9.19.0.56")
                 .dist("nvidia-cufft", "12.0.0.61")  // CUDA 13's cuFFT: its own version, no major
                 .dist("nvidia-cublas-cu12", "12.8.4.1")
                 .dist("nvidia-cuda-runtime-cu12", "12.8.90")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs(kTorch211Cu130))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::EnvInconsistent);
    EXPECT_EQ(d.verdict.key, "diag.mixed_runtimes_torch");
    EXPECT_EQ(d.verdict.arg("list"),
              "CUDA 12: nvidia-cublas-cu12 12.8.4.1, nvidia-cuda-runtime-cu12 12.8.90; CUDA 13: nvidia-cublas 13.1.0.3, "
              "nvidia-cudnn-cu13 9.19.0.56");
    // The cu12 runtime package is not the one torch loads (another major).
    EXPECT_TRUE(d.runtime_package.empty());
}

TEST(Diagnosis, RuntimePackagesOfAnotherMajor) {
    auto m = test::machine("580.159.04", "13.0", {{"NVIDIA H200", "9.0"}});
    auto s = StackBuilder()
                 .torch("2.7.0+cu128", "12.8")
                 .dist("nvidia-cublas", "13.1.0.3")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::EnvInconsistent);
    EXPECT_EQ(d.verdict.key, "diag.runtime_major_mismatch");
}

TEST(Diagnosis, TwoTorchDistInfos) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .dist("torch", "2.6.0+cu124")
                 .torch("2.7.0+cu128", "12.8")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::EnvInconsistent);
    EXPECT_EQ(d.verdict.key, "diag.duplicate_torch");
    EXPECT_EQ(d.verdict.arg("current"), "torch-2.7.0+cu128.dist-info");
}

TEST(Diagnosis, TorchPinsOnItsCudaLibraries) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .torch("2.7.0+cu128", "12.8",
                        {"nvidia-cudnn-cu12==9.7.1.26; platform_system == \"Linux\"", "triton==3.3.0; platform_system == \"Linux\"",
                         "nvidia-nccl-cu12==2.26.2; platform_system == \"Linux\"", "filelock"})
                 .dist("nvidia-cudnn-cu12", "9.1.0.70")
                 .dist("triton", "3.3.0")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::EnvInconsistent);
    EXPECT_TRUE(test::has_finding(d, "torch-requirement-unmet"));  // cuDNN 9.1 instead of 9.7.1.26
    EXPECT_TRUE(test::has_finding(d, "torch-requirement-missing"));  // NCCL; filelock is not a stack package
    // On Windows the Linux-only pins do not apply.
    auto w = test::run_diagnosis(m, s, {.os = OsKind::Windows});
    EXPECT_FALSE(test::has_finding(w, "torch-requirement-unmet"));
    EXPECT_FALSE(test::has_finding(w, "torch-requirement-missing"));
}

TEST(Diagnosis, PtxJitServesWithAWarning) {
    // compute_90 (ISA 8.4) on an sm_120 GPU, driver 580 (CUDA 13.0 JITs ISA 9.0).
    auto m = test::machine("580.95.05", "13.0", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .torch("2.6.0+cu126", "12.6")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_80 sm_86 sm_90 compute_90@8.5"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::Ok);
    EXPECT_EQ(d.gpus[0].kind, CoverageKind::Jit);
    EXPECT_EQ(d.verdict.key, "diag.verdict.jit");
    EXPECT_TRUE(test::has_finding(d, "jit-only"));
    EXPECT_EQ(d.layers[2].status, LayerStatus::Warning);
}

TEST(Diagnosis, PtxNewerThanTheDriverCompiles) {
    // PTX ISA 9.0 (CUDA 13) on a 570 driver (CUDA 12.8 JITs up to 8.7).
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .torch("2.9.0+cu128", "12.8")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_80 sm_86 sm_90 compute_90@9.0"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::GpuNotServed);
    EXPECT_EQ(d.verdict.key, "diag.gpu_not_served_jit_driver");
    EXPECT_TRUE(d.gpus[0].jit_blocked);
}

TEST(Diagnosis, MinorVersionCompatibilityWarns) {
    // CUDA 12.8 runtime on a 560 driver (CUDA 12.6): runs under the 12.x floor, no PTX JIT.
    auto m = test::machine("560.35.03", "12.6", {{"NVIDIA GeForce RTX 4090", "8.9"}});
    auto s = StackBuilder()
                 .torch("2.7.0+cu128", "12.8")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::Ok);
    EXPECT_EQ(d.runtime->fit, RuntimeFit::MinorCompat);
    EXPECT_TRUE(test::has_finding(d, "runtime-minor-compat"));
    EXPECT_EQ(d.layers[1].status, LayerStatus::Warning);
    EXPECT_EQ(d.gpus[0].kind, CoverageKind::SameMajor);  // sm_86 SASS on an 8.9 GPU
}

TEST(Diagnosis, VendorLibraryWithoutTheArchitecture) {
    // torch itself carries PTX the driver can JIT; cuBLAS of the same stack has no sm_120 code.
    auto m = test::machine("580.95.05", "13.0", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .torch("2.6.0+cu118", "11.8")
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90 compute_90@7.8"))
                 .library("nvidia/cublas/lib/libcublasLt.so.11", "nvidia/cublas", archs("sm_50:40 sm_60:40 sm_70:40 sm_80:40 sm_90:40"))
                 // cuFFT keeps its kernels outside the fatbins: one cubin is no evidence.
                 .library("nvidia/cufft/lib/libcufft.so.10", "nvidia/cufft", archs("sm_75:1"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::GpuNotServed);
    EXPECT_EQ(d.verdict.key, "diag.vendor_not_served");
    EXPECT_EQ(d.verdict.arg("library"), "nvidia/cublas/lib/libcublasLt.so.11");
    ASSERT_EQ(d.gpus[0].gaps.size(), 1u);
    EXPECT_EQ(d.gpus[0].kind, CoverageKind::Jit);  // torch's own: PTX
}

TEST(Diagnosis, VendorLibrariesInTorchLibAreVendor) {
    EXPECT_EQ(library_role("torch", "libcudnn_engines_precompiled.so.9"), LibraryRole::Vendor);
    EXPECT_EQ(library_role("torch", "cublasLt64_12.dll"), LibraryRole::Vendor);
    EXPECT_EQ(library_role("torch", "nvrtc64_120_0.dll"), LibraryRole::Vendor);
    EXPECT_EQ(library_role("torch", "libtorch_cuda.so"), LibraryRole::Framework);
    EXPECT_EQ(library_role("torch", "torch_cuda.dll"), LibraryRole::Framework);
    EXPECT_EQ(library_role("torch", "libcaffe2_nvrtc.so"), LibraryRole::Framework);
    EXPECT_EQ(library_role("torch", "libc10_cuda.so"), LibraryRole::Framework);
    EXPECT_EQ(library_role("nvidia/cublas", "libcublas.so.12"), LibraryRole::Vendor);
    EXPECT_EQ(library_role("xformers", "_C.so"), LibraryRole::Extension);
}

TEST(Diagnosis, ExtensionWithoutTheArchitecture) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .torch("2.7.0+cu128", "12.8")
                 .dist("xformers", "0.0.29.post3", {"torch==2.7.0"})
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"))
                 .library("xformers/_C.so", "xformers", archs("sm_80 sm_86 sm_89 sm_90"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::GpuNotServed);
    EXPECT_EQ(d.verdict.key, "diag.library_not_served");
    EXPECT_EQ(d.gpus[0].kind, CoverageKind::Native);  // torch itself is fine
}

TEST(Diagnosis, TwoGpusOneUnserved) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 3090", "8.6"}, {"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder().torch("2.6.0+cu124", "12.4").library("torch/lib/libtorch_cuda.so", "torch", archs(kTorch26Cu124)).build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::GpuNotServed);
    ASSERT_EQ(d.gpus.size(), 2u);
    EXPECT_TRUE(d.gpus[0].served);
    EXPECT_FALSE(d.gpus[1].served);
    EXPECT_NE(render(d.verdict, Lang::En).find("RTX 5090"), std::string::npos);
    EXPECT_EQ(variant_of(d), "cu128");  // serves both
}

TEST(Diagnosis, RocmBuildOnNvidiaMachine) {
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder().torch("2.5.1+rocm6.2", "").build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::CpuOnlyBuild);
    EXPECT_EQ(d.verdict.key, "diag.cpu_only");  // version.py here has no hip/rocm line
}

TEST(Diagnosis, ExitCodePrecedence) {
    EXPECT_EQ(most_basic({}), ExitCode::Ok);
    EXPECT_EQ(most_basic({ExitCode::EnvInconsistent, ExitCode::GpuNotServed}), ExitCode::GpuNotServed);
    EXPECT_EQ(most_basic({ExitCode::GpuNotServed, ExitCode::DriverTooOld}), ExitCode::DriverTooOld);
    EXPECT_EQ(most_basic({ExitCode::GpuNotServed, ExitCode::CpuOnlyBuild}), ExitCode::CpuOnlyBuild);
    EXPECT_EQ(most_basic({ExitCode::DriverTooOld, ExitCode::NoDriver}), ExitCode::NoDriver);
    EXPECT_EQ(most_basic({ExitCode::NoDriver, ExitCode::NoFramework}), ExitCode::NoFramework);
    EXPECT_EQ(most_basic({ExitCode::Ok, ExitCode::EnvInconsistent}), ExitCode::EnvInconsistent);
    EXPECT_EQ(most_basic({ExitCode::EnvBroken, ExitCode::EnvInconsistent}), ExitCode::EnvBroken);
    EXPECT_EQ(most_basic({ExitCode::EnvBroken, ExitCode::GpuNotServed}), ExitCode::GpuNotServed);
    // Several problems at once: the verdict is the most basic one.
    auto m = test::machine("570.133.07", "12.8", {{"NVIDIA GeForce RTX 5090", "12.0"}});
    auto s = StackBuilder()
                 .torch("2.11.0+cu130", "13.0")
                 .dist("torchvision", "0.21.0", {"torch==2.6.0"})
                 .library("torch/lib/libtorch_cuda.so", "torch", archs("sm_75 sm_80 sm_86 sm_90"))
                 .build();
    auto d = test::run_diagnosis(m, s);
    EXPECT_EQ(d.code, ExitCode::DriverTooOld);
    EXPECT_TRUE(test::has_finding(d, "gpu-not-served"));
    EXPECT_TRUE(test::has_finding(d, "companion-mismatch"));
    EXPECT_EQ(d.findings.front().code, ExitCode::DriverTooOld);
}

TEST(Diagnosis, CommandsAndRanges) {
    EXPECT_EQ(format_command({"envfix", "install", "--python", "/a b/python", "torch==2.7.1"}),
              "envfix install --python '/a b/python' torch==2.7.1");
    EXPECT_EQ(format_command({"envfix", "install", "--env", "C:\\Comfy UI\\python_embeded"}, true),
              "envfix install --env \"C:\\Comfy UI\\python_embeded\"");
    EXPECT_EQ(format_command({"it's"}), "'it'\\''s'");
    using probe::ArchTarget;
    EXPECT_EQ(arch_range({}), "");
    EXPECT_EQ(arch_range({*ArchTarget::parse("sm_90")}), "sm_90");
    EXPECT_EQ(arch_range({*ArchTarget::parse("sm_120"), *ArchTarget::parse("sm_75")}), "sm_75\xE2\x80\x93sm_120");
    EXPECT_EQ(gpu_label({.name = "NVIDIA GeForce RTX 5090", .cc = {12, 0}}), "GeForce RTX 5090 (sm_120)");
}

}  // namespace
