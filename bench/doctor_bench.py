#!/usr/bin/env python3
"""`envfix doctor` on a torch-sized environment, cold and warm (docs/performance.md, "doctor").

Usage: bench/doctor_bench.py [--envfix build/envfix] [--runs 21] [--out bench/out/doctor]

Target (issue 3): under 100 ms on an environment already cached (warm).

Builds, under --out, a venv (Debian's python3, without pip) whose site-packages looks like the
torch 2.11.0+cu130 install of the GPU machine:
  torch/            12,000 files in 600 folders (the real one: ~12,000 files under torch and nvidia),
                    torch/version.py, torch/lib with libtorch_cuda.so = big_nvcc13.so (15 MiB, 3,006
                    fatbin containers, from bench/binenv_bench.py), libtorch_cuda_linalg.so (the
                    same), 12 host libraries
  nvidia/           20 packages with a library each (fixtures with GPU code)
  200 dist-infos    (the real one has 199) with 20 KiB descriptions; torch's with a 12,000-line
                    RECORD; torchvision, torchaudio, triton, nvidia-*-cu13, cuda-toolkit with
                    their real Requires-Dist
and times, with the stand-in driver library answering as the H200 machine (build the tests first:
build/tests/standin/):
  doctor            cold (empty ENVFIX_CACHE_DIR per run) and warm (a filled one), text and --json
  parts             the probe alone, `archs --env` (the library scan), `envs --no-home` (facts),
                    `--version` (process start): what dominates a warm doctor run
Prints medians of wall time and of CPU time (user + system of envfix and what it starts).
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import binenv_bench as bb  # noqa: E402  (shared input builders and timers)
import standin  # noqa: E402

ROOT = bb.ROOT
FIX = bb.FIX


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def dist_info(sp, name, version, requires=(), description_kib=20, record_lines=0):
    d = os.path.join(sp, "%s-%s.dist-info" % (name.replace("-", "_"), version))
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: bench\n" % (name, version)
    meta += "".join("Requires-Dist: %s\n" % r for r in requires)
    meta += "\n" + ("A long description line for the benchmark.\n" * (description_kib * 24))
    write(os.path.join(d, "METADATA"), meta)
    write(os.path.join(d, "INSTALLER"), "pip\n")
    write(os.path.join(d, "WHEEL"), "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-manylinux_2_28_x86_64\n")
    rec = "".join("torch/f%05d.py,sha256=AAAA,100\n" % i for i in range(record_lines))
    write(os.path.join(d, "RECORD"), rec + "%s-%s.dist-info/RECORD,,\n" % (name.replace("-", "_"), version))


def make_env(out):
    venv = os.path.join(out, "venv")
    if os.path.isdir(venv):
        return venv
    big, _ = bb.make_inputs(os.path.join(out, "inputs"))
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", venv], check=True)
    sp = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                        stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    torch = os.path.join(sp, "torch")
    for i in range(12000):
        write(os.path.join(torch, "pkg%03d" % (i // 20), "m%05d.py" % i), "x = %d\n" % i)
    write(os.path.join(torch, "version.py"),
          "from typing import Optional\n\n__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\n"
          "git_version = '70d99e998b4955e0049d13a98d77ae1b14db1f45'\nhip: Optional[str] = None\n")
    lib = os.path.join(torch, "lib")
    os.makedirs(lib, exist_ok=True)
    shutil.copy(os.path.join(out, "inputs", "big_nvcc13.so"), os.path.join(lib, "libtorch_cuda.so"))
    shutil.copy(os.path.join(out, "inputs", "big_nvcc13.so"), os.path.join(lib, "libtorch_cuda_linalg.so"))
    for n in ("libc10.so", "libc10_cuda.so", "libtorch.so", "libtorch_cpu.so", "libtorch_python.so", "libshm.so",
              "libgomp.so.1", "libtorch_global_deps.so", "libcaffe2_nvrtc.so", "libtorch_nvshmem.so", "libh1.so", "libh2.so"):
        shutil.copy(os.path.join(FIX, "host_only.so"), os.path.join(lib, n))
    fixtures = ["multi_container.so", "sass_75_80_86.so", "zstd_90_100a_103a_120f_ptx120.so", "torch211_cu130_like.so"]
    for i in range(20):
        d = os.path.join(sp, "nvidia", "pkg%02d" % i, "lib")
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(FIX, fixtures[i % len(fixtures)]), os.path.join(d, "libnv%02d.so.13" % i))
    dist_info(sp, "torch", "2.11.0", [
        "filelock", "typing-extensions>=4.10.0", "sympy>=1.13.3", "networkx>=2.5.1", "jinja2", "fsspec>=0.8.5",
        'cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.2; platform_system == "Linux"',
        'cuda-bindings<14,>=13.0.3; platform_system == "Linux"', 'nvidia-cudnn-cu13==9.19.0.56; platform_system == "Linux"',
        'nvidia-nccl-cu13==2.28.9; platform_system == "Linux"', 'triton==3.6.0; platform_system == "Linux"',
        'optree>=0.13.0; extra == "optree"'], record_lines=12000)
    dist_info(sp, "torchvision", "0.26.0", ["numpy", "torch (==2.11.0)", "pillow (!=8.3.*,>=5.3.0)"])
    dist_info(sp, "torchaudio", "2.11.0")
    dist_info(sp, "triton", "3.6.0")
    dist_info(sp, "cuda-toolkit", "13.0.2", ["nvidia-cublas==13.1.0.3.*; extra == 'cublas'"])
    dist_info(sp, "cuda-bindings", "13.3.1")
    for name, version in (("nvidia-cublas", "13.1.0.3"), ("nvidia-cuda-runtime", "13.0.96"), ("nvidia-cudnn-cu13", "9.19.0.56"),
                          ("nvidia-nccl-cu13", "2.28.9"), ("nvidia-cufft", "12.0.0.61"), ("nvidia-nvjitlink", "13.0.88")):
        dist_info(sp, name, version)
    # What torch and torchvision require, so that `envfix check` finds nothing either.
    for name, version in (("filelock", "3.16.1"), ("typing-extensions", "4.12.2"), ("sympy", "1.13.3"), ("networkx", "3.4.2"),
                          ("jinja2", "3.1.6"), ("fsspec", "2025.3.0"), ("numpy", "2.2.4"), ("pillow", "11.1.0")):
        dist_info(sp, name, version)
    for i in range(180):
        dist_info(sp, "package-%03d" % i, "1.%d" % i, ["package-%03d>=1.0" % ((i + 1) % 180)])
    return venv


def standin_env(base):
    env = standin.h200_env(nowhere="/nonexistent")
    if not os.path.exists(env["ENVFIX_LIBCUDA"]):
        raise SystemExit("build the tests first: %s is missing" % env["ENVFIX_LIBCUDA"])
    return dict(base, **env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envfix", default=os.path.join(ROOT, "build", "envfix"))
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "doctor"))
    a = ap.parse_args()
    venv = make_env(a.out)
    python = os.path.join(venv, "bin", "python")
    base = {k: v for k, v in os.environ.items() if not k.startswith("ENVFIX_") and k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env = standin_env(base)
    e = a.envfix
    # doctor exits 0 on this environment (the H200 is served); anything else is a broken bench.
    r = subprocess.run([e, "doctor", "--python", python], env=dict(env, ENVFIX_CACHE_DIR=os.path.join(a.out, "check-cache")),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit("doctor exited %d:\n%s%s" % (r.returncode, r.stdout, r.stderr))
    print(r.stdout.splitlines()[0])
    print("%d runs each; %d cores; load %.1f" % (a.runs, os.cpu_count(), os.getloadavg()[0]))
    bb.bench("doctor (text)", [e, "doctor", "--python", python], a.runs, env)
    bb.bench("doctor --json", [e, "doctor", "--json", "--python", python], a.runs, env)
    bb.bench("probe alone (stand-in H200)", [e, "probe"], a.runs, env)
    bb.bench("archs --env (library scan)", [e, "archs", "--env", venv], a.runs, env)
    bb.bench("envs --no-home (interpreter facts)", [e, "envs", "--no-home"], a.runs, dict(env, VIRTUAL_ENV=venv))
    bb.bench("check (all 200 dists)", [e, "check", "--python", python], a.runs, env)
    bb.bench("--version (process start)", [e, "--version"], a.runs, env)


if __name__ == "__main__":
    main()
