#!/usr/bin/env python3
"""A variant switch in place, on its own (issue 9, the switch row; docs/performance.md, "A switch
keeps unchanged files"). Standard library only: it runs on the GPU machine as it is.

Usage: bench/switch_bench.py --index DIR [--envfix build/envfix] [--python /usr/bin/python3]
                             [--reps 4] [--work DIR]

--index is a folder made by bench/synth_stack.py or bench/real_stack.py (stack.json names two
variants with their wheel files). One venv gets the first variant, then is switched to the other
variant and back, --reps switches in all, each timed: wall, CPU (user + system, wait4) and the
install's own figures (files written, files kept, seconds_stage, seconds_commit). envfix's cache
folder is emptied before every switch, so the wheels are staged (the path that keeps unchanged
files) as on a user's first switch, not linked whole from the unpacked-wheel cache.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(argv, env):
    """Runs argv; returns (wall seconds, CPU seconds, the JSON it printed)."""
    with tempfile.TemporaryFile() as out:
        t = time.monotonic()
        p = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"exit {os.waitstatus_to_exitcode(status)}: {' '.join(argv[:5])}…")
        out.seek(0)
        return wall, ru.ru_utime + ru.ru_stime, json.loads(out.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--envfix", default=os.path.join(ROOT, "build", "envfix"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--work", default=None, help="venv and caches (default: beside --index)")
    a = ap.parse_args()
    stack = json.load(open(os.path.join(a.index, "stack.json")))
    names = stack["order"][:2]  # installed first, switched to
    wheels = {n: [os.path.join(a.index, w) for w in stack["variants"][n]["wheels"]] for n in names}
    work = a.work or os.path.join(os.path.dirname(os.path.abspath(a.index)), "switch-work")
    shutil.rmtree(work, ignore_errors=True)
    venv, cache = os.path.join(work, "venv"), os.path.join(work, "cache")
    subprocess.run([a.python, "-m", "venv", "--without-pip", venv], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "ENVFIX_", "PYTHON"))}
    env.update(ENVFIX_CACHE_DIR=cache, ENVFIX_DATA_DIR=os.path.join(work, "data"))

    def install(variant):
        return timed([a.envfix, "install", "--json", "--no-verify", "--env", venv] + wheels[variant], env)

    install(names[0])
    rows = []
    for rep in range(a.reps):
        to = names[(rep + 1) % 2]
        shutil.rmtree(cache, ignore_errors=True)
        os.sync()  # what the previous step wrote is not flushed on this one's time
        wall, cpu, doc = install(to)
        tx = doc["transaction"]
        rows.append({"to": to, "seconds": wall, "cpu": cpu, "files_written": tx["files_written"],
                     "files_kept": tx.get("files_kept", 0), "seconds_stage": tx["seconds_stage"],
                     "seconds_commit": tx["seconds_commit"]})
        r = rows[-1]
        print(f"switch to {to}: {wall:.2f} s, CPU {cpu:.2f} s, stage {r['seconds_stage']:.2f} s, commit "
              f"{r['seconds_commit']:.2f} s, {r['files_written']} files written, {r['files_kept']} kept", file=sys.stderr)
    med = {k: statistics.median(r[k] for r in rows) for k in ("seconds", "cpu", "seconds_stage", "seconds_commit")}
    print(json.dumps({"switches": rows, "median": med}, indent=1))
    print(f"median of {len(rows)}: wall {med['seconds']:.2f} s (min {min(r['seconds'] for r in rows):.2f}), CPU {med['cpu']:.2f} s, "
          f"stage {med['seconds_stage']:.2f} s, commit {med['seconds_commit']:.2f} s", file=sys.stderr)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
