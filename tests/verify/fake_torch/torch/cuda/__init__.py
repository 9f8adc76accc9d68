# torch.cuda of the fake torch (tests/verify/fake_torch/README.md).
import warnings as _warnings

import torch as _torch

_DEVICES = _torch._CONF.get("devices", [{"name": "NVIDIA H200", "capability": [9, 0], "memory": 150754820096}])


def is_available():
    if _torch._MODE == "driver_too_old":
        # torch warns from its lazy check and answers False (torch/cuda/__init__.py).
        _warnings.warn("CUDA initialization: " + _torch.DRIVER_TOO_OLD + " (Triggered internally at "
                       "/pytorch/c10/cuda/CUDAFunctions.cpp:109.)", UserWarning)
        return False
    return bool(_DEVICES)


def init():
    if _torch._MODE == "driver_too_old":
        raise RuntimeError(_torch.DRIVER_TOO_OLD)


def device_count():
    return len(_DEVICES)


def get_arch_list():
    return list(_torch._CONF.get("arch_list", ["sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]))


def get_device_capability(index):
    return tuple(_DEVICES[index]["capability"])


def get_device_name(index):
    return _DEVICES[index]["name"]


class _Props:
    def __init__(self, d):
        self.total_memory = d.get("memory", 0)


def get_device_properties(index):
    return _Props(_DEVICES[index])


def synchronize(device=None):
    pass
