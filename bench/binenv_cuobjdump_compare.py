#!/usr/bin/env python3
"""Checks envfix's fatbin reader against NVIDIA's cuobjdump on real libraries (for the GPU
machine, where the CUDA toolkit is installed).

Usage: bench/binenv_cuobjdump_compare.py ENVFIX LIB... [--cuobjdump /usr/local/cuda/bin/cuobjdump]

For every library: the cubins per architecture (`cuobjdump --list-elf`, names like
libtorch_cuda.3.sm_90a.cubin) and PTX entries per virtual architecture (`--list-ptx`, names
like libcublasLt.7.sm_120.ptx) against `envfix archs --json LIB...` (sass[].cubins,
ptx[].entries). Prints one line per library and every difference; exits 1 on a difference.
"""
import argparse
import collections
import json
import re
import subprocess
import sys

NAME = re.compile(r"\.(sm_\d+[af]?)\.(cubin|ptx)\s*$")


def cuobjdump_counts(tool, lib, what):
    r = subprocess.run([tool, what, lib], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    counts = collections.Counter()
    for line in r.stdout.splitlines():
        m = NAME.search(line)
        if m:
            counts[m.group(1)] += 1
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("envfix")
    ap.add_argument("libs", nargs="+")
    ap.add_argument("--cuobjdump", default="/usr/local/cuda/bin/cuobjdump")
    a = ap.parse_args()
    out = subprocess.run([a.envfix, "archs", "--json"] + a.libs, stdout=subprocess.PIPE, text=True)
    doc = json.loads(out.stdout)
    by_path = {l["path"]: l for l in doc["libraries"]}
    bad = 0
    for lib in a.libs:
        mine = by_path.get(lib)
        if mine is None:
            print("%s: envfix could not read it" % lib)
            bad += 1
            continue
        sass = collections.Counter({s["arch"]: s["cubins"] for s in mine["sass"]})
        ptx = collections.Counter()
        for p in mine["ptx"]:
            ptx["sm_" + p["arch"][len("compute_"):]] += p["entries"]
        ref_sass = cuobjdump_counts(a.cuobjdump, lib, "--list-elf")
        ref_ptx = cuobjdump_counts(a.cuobjdump, lib, "--list-ptx")
        same = sass == ref_sass and ptx == ref_ptx
        bad += 0 if same else 1
        print("%-4s %s  envfix %s  arch_list %s" % ("ok" if same else "DIFF", lib,
              " ".join("%s×%d" % kv for kv in sorted(sass.items())) or "-", ",".join(mine["arch_list"]) or "-"))
        if not same:
            print("     cuobjdump SASS %s  PTX %s" % (dict(sorted(ref_sass.items())), dict(sorted(ref_ptx.items()))))
            print("     envfix    SASS %s  PTX %s" % (dict(sorted(sass.items())), dict(sorted(ptx.items()))))
    print("%d libraries, %d differ" % (len(a.libs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
