// Messages of the verify area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
// A table of sentences, one entry a line or two, as translators read it: laid out by hand.
// clang-format off
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
    {"verify.jit_log", "JIT log of GPU {index}:\n{log}", "GPU {index} 的 JIT 日志：\n{log}"},
    {"verify.result.passed", "passed", "通过"},
    {"verify.result.failed", "FAILED", "失败"},
    {"verify.col.kernel", "kernel", "内核"},
    {"verify.col.jit", "JIT", "JIT 编译"},
    {"verify.col.time", "time", "耗时"},
    {"verify.col.bandwidth", "bandwidth", "带宽"},
    {"verify.col.result", "result", "结果"},
    {"verify.result.wrong", "WRONG", "结果错误"},
    {"verify.result.crashed", "CRASHED", "崩溃"},
    {"verify.result.skipped", "skipped", "跳过"},
    {"verify.col.op", "operation", "运算"},
    {"verify.col.first", "first call", "首次调用"},
    {"verify.col.difference", "difference", "误差"},

    // The framework level (exit code verify-framework-failed unless said otherwise).
    {"verify.framework.header", "Framework check in {python} (torch {torch}, CUDA {cuda}, CUDA_LAUNCH_BLOCKING=1):",
     "在 {python} 中进行框架级检查（torch {torch}，CUDA {cuda}，CUDA_LAUNCH_BLOCKING=1）："},
    {"verify.framework.header_no_torch", "Framework check in {python}:", "在 {python} 中进行框架级检查："},
    {"verify.framework.passed", "framework check passed: torch {torch} ran {ops} operations on {count} GPU(s), each matching the CPU",
     "框架级检查通过：torch {torch} 在 {count} 块 GPU 上运行了 {ops} 项运算，结果均与 CPU 一致"},
    {"verify.framework.modules_passed", "framework check passed: the self-test of {modules} ran", "框架级检查通过：{modules} 的自检已运行成功"},
    {"verify.framework.start_failed", "{python} cannot start for the framework check: {reason}", "{python} 无法启动，不能进行框架级检查：{reason}"},
    {"verify.framework.op_failed", "{op} failed on {gpu}: {error}", "{op} 在 {gpu} 上失败：{error}"},
    {"verify.framework.op_wrong",
     "{op} on {gpu} computed wrong results: its largest difference from the CPU is {difference} of the result's scale "
     "(tolerance {tolerance}). The GPU, its driver or this build's kernels are faulty.",
     "{op} 在 {gpu} 上算出了错误结果：与 CPU 结果的最大偏差为结果量级的 {difference}（容差 {tolerance}）。"
     "显卡、驱动或该版本的内核有问题。"},
    {"verify.framework.op_crashed", "the interpreter died during {op} on {gpu}: {how}", "在 {gpu} 上执行 {op} 时解释器崩溃：{how}"},
    {"verify.framework.module_failed", "the self-test of {module} failed: {error}", "{module} 的自检失败：{error}"},
    {"verify.framework.companion_broken", "{name} cannot be imported next to this torch: {error}",
     "{name} 无法与当前的 torch 一起导入：{error}"},
    {"verify.framework.timed_out", "the framework check in {python} did not finish in time and was stopped",
     "{python} 中的框架级检查未能按时完成，已被终止"},
    {"verify.framework.died", "the framework check in {python} died before it finished: {how}",
     "{python} 中的框架级检查在完成前崩溃：{how}"},
    {"verify.framework.no_torch",
     "torch is not installed in {env}, so there is no framework to check (use --driver-only, or name a package's "
     "self-test with --check-module)",
     "{env} 中没有安装 torch，没有可检查的框架（可使用 --driver-only，或用 --check-module 指定某个包的自检）"},
    {"verify.framework.import_failed", "import torch fails in {python}: {error}", "在 {python} 中 import torch 失败：{error}"},
    {"verify.framework.unavailable", "torch {torch} cannot use the GPU (torch.cuda.is_available() is False): {reason}",
     "torch {torch} 无法使用显卡（torch.cuda.is_available() 为 False）：{reason}"},
    {"verify.framework.no_devices", "torch {torch} sees no GPU although CUDA is available",
     "虽然 CUDA 可用，但 torch {torch} 没有看到任何显卡"},

    // What ties a framework failure to the build and to doctor's diagnosis.
    {"verify.explain.arch_list", "{torch} was built for {archs}: none of them runs on {gpu}",
     "{torch} 只为 {archs} 编译：其中没有能在 {gpu} 上运行的"},
    {"verify.explain.confirms", "doctor predicts this from the installed files: {verdict}", "doctor 根据已安装的文件预判到了这一点：{verdict}"},
    {"verify.explain.kernel_not_predicted",
     "doctor finds code for this GPU in every library it reads, so the missing kernel is in code it does not read "
     "(compiled at run time, or loaded from outside site-packages)",
     "doctor 在它读取的每个库中都找到了适用于这块显卡的代码，所以缺失的内核位于它不读取的代码中"
     "（运行时编译的，或从 site-packages 之外加载的）"},
    {"verify.explain.nothing_predicted",
     "doctor finds nothing wrong in the installed files (architectures, driver, versions), so the cause lies elsewhere",
     "doctor 在已安装的文件中没有发现问题（架构、驱动、版本），原因在别处"},
    {"verify.explain.diagnosis", "doctor's diagnosis of the installed files: {verdict}", "doctor 对已安装文件的诊断：{verdict}"},
    {"verify.explain.fix", "Fix: {command}", "修复：{command}"},

    // Verification after `envfix install`.
    {"verify.install.running", "verifying {env}: envfix's kernels through the driver, then the framework's GPU operations",
     "正在验证 {env}：先通过驱动运行 envfix 的内核，再运行框架的 GPU 运算"},
    {"verify.skipped.no_framework", "not verified: no torch in {env} (name a package's self-test with --check-module)",
     "未验证：{env} 中没有 torch（可用 --check-module 指定某个包的自检）"},
    {"verify.skipped.no_gpu", "not verified: no GPU can be used here ({reason})", "未验证：本机没有可用的显卡（{reason}）"},
    {"verify.skipped.nothing_changed", "not verified: nothing changed", "未验证：没有任何改动"},
    {"verify.install.before", "checking the framework in {env} before the change, so that only a change that breaks it is undone",
     "先检查 {env} 中框架在更改前的状态，以便只撤销真正破坏它的更改"},
    {"verify.install.failed_before",
     "the framework already failed before this install ({error}), so the change is kept: undoing it would not make it work. "
     "`envfix doctor{target}` says what is wrong; --no-verify skips this check",
     "本次安装之前框架就已无法运行（{error}），因此保留此次更改：撤销它也不能让框架恢复正常。"
     "运行 `envfix doctor{target}` 查看原因；加 --no-verify 可跳过此检查"},
    {"verify.install.verified", "verified: {summary}", "已验证：{summary}"},
    {"verify.install.rolled_back",
     "the framework check failed after the install, so it was undone: {env} is as it was before ({error})",
     "安装后框架级检查失败，因此已撤销安装：{env} 已恢复原状（{error}）"},
    {"verify.revert_reason", "undoing it after a failed verification", "验证失败后撤销"},
    {"verify.driver_only_target",
     "--driver-only checks the driver and the GPUs only: it takes no environment and no --check-module",
     "--driver-only 只检查驱动和显卡：不接受目标环境，也不接受 --check-module"},
    {"verify.debug.jit", "JIT info log of GPU {index}: {log}", "GPU {index} 的 JIT 信息日志：{log}"},
};
// clang-format on
}  // namespace
const Catalog kVerify{entries};
}  // namespace envfix::messages
