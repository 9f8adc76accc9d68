#!/usr/bin/env python3
"""Times `envfix apply` (docs/performance.md, "Other benches"): against a local test index (mkindex.py,
torch 2.11.0, served by index_server.py) as the stand-in H200: a first run into a new venv (plan,
downloads, one transaction), then the idempotent re-run that finds nothing to change (what a
configuration manager pays on every run), `--check`, and a lock applied offline from a fetched
folder.

Usage: bench/apply_bench.py [--build build] [--runs 10]
Builds envfix and the stand-in driver libraries first; works in bench/out/apply/.
"""
import argparse, os, shutil, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from plan_bench import median_ms  # noqa: E402
import standin  # noqa: E402


def timed(cmd, env, ok=(0, 80)):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode not in ok:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr.decode()}")
    return (time.perf_counter() - t0) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    build = os.path.join(ROOT, a.build)
    subprocess.run(["ninja", "-C", build, "envfix", "envfix_standin"], check=True, stdout=subprocess.DEVNULL)
    envfix = os.path.join(build, "envfix")
    out = os.path.join(ROOT, "bench", "out", "apply")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    env = dict(standin.clean_env(), **standin.h200_env(build, nowhere=os.path.join(out, "no")))
    env.update({"ENVFIX_CACHE_DIR": os.path.join(out, "cache"), "ENVFIX_CONFIG_DIR": os.path.join(out, "config"), "HOME": out})
    index = os.path.join(out, "index")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests/tools/mkindex.py"), index, "--pythons", "cp311", "--torch", "2.11.0",
                    "--variants", "cu130", "--platforms", "manylinux_2_28_x86_64"], check=True, stdout=subprocess.DEVNULL)
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests/tools/index_server.py"), "--root", index],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = server.stdout.readline().split()[1]
    root = f"http://127.0.0.1:{port}/"
    venv = os.path.join(out, "ws")
    spec = os.path.join(out, "spec.yaml")
    with open(spec, "w") as f:
        f.write(f"version: 1\nindex:\n  pytorch-index: {root}\n  index-url: {root}cu130/\nenvironments:\n"
                f"  - venv: {venv}\n    base-python: /usr/bin/python3\n")
    rows = [("apply, first run: new venv, plan, 31 wheels downloaded and installed", timed([envfix, "apply", spec], env))]
    med, p95, cpu = median_ms([envfix, "apply", spec], env, a.runs)
    rows.append(("apply again: nothing to change (warm HTTP cache)", med, p95, cpu))
    med, p95, cpu = median_ms([envfix, "apply", "--check", spec], env, a.runs)
    rows.append(("apply --check, nothing would change", med, p95, cpu))

    lock = os.path.join(out, "ws.lock")
    timed([envfix, "lock", "--env", venv, "--pytorch-index", root, "--index-url", root + "cu130/", "-o", lock], env)
    wheels = os.path.join(out, "wheels")
    timed([envfix, "fetch", "--lock", lock, "--dest", wheels], env)
    server.stdin.close()
    server.wait()
    offline = os.path.join(out, "offline.yaml")
    venv2 = os.path.join(out, "ws-offline")
    with open(offline, "w") as f:
        f.write(f"version: 1\nindex: {{offline: true}}\nwheels: {wheels}\nenvironments:\n"
                f"  - venv: {venv2}\n    base-python: /usr/bin/python3\n    lock: {lock}\n")
    rows.append(("apply a lock offline from a fetched folder: new venv, 31 wheels", timed([envfix, "apply", offline], env)))
    med, p95, cpu = median_ms([envfix, "apply", offline], env, a.runs)
    rows.append(("apply the lock again: nothing to change", med, p95, cpu))
    print("load average: %.1f %.1f %.1f" % os.getloadavg())
    for row in rows:
        if len(row) == 2:
            print("%-72s wall %7.1f ms (one run)" % row)
        else:
            print("%-72s wall median %7.1f ms  p95 %7.1f ms  CPU %6.1f ms" % row)


if __name__ == "__main__":
    main()
