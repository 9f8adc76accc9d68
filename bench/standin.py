"""The tests' stand-in NVIDIA driver (tests/standin, built with the tests) answering as the GPU
machine's H200 (compute capability 9.0) on driver 580.159.04, for benchmarks run where no GPU is.
One place for the variables, so every benchmark plans for the same machine."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def h200_env(build=os.path.join(ROOT, "build"), nowhere=None):
    """The ENVFIX_* variables that point envfix at the stand-in libraries of `build`. With
    `nowhere` (a path prefix), the driver's other sources (the sysroot's /sys and /proc files,
    nvidia-smi) are pointed at paths that do not exist, so only the stand-in answers."""
    standin = os.path.join(build, "tests", "standin")
    env = {"ENVFIX_LIBCUDA": os.path.join(standin, "full", "libcuda.so.1"),
           "ENVFIX_LIBNVML": os.path.join(standin, "nvml", "libnvidia-ml.so.1"),
           "ENVFIX_STANDIN_GPUS": "name=NVIDIA H200,cc=9.0,mem=143771MiB,sms=132,bus=0000:18:00.0",
           "ENVFIX_STANDIN_DRIVER": "580.159.04", "ENVFIX_STANDIN_CUDA": "13000"}
    if nowhere:
        env.update({"ENVFIX_SYSROOT": nowhere + "-sysroot", "ENVFIX_NVIDIA_SMI": nowhere + "-nvidia-smi"})
    return env


def clean_env():
    """This process's environment without envfix's, pip's, uv's and an active environment's
    variables: a benchmark measures the defaults, not the user's configuration."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("ENVFIX_", "PIP_", "UV_")) and k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
