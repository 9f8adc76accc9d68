// Messages of the verify area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
const CatalogEntry entries[] = {
    // Driver check failures, one GPU each (exit code verify-driver-failed).
    {"verify.no_kernel_image",
     "no kernel image is available for GPU {index} ({name}, {sm}): the driver found no code it can run on this "
     "GPU (CUDA_ERROR_NO_BINARY_FOR_GPU), although envfix's check is PTX that any GPU from Maxwell (sm_50) on "
     "can compile. This GPU is older than that, or this driver does not support it.",
     "GPU {index}（{name}，{sm}）上没有可执行的内核映像：驱动找不到能在这块显卡上运行的代码"
     "（CUDA_ERROR_NO_BINARY_FOR_GPU）。envfix 的检查内核是 PTX，Maxwell（sm_50）及以后的显卡都能编译，"
     "说明这块显卡比它更老，或者当前驱动不支持它。"},
    {"verify.ptx_too_new",
     "the driver (CUDA {cuda}) is too old to compile envfix's check kernel for GPU {index} ({name}): PTX ISA 7.0 "
     "needs CUDA 11.0 (CUDA_ERROR_UNSUPPORTED_PTX_VERSION). Update the NVIDIA driver to release 450 or newer.",
     "驱动（CUDA {cuda}）太旧，无法为 GPU {index}（{name}）编译 envfix 的检查内核：PTX ISA 7.0 需要 CUDA 11.0"
     "（CUDA_ERROR_UNSUPPORTED_PTX_VERSION）。请把 NVIDIA 驱动升级到 450 或更新版本。"},
    {"verify.invalid_ptx",
     "the driver's PTX compiler failed on envfix's check kernel for GPU {index} ({name}) "
     "(CUDA_ERROR_INVALID_PTX); the kernel is known to be valid, so the driver is at fault. See the JIT log; "
     "reinstall the NVIDIA driver.",
     "驱动的 PTX 编译器在为 GPU {index}（{name}）编译 envfix 检查内核时失败（CUDA_ERROR_INVALID_PTX）；"
     "该内核本身是有效的，问题出在驱动。请查看 JIT 日志，并重新安装 NVIDIA 驱动。"},
    {"verify.jit_missing",
     "the driver's PTX compiler library (libnvidia-ptxjitcompiler) is missing, so no kernel can be compiled for "
     "GPU {index} ({name}) (CUDA_ERROR_JIT_COMPILER_NOT_FOUND): the driver install is incomplete; reinstall it.",
     "缺少驱动的 PTX 编译器库（libnvidia-ptxjitcompiler），无法为 GPU {index}（{name}）编译任何内核"
     "（CUDA_ERROR_JIT_COMPILER_NOT_FOUND）：驱动安装不完整，请重新安装。"},
    {"verify.jit_disabled",
     "PTX compilation is disabled, so envfix's check kernel cannot run on GPU {index} ({name}) "
     "(CUDA_ERROR_JIT_COMPILATION_DISABLED), for example by CUDA_DISABLE_PTX_JIT=1. Unset it and try again.",
     "PTX 编译被禁用，envfix 的检查内核无法在 GPU {index}（{name}）上运行"
     "（CUDA_ERROR_JIT_COMPILATION_DISABLED），例如设置了 CUDA_DISABLE_PTX_JIT=1。请取消后重试。"},
    {"verify.out_of_memory",
     "GPU {index} ({name}) has not enough free memory for the check ({need}): CUDA_ERROR_OUT_OF_MEMORY. Close "
     "programs that use the GPU (see `nvidia-smi`) and try again.",
     "GPU {index}（{name}）的空闲显存不足以运行检查（需要 {need}）：CUDA_ERROR_OUT_OF_MEMORY。"
     "请关闭正在使用显卡的程序（见 `nvidia-smi`）后重试。"},
    {"verify.ecc_error",
     "GPU {index} ({name}) reported an uncorrectable ECC memory error (CUDA_ERROR_ECC_UNCORRECTABLE): its memory "
     "is failing or the GPU needs a reset. Check `nvidia-smi -q -d ECC` and the kernel log (`dmesg`) for Xid "
     "errors.",
     "GPU {index}（{name}）报告了不可纠正的 ECC 显存错误（CUDA_ERROR_ECC_UNCORRECTABLE）：显存可能损坏，"
     "或显卡需要重置。请查看 `nvidia-smi -q -d ECC` 和内核日志（`dmesg`）中的 Xid 错误。"},
    {"verify.kernel_crashed",
     "envfix's check kernel crashed on GPU {index} ({name}) in {call}: {error}. The kernel is known to be "
     "correct, so this points at the GPU or the driver: look for Xid errors in the kernel log (`dmesg`), then "
     "reboot.",
     "envfix 的检查内核在 GPU {index}（{name}）上崩溃（{call}）：{error}。该内核本身是正确的，"
     "问题在显卡或驱动：请查看内核日志（`dmesg`）中的 Xid 错误，然后重启。"},
    {"verify.launch_timeout",
     "the check kernel ran too long on GPU {index} ({name}) and the display watchdog stopped it "
     "(CUDA_ERROR_LAUNCH_TIMEOUT). Close programs that load the GPU and try again.",
     "检查内核在 GPU {index}（{name}）上运行过久，被显示看门狗终止（CUDA_ERROR_LAUNCH_TIMEOUT）。"
     "请关闭占用显卡的程序后重试。"},
    {"verify.device_unavailable",
     "GPU {index} ({name}) is busy or in exclusive-process mode and another program holds it "
     "(CUDA_ERROR_DEVICE_UNAVAILABLE). See `nvidia-smi`.",
     "GPU {index}（{name}）正忙，或处于独占进程模式且被其他程序占用（CUDA_ERROR_DEVICE_UNAVAILABLE）。"
     "请查看 `nvidia-smi`。"},
    {"verify.call_failed", "{call} failed on GPU {index} ({name}): {error}",
     "GPU {index}（{name}）上的 {call} 调用失败：{error}"},
    {"verify.wrong_results",
     "GPU {index} ({name}) computed wrong results in {kernel}: {count} of {total} values differ (first at {at}: "
     "expected {expected}, got {got}). The GPU or its driver is faulty; check the kernel log (`dmesg`) for Xid "
     "errors.",
     "GPU {index}（{name}）在 {kernel} 中算错了：{total} 个结果中有 {count} 个不对（第一个在 {at}："
     "应为 {expected}，实际为 {got}）。显卡或驱动有故障；请查看内核日志（`dmesg`）中的 Xid 错误。"},
    // Output of `envfix verify`.
    {"verify.driver_passed", "driver check passed on {count} GPU(s)", "驱动级检查在 {count} 块 GPU 上通过"},
    {"verify.driver_failed", "driver check failed on {failed} of {count} GPU(s)",
     "驱动级检查在 {count} 块 GPU 中的 {failed} 块上失败"},
    {"verify.framework_needs_target",
     "framework check not run: it needs a target environment (a Python interpreter with the framework "
     "installed)",
     "未运行框架级检查：它需要一个目标环境（装有框架的 Python 解释器）"},
    {"verify.jit_log", "JIT log of GPU {index}:\n{log}", "GPU {index} 的 JIT 日志：\n{log}"},
    {"verify.result.passed", "passed", "通过"},
    {"verify.result.failed", "FAILED", "失败"},
    {"verify.col.kernel", "kernel", "内核"},
    {"verify.col.jit", "JIT", "JIT 编译"},
    {"verify.col.time", "time", "耗时"},
    {"verify.col.bandwidth", "bandwidth", "带宽"},
    {"verify.col.result", "result", "结果"},
    {"verify.debug.jit", "JIT info log of GPU {index}: {log}", "GPU {index} 的 JIT 信息日志：{log}"},
};
}  // namespace
const Catalog kVerify{entries};
}  // namespace envfix::messages
