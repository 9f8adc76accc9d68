#!/usr/bin/env python3
"""`envfix doctor` against `import torch` with the page cache dropped before every run
(docs/performance.md, "doctor").

Usage: bench/doctor_cold.py --python PY [--envfix .h200/bin/envfix ...] [--runs 5] [--first 3]
                            [--out DIR] [--json FILE]

--envfix may be given several times (an A/B of builds): each run of each build in turn, each
build with caches of its own.

Issue 9 asks for doctor under 100 ms "where importing torch takes over 4 s". With torch's files in
the page cache, importing it took 1.3–3.6 s on the GPU machines lent; it takes longer when they
are read from the disk, as after a reboot or once other work has pushed them out. So each run here
starts after `sync; echo 3 > /proc/sys/vm/drop_caches` (root only), alternating the tools:
  doctor        envfix doctor --python PY, envfix's own caches filled by one earlier run (as on a
                user's machine after the first), the files it reads (its binary and libraries,
                the interpreter, torch/lib and nvidia/*/lib listings, dist-infos) from the disk
  version       envfix --version: loading the binary and its libraries from the disk alone
  import torch  PY -c "import torch; print(torch.cuda.get_arch_list())"
and --first times the first doctor ever (an empty cache folder: the driver asked through cuInit,
the interpreter run, every GPU library's fatbins read), page cache dropped too. Then the same
without dropping (the warm figures of the runs of record), for reference. Medians and ranges.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def drop():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def timed(argv, env):
    t = time.monotonic()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return {"seconds": time.monotonic() - t, "cpu": ru.ru_utime + ru.ru_stime,
            "exit": os.waitstatus_to_exitcode(status)}


def summary(runs):
    s = sorted(r["seconds"] for r in runs)
    return {"median": statistics.median(s), "min": s[0], "max": s[-1], "n": len(s),
            "cpu_median": statistics.median(r["cpu"] for r in runs),
            "exits": sorted({r["exit"] for r in runs})}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--envfix", action="append", default=None)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--first", type=int, default=3)
    ap.add_argument("--out", default=None, help="folder for envfix's caches (default: a new temporary one)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    builds = a.envfix or [".h200/bin/envfix"]
    try:
        drop()
    except OSError as e:
        sys.exit(f"doctor_cold: cannot drop the page cache ({e}): run as root")

    out = a.out or tempfile.mkdtemp(prefix="envfix-doctor-cold-")
    label = (lambda b: "") if len(builds) == 1 else (lambda b: f" [{b}]")
    envs = {b: dict(os.environ, ENVFIX_CACHE_DIR=os.path.join(out, f"cache{i}")) for i, b in enumerate(builds)}
    torch = [a.python, "-c", "import torch; print(torch.cuda.get_arch_list())"]
    has_torch = subprocess.run(torch, capture_output=True).returncode == 0

    res = {"python": a.python, "envfix": builds, "torch": has_torch, "runs": {}}
    runs = res["runs"]

    def record(key, r):
        runs.setdefault(key, []).append(r)

    for _ in range(a.first):  # the first doctor ever: empty caches, page cache dropped
        for b in builds:
            shutil.rmtree(envs[b]["ENVFIX_CACHE_DIR"], ignore_errors=True)
            drop()
            record("first" + label(b), timed([b, "doctor", "--python", a.python], envs[b]))
    for b in builds:
        timed([b, "doctor", "--python", a.python], envs[b])  # caches filled, as after a user's first run
    for _ in range(a.runs):  # alternating, each after the page cache is dropped
        for b in builds:
            drop()
            record("doctor" + label(b), timed([b, "doctor", "--python", a.python], envs[b]))
            drop()
            record("version" + label(b), timed([b, "--version"], envs[b]))
        if has_torch:
            drop()
            record("import torch", timed(torch, envs[builds[0]]))
    for _ in range(a.runs):  # warm, for reference
        for b in builds:
            record("warm doctor" + label(b), timed([b, "doctor", "--python", a.python], envs[b]))
        if has_torch:
            record("warm import torch", timed(torch, envs[builds[0]]))

    res["summary"] = {k: summary(v) for k, v in runs.items()}
    for k, s in res["summary"].items():
        print(f"{k:40} {s['median'] * 1000:8.1f} ms median ({s['min'] * 1000:.1f}–{s['max'] * 1000:.1f}, "
              f"n={s['n']}), CPU {s['cpu_median'] * 1000:.1f} ms, exit {s['exits']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if not a.out:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
