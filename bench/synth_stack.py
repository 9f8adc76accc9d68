#!/usr/bin/env python3
"""Builds a synthetic torch + torchvision + torchaudio stack shaped like the real one, in two
variants ("cu126" and "cu128" builds of one release), as a PEP 503 index folder that
bench/compare.py serves. Standard library only.

Usage: bench/synth_stack.py OUT [--scale 0.1] [--python python3] [--shape FILE]

The shape (bench/data/torch-stack-shape.json.gz) is the file list with sizes of the RECORDs of the
torch 2.11.0+cu130 stack installed on the H200 machine: 24 distributions, 13 296 files, 4.7 GB.
Nine small pure-Python dependencies the stack also installs (sympy, networkx, numpy, …) are added
by count, for about 17 000 files in 33 wheels as in the real stack. Every file keeps its real size,
except files over 1 MiB (the shared libraries), which are scaled by --scale (at least 1 MiB) so
the benchmark fits a small machine; --scale 1 gives the real 4.7 GB. Library bytes have about 4
bits of entropy each, so they deflate about 2:1 as CUDA libraries roughly do.

Between the variants, as between real cu126 and cu128 builds of one release: torch, torchvision
and torchaudio change their local version and every file over 64 KiB (the compiled code) plus
torch/version.py; the nvidia-* wheels change version and every file; triton, cuda-* and the pure
Python dependencies are the same wheels.

OUT gets files/*.whl, simple/<project>/index.html and stack.json:
  {"version": 1, "variants": {"cu126": {"requirements": [...], "wheels": [...]}, "cu128": ...},
   "order": ["cu126", "cu128"], "files": N, "bytes": N}
"""
import argparse, base64, gzip, hashlib, json, os, random, re, subprocess, sys, zipfile
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1 << 20
MAIN = {"torch": "2.11.0", "torchvision": "0.26.0", "torchaudio": "2.11.0"}
# name, version, files, mean size, requirements (pure dependencies, shaped by count)
EXTRA = [("sympy", "1.14.0", 1600, 9000, ["mpmath>=1.1.0"]), ("mpmath", "1.3.0", 90, 12000, []),
         ("networkx", "3.5", 700, 7000, []), ("numpy", "2.3.4", 900, 20000, []), ("jinja2", "3.1.6", 30, 9000, ["markupsafe>=2.0"]),
         ("markupsafe", "3.0.3", 15, 3000, []), ("filelock", "3.20.0", 15, 3000, []), ("fsspec", "2025.10.0", 100, 12000, []),
         ("typing_extensions", "4.15.0", 3, 150000, []), ("pillow", "12.0.0", 100, 30000, [])]
EXTRA_LIBS = {"numpy": [("numpy/_core/_multiarray_umath.cpython.so", 12 * MIB), ("numpy.libs/libscipy_openblas64.so", 25 * MIB)],
              "pillow": [("PIL/_imaging.cpython.so", 3 * MIB), ("pillow.libs/libavif.so", 12 * MIB)]}


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def library_bytes(size, seed):
    table = bytes((i * 17) & 0xFF for i in range(16)) * 16  # 16 values: about 2:1 under deflate
    rng = random.Random(seed)
    out = bytearray()
    while len(out) < size:
        out += rng.randbytes(min(4 * MIB, size - len(out))).translate(table)
    return bytes(out)


def text_bytes(path, size, salt):
    line = f"# {path} {salt}\n".encode()
    body = (line + b"x = 1\n" * (size // 6 + 1))
    return body[:size]


def packages(shape, scale):
    """The stack as (name, version_a, version_b, files, requirements_a, requirements_b, pure); each
    file is (path, size, changes_between_variants)."""
    out = []
    nvidia = [p for p in shape["packages"] if p["name"].startswith("nvidia_") and p["name"] != "nvidia_ml_py"]
    bump = lambda v: v + ".1"
    for p in shape["packages"]:
        name, ver = p["name"], p["version"]
        files = []
        for path, size in p["files"]:
            if size > MIB:
                size = max(MIB, int(size * scale))
            if name in MAIN:
                changes = size > 64 * 1024 or path.endswith("/version.py")
            else:
                changes = name in [n["name"] for n in nvidia]
            files.append((path, size, changes))
        if name in MAIN:
            va, vb = f"{ver}+cu126", f"{ver}+cu128"
        elif any(n["name"] == name for n in nvidia):
            va, vb = ver, bump(ver)
        else:
            va = vb = ver
        req_a, req_b = [], []
        if name == "torch":
            pure = ["filelock", "typing-extensions>=4.10.0", "sympy>=1.13.3", "networkx>=2.5.1", "jinja2", "fsspec>=0.8.5",
                    "triton==3.6.0", "cuda-bindings==13.3.1", "cuda-toolkit==13.0.2", "nvidia-ml-py", "cuda-core"]
            req_a = pure + [f"{norm(n['name'])}=={n['version']}" for n in nvidia]
            req_b = pure + [f"{norm(n['name'])}=={bump(n['version'])}" for n in nvidia]
        elif name in ("torchvision", "torchaudio"):
            req_a = req_b = ["torch==2.11.0"] + (["numpy", "pillow!=8.3.*,>=5.3.0"] if name == "torchvision" else [])
        elif name in ("cuda_bindings", "cuda_core"):
            req_a = req_b = ["cuda-pathfinder>=1.4.2"] + (["numpy"] if name == "cuda_core" else [])
        out.append((name, va, vb, files, req_a, req_b, False))
    rng = random.Random(7)
    for name, ver, count, mean, reqs in EXTRA:
        files = [(f"{name}/{'sub%d/' % (i % 40) if count > 100 else ''}m{i}.py", max(40, int(rng.expovariate(1 / mean))), False)
                 for i in range(count)]
        files += [(path, max(MIB, int(size * scale)), False) for path, size in EXTRA_LIBS.get(name, [])]
        out.append((name, ver, ver, files, reqs, reqs, name not in EXTRA_LIBS))
    return out


def build_wheel(job):
    name, version, files, reqs, pure, variant, pytag, out_dir = job
    tag = "py3-none-any" if pure else f"{pytag}-{pytag}-linux_x86_64"
    fname = f"{name}-{version}-{tag}.whl"
    path = os.path.join(out_dir, fname)
    if os.path.exists(path):
        return fname
    entries = []
    for rel, size, changes in files:
        salt = variant if changes else "same"
        if size > 64 * 1024 and not rel.endswith((".py", ".pyi", ".h", ".hpp", ".txt")):
            data = library_bytes(size, f"{name}/{rel}/{salt}")
        else:
            data = text_bytes(rel, size, salt)
        exe = rel.endswith(".so") or ".so." in rel
        entries.append((rel, data, 0o755 if exe else 0o644))
    di = f"{name}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nRequires-Python: >=3.9\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in reqs)
    wheel = f"Wheel-Version: 1.0\nGenerator: envfix-bench\nRoot-Is-Purelib: {'true' if pure else 'false'}\nTag: {tag}\n"
    entries += [(f"{di}/METADATA", meta.encode(), 0o644), (f"{di}/WHEEL", wheel.encode(), 0o644)]
    if name == "torch":
        entries.append((f"{di}/entry_points.txt", b"[console_scripts]\ntorchrun = torch.distributed.run:main\n", 0o644))
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d, _ in entries) + f"{di}/RECORD,,\n"
    entries.append((f"{di}/RECORD", record.encode(), 0o644))
    with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for rel, data, mode in entries:
            info = zipfile.ZipInfo(rel, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (mode | 0o100000) << 16
            z.writestr(info, data)
    os.replace(path + ".part", path)
    return fname


def core_metadata(path):
    """The METADATA of a wheel (its .dist-info's), for the PEP 658 file beside it."""
    with zipfile.ZipFile(path) as z:
        for n in z.namelist():
            if n.count("/") == 1 and n.endswith(".dist-info/METADATA"):
                return z.read(n)
    return None


def write_simple(out):
    """PEP 503 pages for OUT/files, each wheel with its PEP 658 metadata file (`<wheel>.metadata`,
    `data-core-metadata` and the older `data-dist-info-metadata`), as the PyTorch index and PyPI
    serve them: installers then read metadata without downloading the wheels."""
    files = sorted(os.listdir(os.path.join(out, "files")))
    by = {}
    for f in files:
        if f.endswith(".whl"):
            by.setdefault(norm(f.split("-")[0]), []).append(f)
    for n, fs in by.items():
        os.makedirs(os.path.join(out, "simple", n), exist_ok=True)
        links = []
        for f in fs:
            path = os.path.join(out, "files", f)
            with open(path, "rb") as h:
                digest = hashlib.file_digest(h, "sha256").hexdigest() if hasattr(hashlib, "file_digest") else hashlib.sha256(h.read()).hexdigest()
            attrs = ""
            md = core_metadata(path)
            if md is not None:
                with open(path + ".metadata", "wb") as h:
                    h.write(md)
                mh = hashlib.sha256(md).hexdigest()
                attrs = f' data-core-metadata="sha256={mh}" data-dist-info-metadata="sha256={mh}"'
            links.append(f'<a href="../../files/{f}#sha256={digest}"{attrs}>{f}</a><br/>')
        with open(os.path.join(out, "simple", n, "index.html"), "w") as h:
            h.write("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")
    with open(os.path.join(out, "simple", "index.html"), "w") as h:
        h.write("<!DOCTYPE html><html><body>\n" + "\n".join(f'<a href="{n}/">{n}</a><br/>' for n in sorted(by)) + "\n</body></html>\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--shape", default=os.path.join(HERE, "data", "torch-stack-shape.json.gz"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    a = ap.parse_args()
    with gzip.open(a.shape, "rt") as f:
        shape = json.load(f)
    pytag = subprocess.run([a.python, "-c", "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')"],
                           capture_output=True, text=True, check=True).stdout.strip()
    files_dir = os.path.join(a.out, "files")
    os.makedirs(files_dir, exist_ok=True)
    pkgs = packages(shape, a.scale)
    jobs, variants = {}, {"cu126": {"requirements": [], "wheels": []}, "cu128": {"requirements": [], "wheels": []}}
    for name, va, vb, files, req_a, req_b, pure in pkgs:
        for variant, ver, reqs in (("cu126", va, req_a), ("cu128", vb, req_b)):
            jobs.setdefault((name, ver), (name, ver, files, reqs, pure, variant, pytag, files_dir))
    jobs = list(jobs.values())
    jobs.sort(key=lambda j: -sum(s for _, s, _ in j[2]))  # largest first
    with ProcessPoolExecutor(a.jobs) as ex:
        names = dict(zip([(j[0], j[1]) for j in jobs], ex.map(build_wheel, jobs)))
    for name, va, vb, files, *_ in pkgs:
        for variant, ver in (("cu126", va), ("cu128", vb)):
            variants[variant]["wheels"].append("files/" + names[(name, ver)])
            if name in MAIN:
                variants[variant]["requirements"].append(f"{norm(name)}=={ver}")
    write_simple(a.out)
    stack = {"version": 1, "what": f"synthetic torch-shaped stack, --scale {a.scale}, {pytag}", "order": ["cu126", "cu128"],
             "variants": variants, "files": sum(len(p[3]) for p in pkgs), "bytes": sum(s for p in pkgs for _, s, _ in p[3])}
    with open(os.path.join(a.out, "stack.json"), "w") as f:
        json.dump(stack, f, indent=1)
    total = sum(os.path.getsize(os.path.join(files_dir, f)) for f in os.listdir(files_dir))
    print(f"{len(pkgs)} distributions, {stack['files']} files, {stack['bytes'] / 1e9:.2f} GB installed per variant, "
          f"{len(os.listdir(files_dir))} wheels {total / 1e9:.2f} GB in {files_dir}")


if __name__ == "__main__":
    main()
