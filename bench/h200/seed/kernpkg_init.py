"""kernpkg: the seed's error for real (bench/h200/seed-repro.sh). Its GPU code lies in
_kernpkg_kern.so directly in site-packages (where doctor reads extension modules), loaded with
ctypes; self_test() runs its kernel and raises torch's words when the GPU cannot run it."""
import ctypes
import os

__version__ = "@VERSION@"
ARCHS = "@ARCHS@"  # what the build compiled, as nvcc's -gencode list said

_lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_kernpkg_kern.so"))
_lib.kernpkg_run.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
_lib.kernpkg_run.restype = ctypes.c_int


def self_test(n=1 << 22):
    err = ctypes.create_string_buffer(512)
    dev = ctypes.create_string_buffer(256)
    rc = _lib.kernpkg_run(n, err, 512, dev, 256)
    if rc != 0:
        raise RuntimeError(err.value.decode())
    return "kernpkg %s (%s) ran on %s" % (__version__, ARCHS, dev.value.decode())
