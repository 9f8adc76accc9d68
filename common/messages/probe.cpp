// Messages of the probe area: key, English, Chinese (nullptr = not translated yet).
#include "catalog_index.hpp"

namespace envfix::messages {
namespace {
// A table of sentences, one entry a line or two, as translators read it: laid out by hand.
// clang-format off
const CatalogEntry entries[] = {
    // Failures: the answer `envfix probe` gives when it cannot list the GPUs.
    {"probe.no_driver",
     "no NVIDIA driver found: {library} cannot be loaded ({reason}). Install the NVIDIA driver for your GPU; "
     "envfix does not install drivers.",
     "未找到 NVIDIA 驱动：无法加载 {library}（{reason}）。请为显卡安装 NVIDIA 驱动；envfix 不负责安装驱动。"},
    {"probe.no_libcuda_with_module",
     "the NVIDIA driver {version} is installed ({source}), but its CUDA library cannot be loaded: {library} "
     "({reason}). In a container, start it with GPU access (for example `docker run --gpus all`); otherwise "
     "reinstall the driver so that it includes libcuda.",
     "已安装 NVIDIA 驱动 {version}（来自 {source}），但无法加载它的 CUDA 库：{library}（{reason}）。"
     "如果在容器中运行，请以 GPU 访问方式启动（例如 `docker run --gpus all`）；否则请重新安装包含 libcuda 的驱动。"},
    {"probe.libcuda_override_failed", "cannot load {library}, named by ENVFIX_LIBCUDA: {reason}",
     "无法加载 ENVFIX_LIBCUDA 指定的 {library}：{reason}"},
    {"probe.stub_library",
     "{library} is the CUDA toolkit's stub library, not the driver (CUDA_ERROR_STUB_LIBRARY): it only serves "
     "linking. Remove the toolkit's stubs folder from LD_LIBRARY_PATH so the driver's own libcuda is found.",
     "{library} 是 CUDA 工具包的占位（stub）库，不是驱动（CUDA_ERROR_STUB_LIBRARY），它只用于链接。"
     "请把工具包的 stubs 目录从 LD_LIBRARY_PATH 中移除，让程序找到驱动自带的 libcuda。"},
    {"probe.missing_entry_point",
     "{library} lacks the Driver API function {symbol}: it is not a working NVIDIA driver library, or it is too "
     "old. Reinstall the NVIDIA driver.",
     "{library} 缺少 Driver API 函数 {symbol}：它不是可用的 NVIDIA 驱动库，或者版本太旧。请重新安装 NVIDIA 驱动。"},
    {"probe.call_failed", "{call} failed in {library}: {error}. Reinstall the NVIDIA driver, then reboot.",
     "{library} 中的 {call} 调用失败：{error}。请重新安装 NVIDIA 驱动并重启。"},
    {"probe.no_device",
     "the NVIDIA driver ({library}) is installed but sees no CUDA GPU (CUDA_ERROR_NO_DEVICE). Check that "
     "`nvidia-smi` lists the GPU; in a container, start it with GPU access (for example `docker run --gpus all`).",
     "NVIDIA 驱动（{library}）已安装，但没有检测到可用于 CUDA 的 GPU（CUDA_ERROR_NO_DEVICE）。"
     "请确认 `nvidia-smi` 能列出显卡；如果在容器中运行，请以 GPU 访问方式启动（例如 `docker run --gpus all`）。"},
    {"probe.no_device_maybe_hidden",
     "the NVIDIA driver sees no CUDA GPU, and CUDA_VISIBLE_DEVICES is set to \"{value}\", which may hide them. "
     "Unset it (or list GPUs by index, for example 0) and try again.",
     "NVIDIA 驱动没有检测到可用于 CUDA 的 GPU，而 CUDA_VISIBLE_DEVICES 被设为“{value}”，可能把显卡隐藏了。"
     "请取消该变量（或按编号列出要用的显卡，例如 0）后重试。"},
    {"probe.devices_hidden_all",
     "CUDA_VISIBLE_DEVICES=\"{value}\" hides every GPU from CUDA programs (this machine has {count}). Unset "
     "it, or list the GPUs to use by index (counting from 0) or by UUID (`nvidia-smi -L` shows them).",
     "CUDA_VISIBLE_DEVICES=“{value}”让 CUDA 程序看不到任何显卡（本机共有 {count} 块）。"
     "请取消该变量，或按编号（从 0 开始）或 UUID（`nvidia-smi -L` 可查看）列出要使用的显卡。"},
    {"probe.driver_mismatch",
     "the CUDA driver library {library} (version {library_version}) does not match the NVIDIA kernel module "
     "that is loaded (version {module_version}): CUDA_ERROR_SYSTEM_DRIVER_MISMATCH. The driver was updated "
     "without a reboot, or a container brings its own driver libraries. Reboot; if it persists, reinstall one "
     "driver version.",
     "CUDA 驱动库 {library}（版本 {library_version}）与已加载的 NVIDIA 内核模块（版本 {module_version}）"
     "不一致：CUDA_ERROR_SYSTEM_DRIVER_MISMATCH。通常是更新驱动后没有重启，或容器自带了另一版本的驱动库。"
     "请重启；如果仍然如此，请只保留一个驱动版本重新安装。"},
    {"probe.compat_not_supported",
     "a CUDA forward-compatibility driver library is loaded ({library}), but this GPU does not support "
     "forward compatibility (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE; only data-center GPUs do). Remove the "
     "cuda-compat package, or its folder from LD_LIBRARY_PATH, so the system driver is used.",
     "加载了 CUDA 前向兼容驱动库（{library}），但这块显卡不支持前向兼容"
     "（CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE；只有数据中心显卡支持）。"
     "请卸载 cuda-compat 包，或把它的目录从 LD_LIBRARY_PATH 中移除，让系统驱动生效。"},
    {"probe.system_not_ready",
     "the GPUs are not ready ({error}): on NVSwitch systems (HGX, DGX) start the NVIDIA Fabric Manager "
     "(`systemctl start nvidia-fabricmanager`) and try again.",
     "GPU 尚未就绪（{error}）：在 NVSwitch 系统（HGX、DGX）上请先启动 NVIDIA Fabric Manager"
     "（`systemctl start nvidia-fabricmanager`）再重试。"},
    {"probe.init_failed",
     "the CUDA driver ({library}) failed to start: cuInit returned {error}. Check `nvidia-smi` and the kernel log "
     "(`dmesg`) for NVIDIA errors; a reboot often helps.",
     "CUDA 驱动（{library}）启动失败：cuInit 返回 {error}。请查看 `nvidia-smi` 和内核日志（`dmesg`）中的 NVIDIA "
     "错误；重启通常能解决。"},
    {"probe.device_query_failed",
     "{call} failed for GPU {index}: {error}. The GPU may have fallen off the bus; check `nvidia-smi` and the "
     "kernel log (`dmesg`) for Xid errors.",
     "查询 GPU {index} 时 {call} 失败：{error}。显卡可能已从总线掉线；请查看 `nvidia-smi` 和内核日志（`dmesg`）"
     "中的 Xid 错误。"},
    // Warnings: the probe succeeded but something deserves a word.
    {"probe.hidden_some", "CUDA_VISIBLE_DEVICES=\"{value}\" hides {hidden} of {count} GPUs from CUDA programs: {names}",
     "CUDA_VISIBLE_DEVICES=“{value}”让 CUDA 程序看不到 {count} 块显卡中的 {hidden} 块：{names}"},
    {"probe.cuda_sees_fewer",
     "the driver lists {count} GPUs but CUDA programs can use only {visible}; not usable: {names}. They may be "
     "too old for this driver, or in a bad state (see `nvidia-smi`).",
     "驱动列出了 {count} 块显卡，但 CUDA 程序只能使用 {visible} 块；不可用的是：{names}。"
     "它们可能对这个驱动来说太旧，或处于异常状态（见 `nvidia-smi`）。"},
    {"probe.no_version_string",
     "the driver's version string could not be read (NVML, /sys, /proc, nvidia-smi); only the CUDA version it "
     "runs is known",
     "无法读取驱动的版本号（NVML、/sys、/proc、nvidia-smi 均不可用）；只知道它支持的 CUDA 版本"},
    // Output of `envfix probe`.
    {"probe.driver_line", "NVIDIA driver {version} (from {source}), runs CUDA {cuda} and older",
     "NVIDIA 驱动 {version}（来自 {source}），支持 CUDA {cuda} 及更早版本"},
    {"probe.driver_line_no_version", "NVIDIA driver (version unknown), runs CUDA {cuda} and older",
     "NVIDIA 驱动（版本未知），支持 CUDA {cuda} 及更早版本"},
    {"probe.driver_found_line", "NVIDIA driver {version} (from {source})", "NVIDIA 驱动 {version}（来自 {source}）"},
    {"probe.library_line", "driver library: {library}", "驱动库：{library}"},
    {"probe.col.gpu", "GPU", "GPU"},
    {"probe.col.name", "name", "名称"},
    {"probe.col.cc", "compute capability", "计算能力"},
    {"probe.col.sms", "SMs", "SM 数"},
    {"probe.col.memory", "memory", "显存"},
    {"probe.col.bus", "PCI bus", "PCI 总线"},
    {"probe.col.uuid", "UUID", "UUID"},
    {"probe.col.driver_model", "driver model", "驱动模式"},
    // Debug notes (-v).
    {"probe.debug.open_failed", "cannot load {library}: {reason}", "无法加载 {library}：{reason}"},
    {"probe.debug.cached", "GPUs and driver as probed earlier in this boot ({file}); `envfix probe` asks the driver again",
     "使用本次开机期间先前探测到的 GPU 和驱动信息（{file}）；`envfix probe` 会重新询问驱动"},
    {"probe.debug.loaded", "CUDA driver library: {library}", "CUDA 驱动库：{library}"},
    {"probe.debug.nvml", "NVML: {detail}", "NVML：{detail}"},
    {"probe.debug.version_source_failed", "driver version from {source}: {reason}", "从 {source} 读取驱动版本：{reason}"},
};
// clang-format on
}  // namespace
const Catalog kProbe{entries};
}  // namespace envfix::messages
