# torch.nn.functional of the fake torch: the same expression on either device, a failure on the GPU
# as the mode says (tests/verify/fake_torch/README.md).
import torch as _torch


def conv2d(x, w, padding=0):
    return x._op("conv2d", w)


def layer_norm(x, shape, w, b):
    return x._op("layer_norm", w)._op("add", b)


def scaled_dot_product_attention(q, k, v):
    if q.device.type == "cuda":
        _torch._gpu_op("sdpa")
    # The reference's own composition, so an equal result is the same expression.
    q, k, v = q.float(), k.float(), v.float()
    scale = 1.0 / (q.shape[-1] ** 0.5)
    return _torch.softmax((q @ k.transpose(-2, -1)) * scale, dim=-1) @ v
