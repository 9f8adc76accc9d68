# A fake torch for envfix's tests: see tests/verify/fake_torch/README.md.
import json as _json
import os as _os
import sys as _sys

with open(_os.path.join(_os.path.dirname(__file__), "_fake.json")) as _f:
    _CONF = _json.load(_f)
_MODE = _CONF.get("mode", "ok")

if _MODE == "import_error":
    raise ImportError("libcudart.so.12: cannot open shared object file: No such file or directory")

__version__ = _CONF.get("version", "2.7.0+cu128")

# torch's own texts (c10/cuda/CUDAException.cpp appends the hints after the error).
NO_KERNEL_IMAGE = ("CUDA error: no kernel image is available for execution on the device\n"
                   "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
                   "below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
                   "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
DRIVER_TOO_OLD = ("The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver "
                  "by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx "
                  "Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with "
                  "your version of the CUDA driver.")


class _Version:
    cuda = _CONF.get("cuda", "12.8")


version = _Version()


class dtype:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32")
float16 = dtype("float16")
bfloat16 = dtype("bfloat16")
int64 = dtype("int64")


class device:
    def __init__(self, type, index=None):
        self.type = type
        self.index = index

    def __repr__(self):
        return "%s:%s" % (self.type, self.index) if self.index is not None else self.type


_cpu = device("cpu")


def _gpu_op(name):
    # What a kernel launch does under each mode.
    if _MODE == "no_kernel_image" and _CONF.get("fail_op") in (None, name):
        raise RuntimeError(NO_KERNEL_IMAGE)
    if _MODE == "crash":
        _sys.stdout.flush()
        _sys.stderr.write("Fatal Python error: Segmentation fault\n")
        _sys.stderr.flush()
        import signal
        _os.kill(_os.getpid(), signal.SIGSEGV)
    if _MODE == "hang":
        import time
        time.sleep(3600)


class Tensor:
    # An expression and where it lives; "zero" marks a difference of equal expressions.
    def __init__(self, expr, shape, dev=_cpu, dt=float32, zero=False):
        self.expr, self.shape, self.device, self.dtype, self.zero = expr, tuple(shape), dev, dt, zero

    def _op(self, name, other=None, shape=None):
        dev = self.device
        if isinstance(other, Tensor) and other.device.type == "cuda":
            dev = other.device
        expr = (name, self.expr, other.expr if isinstance(other, Tensor) else other)
        if dev.type == "cuda":
            _gpu_op(name)
            if _MODE == "wrong":
                expr = ("garbage", expr)
        return Tensor(expr, shape if shape is not None else self.shape, dev, self.dtype)

    def to(self, target):
        if isinstance(target, dtype):
            return Tensor(self.expr, self.shape, self.device, target)
        return Tensor(self.expr, self.shape, target, self.dtype)

    def float(self):
        return Tensor(self.expr, self.shape, self.device, float32)

    def cpu(self):
        return Tensor(self.expr, self.shape, _cpu, self.dtype, self.zero)

    def __matmul__(self, other):
        return self._op("matmul", other, self.shape[:-1] + other.shape[-1:])

    def __mul__(self, other):
        return self._op("mul", other)

    def __add__(self, other):
        return self._op("add", other)

    def __sub__(self, other):
        if isinstance(other, Tensor) and other.expr == self.expr:
            return Tensor(("zero",), self.shape, self.device, self.dtype, zero=True)
        return self._op("sub", other)

    def transpose(self, a, b):
        s = list(self.shape)
        s[a], s[b] = s[b], s[a]
        return Tensor(("transpose", self.expr, a, b), s, self.device, self.dtype)

    def abs(self):
        return Tensor(("abs", self.expr), self.shape, self.device, self.dtype, self.zero)

    def max(self):
        return Tensor(("max", self.expr), (), self.device, self.dtype, self.zero)

    def all(self):
        return Tensor(("all", self.expr), (), self.device, self.dtype, self.zero)

    def __eq__(self, other):
        return Tensor(("eq", self.expr, getattr(other, "expr", other)), self.shape, self.device, self.dtype)

    def __bool__(self):
        return True

    def item(self):
        return 0.0 if self.zero else 1.0


class Generator:
    def __init__(self):
        self.n = 0

    def manual_seed(self, seed):
        self.n = seed * 1000


def _random(kind, shape, generator):
    generator.n += 1
    return Tensor((kind, generator.n), shape)


def randn(*shape, generator):
    return _random("randn", shape, generator)


def rand(*shape, generator):
    return _random("rand", shape, generator)


def softmax(x, dim):
    return x._op("softmax", dim)


def cat(tensors, dim):
    return tensors[0]._op("cat", tensors[1])


from . import backends, cuda, nn  # noqa: E402
