#!/usr/bin/env python3
"""Reading cost of GPU binaries and interpreter facts, cold and warm (docs/performance.md,
section "Binaries and environments").

Usage: bench/binenv_bench.py [--envfix build/envfix] [--runs 15] [--out bench/out/binenv]

Builds, under --out:
  big_nvcc13.so      an ELF whose .nv_fatbin holds 3,000 containers copied from the nvcc 13
                     fixture torch211_cu130_like.so (zstd, variant bits: nothing to decode)
  big_cuda12.so      an ELF with 3,000 containers of ABI-7 sm_90 cubins, zstd-compressed,
                     without variant bits (CUDA 12 style: every cubin head is decoded)
  venv/              a real venv whose site-packages looks like a torch install: torch/lib with
                     big_nvcc13.so as libtorch_cuda.so and 40 host-only libraries, 20
                     nvidia/*/lib libraries
and times `envfix archs` on each (cold: empty cache folder per run; warm: a filled one), and
`envfix envs --no-home` (interpreter facts cold / warm). Prints the median wall time and the
median CPU time (user + system, of envfix and what it starts) of each.
"""
import argparse
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "tests", "fixtures", "fatbin")


def section(data, want):
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    entsize, count, strndx = struct.unpack_from("<HHH", data, 0x3A)
    strtab = struct.unpack_from("<Q", data, shoff + strndx * entsize + 24)[0]
    for i in range(count):
        at = shoff + i * entsize
        name_off = struct.unpack_from("<I", data, at)[0]
        name = data[strtab + name_off:data.index(b"\0", strtab + name_off)].decode()
        if name == want:
            off, size = struct.unpack_from("<QQ", data, at + 24)
            return data[off:off + size]
    raise SystemExit("no " + want)


def elf_with_fatbin(fatbin):
    """A minimal ELF64 shared object: a null section, .nv_fatbin, .shstrtab."""
    names = b"\0.nv_fatbin\0.shstrtab\0"
    body_off = 64
    fat_off = body_off
    str_off = fat_off + len(fatbin)
    sh_off = (str_off + len(names) + 7) & ~7
    header = bytearray(64)
    header[0:16] = b"\x7fELF\x02\x01\x01" + bytes(9)
    struct.pack_into("<HHIQQQIHHHHHH", header, 16, 3, 62, 1, 0, 0, sh_off, 0, 64, 0, 0, 64, 3, 2)
    def sh(name, typ, off, size, align):
        return struct.pack("<IIQQQQIIQQ", name, typ, 2 if typ == 1 else 0, 0, off, size, 0, 0, align, 0)
    out = bytearray(header) + fatbin + names
    out += bytes(sh_off - len(out))
    out += bytes(64) + sh(1, 1, fat_off, len(fatbin), 8) + sh(12, 3, str_off, len(names), 1)
    return bytes(out)


def cuda12_container(payload):
    """One container with one ABI-7 sm_90 cubin entry, zstd, no variant bit."""
    padded = payload + bytes((-len(payload)) % 8)
    entry = struct.pack("<HHIQIIHHIIIQQQ", 2, 0x0101, 64, len(padded), len(payload), 0, 7, 1, 90, 0, 0,
                        0x8011, 0, 600000)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entry) + len(padded)) + entry + padded


def make_inputs(out):
    os.makedirs(out, exist_ok=True)
    torch_like = open(os.path.join(FIX, "torch211_cu130_like.so"), "rb").read()
    containers = section(torch_like, ".nv_fatbin")  # 9 containers
    big = elf_with_fatbin(containers * 334)  # 3,006 containers
    open(os.path.join(out, "big_nvcc13.so"), "wb").write(big)
    # A cubin-sized payload: an ABI-7 sm_90a ELF header then 300 KiB of varied bytes, as zstd.
    head = bytearray(64)
    head[0:9] = b"\x7fELF\x02\x01\x01\x33\x07"
    struct.pack_into("<HH", head, 0x10, 2, 190)
    struct.pack_into("<I", head, 0x30, 0x5A0D5A)
    import random
    rnd = random.Random(7)
    raw = bytes(head) + bytes(rnd.getrandbits(8) if i % 7 == 0 else i % 251 for i in range(300 * 1024))
    if not shutil.which("zstd"):
        return big, None  # the zstd command makes the payload; without it that case is skipped
    comp = subprocess.run(["zstd", "-q", "-19", "-c"], input=raw, stdout=subprocess.PIPE, check=True).stdout
    big12 = elf_with_fatbin(cuda12_container(comp) * 3000)
    open(os.path.join(out, "big_cuda12.so"), "wb").write(big12)
    return big, big12


def make_venv(out):
    venv = os.path.join(out, "venv")
    if not os.path.isdir(venv):
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    sp = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                         "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                        stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    lib = os.path.join(sp, "torch", "lib")
    os.makedirs(lib, exist_ok=True)
    shutil.copy(os.path.join(out, "big_nvcc13.so"), os.path.join(lib, "libtorch_cuda.so"))
    for i in range(40):
        shutil.copy(os.path.join(FIX, "host_only.so"), os.path.join(lib, "libhost%02d.so" % i))
    for i in range(20):
        d = os.path.join(sp, "nvidia", "pkg%02d" % i, "lib")
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(FIX, "sass_75_80_86.so"), os.path.join(d, "libnv%02d.so.12" % i))
    return venv


def cpu_of_children():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(argv, env):
    """(wall ms, CPU ms) of one run; CPU time is what the machine's load does not inflate."""
    c0, t0 = cpu_of_children(), time.perf_counter()
    r = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt, dc = time.perf_counter() - t0, cpu_of_children() - c0
    if r.returncode != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(argv), r.stderr.decode()))
    return dt * 1000.0, dc * 1000.0


def bench(name, argv, runs, base_env):
    cold = []
    for _ in range(runs):
        cache = tempfile.mkdtemp(prefix="envfix-bench-")
        cold.append(timed(argv, dict(base_env, ENVFIX_CACHE_DIR=cache)))
        shutil.rmtree(cache)
    cache = tempfile.mkdtemp(prefix="envfix-bench-")
    env = dict(base_env, ENVFIX_CACHE_DIR=cache)
    timed(argv, env)
    warm = [timed(argv, env) for _ in range(runs)]
    shutil.rmtree(cache)
    med = lambda runs, k: statistics.median(r[k] for r in runs)
    print("%-42s cold %7.1f ms wall %7.1f ms CPU   warm %5.1f ms wall %5.1f ms CPU" % (
        name, med(cold, 0), med(cold, 1), med(warm, 0), med(warm, 1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--envfix", default=os.path.join(ROOT, "build", "envfix"))
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "binenv"))
    a = ap.parse_args()
    big, big12 = make_inputs(a.out)
    venv = make_venv(a.out)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENVFIX_") and k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    print("inputs: big_nvcc13.so %.1f MiB, big_cuda12.so %s; %d runs each; %d cores" % (
        len(big) / 2**20, "%.1f MiB" % (len(big12) / 2**20) if big12 else "skipped (no zstd command)", a.runs,
        os.cpu_count()))
    e = a.envfix
    bench("archs: 17 fixture files", [e, "archs"] + sorted(
        os.path.join(FIX, f) for f in os.listdir(FIX) if f.endswith((".so", ".dll", ".fatbin"))), a.runs, env)
    bench("archs: big_nvcc13.so (3,006 containers)", [e, "archs", os.path.join(a.out, "big_nvcc13.so")], a.runs, env)
    if big12:
        bench("archs: big_cuda12.so (3,000 zstd heads)", [e, "archs", os.path.join(a.out, "big_cuda12.so")], a.runs, env)
    bench("archs --env: torch-sized venv (61 libs)", [e, "archs", "--env", venv], a.runs, env)
    bench("envs --no-home (facts of one venv)", [e, "envs", "--no-home"], a.runs, dict(env, VIRTUAL_ENV=venv))
    bench("--version (process start, for reference)", [e, "--version"], a.runs, env)


if __name__ == "__main__":
    main()
