# envfix's framework check (docs/verify.md), run by envfix in the target interpreter:
#
#   python -B -c <this file> [--module NAME[:FUNCTION]]...   (CUDA_LAUNCH_BLOCKING=1)
#
# For every GPU torch sees: its name and capability as torch sees them, then the operations an
# image model needs (an elementwise kernel, matmul in fp32 and in fp16/bf16 where the GPU has
# them, conv2d, scaled-dot-product attention, layer norm; torchvision's nms and xformers'
# attention when they are installed), each compared with the same computation on the CPU.
# Then the self-test of each --module. Reports one JSON object per line, prefixed
# "ENVFIX_CHECK " and flushed at once, so envfix keeps every result up to a crash, a kill or a
# timeout: "op_begin" without its "op" names the operation that took the interpreter down.
# Writes nothing to disk (-B: no bytecode). Python 3.6+ syntax: it must at least report on
# any interpreter envfix may target.
import importlib
import json
import os
import sys
import time
import traceback
import warnings

MARK = "ENVFIX_CHECK "
SEED = 20240607


def emit(event, **fields):
    fields["event"] = event
    sys.stdout.write(MARK + json.dumps(fields, default=str) + "\n")
    sys.stdout.flush()


def error_text(e):
    # The exception as Python prints its last line: "RuntimeError: CUDA error: no kernel image ...".
    name = type(e).__name__
    text = str(e).strip()
    return name + ": " + text if text else name


def where(e):
    # The innermost frame, for errors raised inside a package's own code.
    tb = traceback.extract_tb(e.__traceback__)
    if not tb:
        return None
    f = tb[-1]
    return "%s:%d in %s" % (f[0], f[1], f[2])


class Check:
    def __init__(self, torch):
        self.torch = torch
        self.gen = torch.Generator()
        self.gen.manual_seed(SEED)

    def randn(self, *shape):
        return self.torch.randn(*shape, generator=self.gen)

    def rel_error(self, got, ref):
        # Largest difference from the CPU's result, relative to the result's largest magnitude.
        g = got.float().cpu()
        r = ref.float()
        scale = float(r.abs().max().item()) or 1.0
        return float((g - r).abs().max().item()) / scale

    def sync(self, device):
        self.torch.cuda.synchronize(device)

    def timed(self, device, fn):
        # First call (lazy module loading, library handles, PTX JIT), then the best of three.
        self.sync(device)
        t0 = time.perf_counter()
        out = fn()
        self.sync(device)
        first = (time.perf_counter() - t0) * 1000.0
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            self.sync(device)
            ms = (time.perf_counter() - t0) * 1000.0
            best = ms if best is None or ms < best else best
        return out, first, best


def attention_ref(torch, q, k, v):
    # softmax(q k^T / sqrt(d)) v in fp32 on the CPU; q, k, v are (batch, heads, tokens, dim).
    q, k, v = q.float(), k.float(), v.float()
    scale = 1.0 / (q.shape[-1] ** 0.5)
    return torch.softmax((q @ k.transpose(-2, -1)) * scale, dim=-1) @ v


def op_plan(torch, cap, companions):
    # (op, dtype, function(check, device, dtype) -> relative error, tolerance). Tolerances allow
    # TF32 (cuDNN's default for fp32 convolutions) and half-precision rounding; a kernel that
    # computes garbage is off by far more.
    f32 = torch.float32
    f16 = getattr(torch, "float16", None)
    bf16 = getattr(torch, "bfloat16", None)
    has_f16 = f16 is not None and tuple(cap) >= (5, 3)
    has_bf16 = bf16 is not None and tuple(cap) >= (8, 0)
    half = f16 if has_f16 else f32
    F = importlib.import_module("torch.nn.functional")

    def elementwise(c, dev, dt):
        x = c.randn(1 << 20)
        out, first, best = c.timed(dev, lambda: x.to(dev) * 2.0 + 1.0)
        return c.rel_error(out, x * 2.0 + 1.0), first, best

    def matmul(c, dev, dt):
        a = c.randn(1024, 1024).to(dt)
        b = c.randn(1024, 1024).to(dt)
        ref = a.float() @ b.float()
        ag, bg = a.to(dev), b.to(dev)
        out, first, best = c.timed(dev, lambda: ag @ bg)
        return c.rel_error(out, ref), first, best

    def conv2d(c, dev, dt):
        x = c.randn(4, 32, 32, 32)
        w = c.randn(64, 32, 3, 3)
        ref = F.conv2d(x, w, padding=1)
        xg, wg = x.to(dev), w.to(dev)
        out, first, best = c.timed(dev, lambda: F.conv2d(xg, wg, padding=1))
        return c.rel_error(out, ref), first, best

    def sdpa(c, dev, dt):
        q, k, v = (c.randn(2, 8, 256, 64).to(dt) for _ in range(3))
        ref = attention_ref(torch, q, k, v)
        qg, kg, vg = q.to(dev), k.to(dev), v.to(dev)
        out, first, best = c.timed(dev, lambda: F.scaled_dot_product_attention(qg, kg, vg))
        return c.rel_error(out, ref), first, best

    def layer_norm(c, dev, dt):
        x = c.randn(64, 1024)
        w = c.randn(1024)
        b = c.randn(1024)
        ref = F.layer_norm(x, (1024,), w, b)
        xg, wg, bg = x.to(dev), w.to(dev), b.to(dev)
        out, first, best = c.timed(dev, lambda: F.layer_norm(xg, (1024,), wg, bg))
        return c.rel_error(out, ref), first, best

    def nms(c, dev, dt):
        ops = importlib.import_module("torchvision.ops")
        xy = torch.rand(300, 2, generator=c.gen) * 100.0
        wh = torch.rand(300, 2, generator=c.gen) * 30.0 + 1.0
        boxes = torch.cat([xy, xy + wh], dim=1)
        scores = torch.rand(300, generator=c.gen)
        ref = ops.nms(boxes, scores, 0.5)
        bg, sg = boxes.to(dev), scores.to(dev)
        out, first, best = c.timed(dev, lambda: ops.nms(bg, sg, 0.5))
        got = out.cpu()
        # Kept boxes are indices: any difference is a wrong result.
        same = list(got.shape) == list(ref.shape) and bool((got == ref).all())
        return (0.0 if same else 1.0), first, best

    def xformers_attention(c, dev, dt):
        xops = importlib.import_module("xformers.ops")
        # xformers takes (batch, tokens, heads, dim).
        q, k, v = (c.randn(2, 256, 8, 64).to(dt) for _ in range(3))
        ref = attention_ref(torch, q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)).transpose(1, 2)
        qg, kg, vg = q.to(dev), k.to(dev), v.to(dev)
        out, first, best = c.timed(dev, lambda: xops.memory_efficient_attention(qg, kg, vg))
        return c.rel_error(out, ref), first, best

    plan = [("elementwise", f32, elementwise, 1e-5), ("matmul", f32, matmul, 1e-2)]
    if has_f16:
        plan.append(("matmul", f16, matmul, 2e-2))
    if has_bf16:
        plan.append(("matmul", bf16, matmul, 5e-2))
    plan.append(("conv2d", f32, conv2d, 1e-2))
    if hasattr(F, "scaled_dot_product_attention"):
        plan.append(("sdpa", half, sdpa, 2e-2))
    else:
        plan.append(("sdpa", None, "torch %s has no scaled_dot_product_attention (added in 2.0)" % torch.__version__, 0))
    plan.append(("layer_norm", f32, layer_norm, 1e-3))
    if companions.get("torchvision"):
        plan.append(("nms", f32, nms, 0.0))
    if companions.get("xformers"):
        plan.append(("xformers_attention", half, xformers_attention, 2e-2))
    return plan


def dtype_name(dt):
    return str(dt).replace("torch.", "") if dt is not None else None


def run_op(check, device, index, op, dt, fn, tol):
    name = dtype_name(dt)
    if isinstance(fn, str):
        emit("op", device=index, op=op, dtype=name, status="skipped", reason=fn)
        return
    emit("op_begin", device=index, op=op, dtype=name)
    t0 = time.perf_counter()
    try:
        err, first, best = fn(check, device, dt)
    except Exception as e:
        emit("op", device=index, op=op, dtype=name, status="failed", error=error_text(e),
             ms=(time.perf_counter() - t0) * 1000.0)
        return
    ok = err == err and err <= tol  # NaN fails
    emit("op", device=index, op=op, dtype=name, status="passed" if ok else "wrong", max_error=err if err == err else None,
         tolerance=tol, first_ms=first, ms=best)


def companion(name, module):
    try:
        m = importlib.import_module(module)
        importlib.import_module(module + ".ops")
    except ImportError as e:
        if getattr(e, "name", None) in (name, module):
            return None  # not installed
        emit("companion", name=name, version=None, error=error_text(e))
        return None
    except Exception as e:
        emit("companion", name=name, version=None, error=error_text(e))
        return None
    version = getattr(m, "__version__", "?")
    emit("companion", name=name, version=str(version), error=None)
    return version


def check_torch():
    try:
        import torch
    except BaseException as e:  # ImportError, OSError for a missing library, even SystemExit
        missing = isinstance(e, ImportError) and getattr(e, "name", None) == "torch"
        emit("import", ok=False, missing=missing, error=error_text(e))
        return
    cudnn = None
    try:
        cudnn = torch.backends.cudnn.version()
    except Exception:
        pass
    reason = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = bool(torch.cuda.is_available())
    if not available:
        # torch's own reason: the error of its lazy initialisation, else the warning it gave.
        try:
            torch.cuda.init()
        except BaseException as e:
            reason = error_text(e)
        if reason is None and caught:
            reason = str(caught[-1].message)
    count = torch.cuda.device_count() if available else 0
    arch_list = []
    if available:
        try:
            arch_list = list(torch.cuda.get_arch_list())
        except Exception:
            pass
    emit("torch", version=str(torch.__version__), cuda=getattr(torch.version, "cuda", None), cudnn=cudnn,
         available=available, reason=reason, device_count=count, arch_list=arch_list)
    if not available:
        return
    companions = {"torchvision": companion("torchvision", "torchvision"), "xformers": companion("xformers", "xformers")}
    check = Check(torch)
    for index in range(count):
        device = torch.device("cuda", index)
        try:
            cap = torch.cuda.get_device_capability(index)
            emit("device", index=index, name=torch.cuda.get_device_name(index), capability="%d.%d" % tuple(cap),
                 memory=getattr(torch.cuda.get_device_properties(index), "total_memory", None))
        except Exception as e:
            emit("op", device=index, op="device", dtype=None, status="failed", error=error_text(e))
            continue
        for op, dt, fn, tol in op_plan(torch, cap, companions):
            run_op(check, device, index, op, dt, fn, tol)


def check_module(spec):
    name, _, func = spec.partition(":")
    func = func or "self_test"
    emit("op_begin", device=None, op="module", module=spec)
    t0 = time.perf_counter()
    try:
        result = getattr(importlib.import_module(name), func)()
    except Exception as e:
        emit("op", device=None, op="module", module=spec, status="failed", error=error_text(e), at=where(e),
             ms=(time.perf_counter() - t0) * 1000.0)
        return
    ms = (time.perf_counter() - t0) * 1000.0
    if result is False:
        emit("op", device=None, op="module", module=spec, status="failed", error="%s.%s() returned False" % (name, func), ms=ms)
        return
    detail = None if result is None or result is True else str(result)[:500]
    emit("op", device=None, op="module", module=spec, status="passed", detail=detail, ms=ms)


def main(argv):
    modules = []
    i = 0
    while i < len(argv):
        if argv[i] == "--module" and i + 1 < len(argv):
            modules.append(argv[i + 1])
            i += 2
        else:
            i += 1
    emit("start", python=sys.version.split()[0], executable=sys.executable, modules=modules,
         launch_blocking=os.environ.get("CUDA_LAUNCH_BLOCKING"))
    check_torch()
    for spec in modules:
        check_module(spec)
    emit("done")


if __name__ == "__main__":
    main(sys.argv[1:])
