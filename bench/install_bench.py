#!/usr/bin/env python3
"""Installs a torch-shaped synthetic wheel into fresh venvs with envfix (and pip, and uv when on
PATH) and prints the wall times. docs/performance.md ("Where each target stands, and why") has the figures.

Usage: bench/install_bench.py [--files 15000] [--big-mb 600,300,150,80] [--runs 3]
                              [--envfix build/envfix] [--python /usr/bin/python3] [--work DIR]
                              [--no-pip] [--threads N] [--json]

The wheel ("torchlike-2.11.0-cp3X-cp3X-linux_x86_64.whl", cached in --work) holds --files
small files in a package tree shaped like torch's (a few hundred folders, .py and .pyi files,
headers) plus the large shared libraries given by --big-mb. Library bytes have about 4 bits of
entropy each, so they deflate about 2:1 as real CUDA libraries roughly do. "Cold" here means:
a new venv each run, nothing cached by any installer, and the page cache dropped before each run
where /proc/sys/vm/drop_caches can be written (the table says whether it could).
"""
import argparse, glob, json, os, random, shutil, subprocess, sys, tempfile, time, zipfile, hashlib, base64

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def library_bytes(size, seed):
    # 16 distinct byte values: about 2:1 under deflate, like a CUDA fatbin-laden library.
    table = bytes((i * 17) & 0xFF for i in range(16)) * 16
    rng = random.Random(seed)
    out = bytearray()
    chunk = 1 << 20
    while len(out) < size:
        out += rng.randbytes(min(chunk, size - len(out))).translate(table)
    return bytes(out)


def build_wheel(path, files, big_mb, python_tag):
    entries = []
    rng = random.Random(1)
    folders = [f"torchlike/{a}/{b}" for a in ("nn", "ops", "distributed", "_inductor", "utils", "include/c10", "include/ATen",
                                                 "testing", "fx", "onnx", "_dynamo", "cuda")
               for b in range(max(1, files // 600))]
    for i in range(files):
        folder = folders[i % len(folders)]
        ext = (".py", ".pyi", ".h", ".py")[i % 4]
        body = (f"# file {i}\n" + "x = 1\n" * rng.randint(5, 400)).encode()
        entries.append((f"{folder}/m{i}{ext}", body, 0o644))
    for n, mb in enumerate(big_mb):
        entries.append((f"torchlike/lib/libtorchlike_{n}.so", library_bytes(mb << 20, n), 0o755))
    di = "torchlike-2.11.0.dist-info"
    meta = b"Metadata-Version: 2.1\nName: torchlike\nVersion: 2.11.0\n"
    wheel = f"Wheel-Version: 1.0\nGenerator: envfix-bench\nRoot-Is-Purelib: false\nTag: {python_tag}-{python_tag}-linux_x86_64\n".encode()
    entries += [(f"{di}/METADATA", meta, 0o644), (f"{di}/WHEEL", wheel, 0o644)]
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d, _ in entries) + f"{di}/RECORD,,\n"
    entries.append((f"{di}/RECORD", record.encode(), 0o644))
    tmp = path + ".part"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (mode | 0o100000) << 16
            z.writestr(info, data)
    os.replace(tmp, path)


def drop_caches():
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def timed(argv, env=None):
    t = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    elapsed = time.monotonic() - t
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(argv)}\n{r.stderr[-2000:]}")
    return elapsed, r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=15000)
    ap.add_argument("--big-mb", default="600,300,150,80")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--envfix", default=os.path.join(ROOT, "build", "envfix"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "envfix-install-bench"))
    ap.add_argument("--no-pip", action="store_true")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    big = [int(x) for x in a.big_mb.split(",") if x]
    os.makedirs(a.work, exist_ok=True)
    ver = subprocess.run([a.python, "-c", "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')"],
                         capture_output=True, text=True, check=True).stdout.strip()
    wheel = os.path.join(a.work, f"torchlike-2.11.0-{ver}-{ver}-linux_x86_64.whl")
    stamp = wheel + f".{a.files}-{a.big_mb}"
    if not (os.path.exists(wheel) and os.path.exists(stamp)):
        t = time.monotonic()
        build_wheel(wheel, a.files, big, ver)
        open(stamp, "w").close()
        print(f"built {wheel} in {time.monotonic() - t:.1f} s", file=sys.stderr)
    with zipfile.ZipFile(wheel) as z:
        infos = z.infolist()
    unpacked = sum(i.file_size for i in infos)
    results = {"wheel": os.path.basename(wheel), "files": len(infos), "wheel_bytes": os.path.getsize(wheel),
               "unpacked_bytes": unpacked, "cpus": os.cpu_count(), "runs": {}}
    home = os.path.join(a.work, "home")
    env = dict(os.environ, HOME=home, ENVFIX_CACHE_DIR=os.path.join(home, "cache"))
    for k in ("VIRTUAL_ENV", "PIP_FIND_LINKS", "PIP_INDEX_URL"):
        env.pop(k, None)
    # The newest pip wheel on the machine that runs on --python (24.x needs 3.8+, as Debian's has).
    cands = glob.glob("/root/.pyenv/versions/*/lib/python3*/ensurepip/_bundled/pip-*.whl") + glob.glob("/usr/share/python-wheels/pip-*.whl")
    version = lambda p: tuple(int(x) for x in os.path.basename(p).split("-")[1].split("."))
    pip_wheel = max((c for c in cands if version(c) >= (22,)), key=version, default=None)
    tools = {"envfix": lambda v: [a.envfix, "install", "--json", "--env", v, wheel] + (["--threads", str(a.threads)] if a.threads else [])}
    if not a.no_pip and pip_wheel:
        tools["pip"] = lambda v: [os.path.join(v, "bin", "python"), os.path.join(pip_wheel, "pip"), "install", "--no-deps",
                                  "--no-compile", "--no-index", "--no-cache-dir", "--disable-pip-version-check", wheel]
    if shutil.which("uv"):
        tools["uv"] = lambda v: ["uv", "pip", "install", "--no-deps", "--no-cache", "--python", os.path.join(v, "bin", "python"), wheel]
    dropped = False
    for name, argv in tools.items():
        times = []
        for run in range(a.runs):
            venv = os.path.join(a.work, f"venv-{name}")
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([a.python, "-m", "venv", "--without-pip", venv], check=True)
            dropped = drop_caches()
            elapsed, out = timed(argv(venv), env)
            entry = {"seconds": round(elapsed, 3)}
            if name == "envfix":
                doc = json.loads(out)
                tx = doc["transaction"]
                entry.update({k: round(tx[k], 6) for k in ("seconds_stage", "seconds_commit", "seconds_moving")})
            times.append(entry)
            shutil.rmtree(venv, ignore_errors=True)
        results["runs"][name] = times
    results["page_cache_dropped"] = dropped
    if a.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{results['wheel']}: {results['files']} files, {results['wheel_bytes'] / 2**20:.0f} MiB wheel, "
          f"{unpacked / 2**20:.0f} MiB installed, {results['cpus']} CPUs, page cache dropped: {dropped}")
    for name, runs in results["runs"].items():
        secs = sorted(r["seconds"] for r in runs)
        extra = ""
        if name == "envfix":
            best = min(runs, key=lambda r: r["seconds"])
            extra = f"  (staging {best['seconds_stage']} s, commit {best['seconds_commit']} s, switch {best['seconds_moving'] * 1000:.1f} ms)"
        print(f"  {name:7s} median {secs[len(secs) // 2]:.2f} s  best {secs[0]:.2f} s  of {len(secs)}{extra}")


if __name__ == "__main__":
    main()
