#!/usr/bin/env python3
"""Peak memory of `envfix install` during a cold install (issue 9: under 150 MB; docs/performance.md,
"Peak memory of a cold install"). Standard library only: it runs on the GPU machine as it is.

Usage: bench/peak_rss.py --index DIR [--envfix build/envfix] [--python /usr/bin/python3] [--reps 3]
                         [--variant NAME] [--work DIR] [--json OUT.json]

--index is a folder made by bench/synth_stack.py or bench/real_stack.py (files/*.whl and
stack.json). Each repetition installs the stack's first variant (or --variant) from its local
wheel files into a new venv, with empty envfix caches and, where /proc/sys/vm/drop_caches can be
written, an empty page cache. Reported per run and as medians: wall and CPU seconds, ru_maxrss
from wait4 (the peak resident set: what `/usr/bin/time -v` calls "Maximum resident set size",
file-backed pages included), and the peaks of RssAnon and RssFile sampled every 10 ms from
/proc/PID/status.
"""
import argparse, json, os, shutil, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import ROOT, drop_page_cache, run_timed  # noqa: E402  (one wait4 + sampler for both)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--envfix", default=os.path.join(ROOT, "build", "envfix"))
    ap.add_argument("--python", default="/usr/bin/python3", help="makes the venvs")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--variant", default=None, help="a variant named in stack.json (default: the first)")
    ap.add_argument("--work", default=None, help="venvs, caches and the log (default: beside --index)")
    ap.add_argument("--json", default=None, help="also write the runs here")
    a = ap.parse_args()
    with open(os.path.join(a.index, "stack.json")) as f:
        stack = json.load(f)
    variant = stack["variants"][a.variant or stack["order"][0]]
    wheels = [os.path.join(os.path.abspath(a.index), w) for w in variant["wheels"]]
    work = os.path.abspath(a.work or os.path.join(os.path.dirname(os.path.abspath(a.index)), "peak-rss-work"))
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "envfix.log")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENVFIX_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(HOME=os.path.join(work, "home"), ENVFIX_CACHE_DIR=os.path.join(work, "cache"),
               ENVFIX_DATA_DIR=os.path.join(work, "data"))
    runs = []
    for rep in range(a.reps):
        venv = os.path.join(work, "venv")
        for d in (venv, env["ENVFIX_CACHE_DIR"], env["ENVFIX_DATA_DIR"]):
            shutil.rmtree(d, ignore_errors=True)
        subprocess.run([a.python, "-m", "venv", "--without-pip", venv], check=True)
        dropped = drop_page_cache()
        r = run_timed([a.envfix, "install", "--json", "--no-verify", "--env", venv] + wheels, env, log)
        r["page_cache_dropped"] = dropped
        runs.append(r)
        print(f"run {rep + 1}: {r['seconds']:.2f} s wall, {r['cpu']:.2f} s CPU, peak RSS {r['rss_mib']:.0f} MiB "
              f"(sampled anonymous {r.get('anon_mib', 0):.0f} MiB, file {r.get('file_mib', 0):.0f} MiB)"
              + ("" if dropped else ", page cache not dropped"), flush=True)
    shutil.rmtree(os.path.join(work, "venv"), ignore_errors=True)
    med = {k: statistics.median(r[k] for r in runs if k in r) for k in ("seconds", "cpu", "rss_mib", "anon_mib", "file_mib")
           if any(k in r for r in runs)}
    print(f"median of {len(runs)}: {med['seconds']:.2f} s wall, {med['cpu']:.2f} s CPU, peak RSS (ru_maxrss) "
          f"{med['rss_mib']:.0f} MiB, anonymous {med.get('anon_mib', 0):.0f} MiB, file {med.get('file_mib', 0):.0f} MiB; "
          f"{len(wheels)} wheels, {sum(os.path.getsize(w) for w in wheels) / 2**20:.0f} MiB")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"envfix": a.envfix, "index": a.index, "wheels": len(wheels), "runs": runs, "median": med}, f, indent=1)


if __name__ == "__main__":
    main()
